// `npm test`'s import-cycle check over src/ (scripts/test.mjs, lint step).
// TypeScript's `./x.js` specifiers resolve to `./x.ts` through tsconfig.json.
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: modules that need each other belong in one module, or one of them depends on the wrong layer.',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.d\\.ts$' },
  },
};
