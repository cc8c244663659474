// Bundles the entry points into minified ES modules in dist/: node.js,
// browser.js and the rest, with the code the library entries share in
// dist/shared-*.js. tsc only writes the .d.ts files (emitDeclarationOnly).
//
// Measured on this machine (Node 20, `import` of the entry, median of 7):
// 11 tsc modules took 5.3 ms to import, the bundle 1.8 ms; for browsers the
// download drops from 7.4 KB to 3.5 KB gzip. esbuild keeps the literal
// `new URL('../wasm/...', import.meta.url)` that bundlers look for.
import { build } from 'esbuild';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { isMain, main, root } from './lib.mjs';

const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** Keeps the workerd, edge-light and inline entries' imports of the code
 * they share (dist/entry-core.js, dist/bao-entry-core.js, and
 * dist/compat-entry-core.js from src/compat/entry-core.ts), which are split
 * entries on the same chunks: a second copy of that code would be a second
 * wasm state. */
const sharedEntryCore = {
  name: 'shared-entry-core',
  setup(b) {
    b.onResolve({ filter: /^\.\/(bao-)?entry-core\.js$/ }, (args) => ({ path: args.path, external: true }));
    b.onResolve({ filter: /^\.\.\/compat\/entry-core\.js$/ }, () => ({ path: './compat-entry-core.js', external: true }));
  },
};

/** Base64 of a built wasm flavour (src/wasm/embedded.ts). */
const embedded = (flavour) => JSON.stringify(readFileSync(join(root, `wasm/blake3-kit-${flavour}.wasm`)).toString('base64'));

/** Keeps each `import … from '….wasm'` for the edge platform's bundler,
 * with a suffix where it wants one (Vercel Edge: `?module`). */
const wasmImports = (suffix) => ({
  name: 'wasm-imports',
  setup(b) {
    b.onResolve({ filter: /\.wasm$/ }, (args) => ({ path: args.path + suffix, external: true }));
  },
});

// Identifiers are not minified: classes keep their names (users see them in
// error.name, Hasher.name and stack traces; fully minified,
// FileTruncatedError.name was 'ke'), without esbuild's keepNames, whose
// __name() calls are side effects that stop a consumer's bundler from
// dropping unused code: `export { init }` from dist/browser.js went from
// 5.3 to 11.7 KB gzip with it. Consumers' bundlers minify identifiers
// themselves.
const common = {
  bundle: true,
  format: 'esm',
  minifyWhitespace: true,
  minifySyntax: true,
  // No source maps: they could only point at src/, which is not shipped,
  // and they were 75 of the 254 KB of the packed tarball. The code keeps its
  // names and statements, so stack traces still read.
  sourcemap: false,
  logLevel: 'warning',
};

export async function bundle() {
  // Chunk names carry a hash of their content: drop the last build's.
  const dist = join(root, 'dist');
  for (const name of existsSync(dist) ? readdirSync(dist) : []) if (/^shared-.*\.js$/.test(name)) rmSync(join(dist, name));
  // First the worker_threads script, which the Node bundle entries carry
  // as text (src/node/embedded.ts).
  await build({
    ...common,
    entryPoints: [join(root, 'src/entries/worker-node.ts')],
    outfile: join(root, 'dist/worker-node.js'),
    platform: 'node',
    target: 'node20',
  });
  await Promise.all([
    // The Node, browser, inline and shared-core entries in one build, split:
    // code they share is one chunk (dist/shared-*.js) instead of a copy per
    // entry. The packed tarball went from 203.6 to 161.9 kB (as npm prints it)
    // and the consumer's payload of `export { init }` did not change. A
    // module only Node's entry reaches stays in dist/node.js, so the browser
    // entry never imports `node:` builtins (test/node/package.test.ts). The
    // Node bundle entries (*-bundle.js) and inline.js share the chunk of the
    // two flavours' base64 (src/wasm/embedded.ts): 127 KB, once.
    build({
      ...common,
      entryPoints: Object.fromEntries(
        [
          'node',
          'browser',
          'entry-core',
          'bao-node',
          'bao-browser',
          'bao-entry-core',
          'compat-node',
          'compat-browser',
          'inline',
          'node-bundle',
          'bao-node-bundle',
          'compat-node-bundle',
        ]
          .map((name) => [name, join(root, `src/entries/${name}.ts`)])
          .concat([['compat-entry-core', join(root, 'src/compat/entry-core.ts')]]),
      ),
      outdir: join(root, 'dist'),
      splitting: true,
      chunkNames: 'shared-[hash]',
      platform: 'neutral',
      external: ['node:*'],
      target: 'es2022',
      define: {
        __BLAKE3_KIT_SIMD_WASM__: embedded('simd'),
        __BLAKE3_KIT_SCALAR_WASM__: embedded('scalar'),
        __BLAKE3_KIT_NODE_WORKER__: JSON.stringify(readFileSync(join(root, 'dist/worker-node.js'), 'utf8')),
      },
    }),
    // The .wasm imported as a module: Cloudflare (workerd) and Vercel Edge.
    ...[
      ['workerd', 'workerd', ''],
      ['edge-light', 'workerd', '?module'],
      ['bao-workerd', 'bao-workerd', ''],
      ['bao-edge-light', 'bao-workerd', '?module'],
      ['compat-workerd', 'compat-workerd', ''],
      ['compat-edge-light', 'compat-workerd', '?module'],
    ].map(([name, source, suffix]) =>
      build({
        ...common,
        entryPoints: [join(root, `src/entries/${source}.ts`)],
        outfile: join(root, `dist/${name}.js`),
        platform: 'neutral',
        target: 'es2022',
        plugins: [wasmImports(suffix), sharedEntryCore],
      }),
    ),
    // Hashing workers: dist/worker.js (module Web Worker); dist/worker-node.js is built first (above).
    build({
      ...common,
      entryPoints: [join(root, 'src/entries/worker-browser.ts')],
      outfile: join(root, 'dist/worker.js'),
      platform: 'browser',
      target: 'es2022',
    }),
    // The CLI is one file with its own copy of what it uses of the Node
    // entry: importing dist/node.js and its chunks (10 modules, node:stream
    // among them) made a run on a 5-byte file 8% slower on Node 20.20 (70 ->
    // 64 ms) and 15% on Node 24.21 (34 -> 29 ms), for 27 KB (gzip) more in
    // the tarball. It shares no state with a program's import of the package.
    // CommonJS, not ESM: Node's ESM loader made a run on a 5-byte file 7%
    // slower on Node 20.20 and 5-10% on 22-26 (1.26 -> 1.16x `node -e 0` on
    // Node 20; farm-bench -n 21). Its import.meta.url is its own file's URL.
    build({
      ...common,
      format: 'cjs',
      entryPoints: [join(root, 'src/cli/bin.ts')],
      outfile: join(root, 'dist/cli.cjs'),
      platform: 'node',
      target: 'node20',
      define: { __VERSION__: JSON.stringify(version), 'import.meta.url': '__cliFileUrl' },
      banner: { js: 'const __cliFileUrl=require("node:url").pathToFileURL(__filename).href;' },
    }),
  ]);
  writeTypeEntries();
  pruneDeclarations();
  const sizes = ['inline.js', 'node-bundle.js', 'compat-node-bundle.js', 'workerd.js'].map((entry) => `dist/${entry} ${closureGzip(entry)}`);
  console.error(`with the chunks each imports, gzip -9 one by one: ${sizes.join('; ')} (the first three carry both wasm flavours)`);
}

/** An entry of dist/ and every chunk it imports, gzipped one by one, in KB. */
function closureGzip(entry) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(join(root, 'dist', file), 'utf8');
    for (const [, chunk] of code.matchAll(/(?:from|import)\s*"\.\/([\w.-]+\.js)"/g)) visit(chunk);
  };
  visit(entry);
  const bytes = [...seen].reduce((sum, file) => sum + gzipSync(readFileSync(join(root, 'dist', file)), { level: 9 }).length, 0);
  return `${(bytes / 1024).toFixed(1)} KB`;
}

/** The entries whose declarations package.json names, as dist/<name>.d.ts. */
const TYPE_ENTRIES = [
  'node',
  'browser',
  'workerd',
  'inline',
  'bao-node',
  'bao-browser',
  'bao-workerd',
  'compat-node',
  'compat-browser',
  'compat-workerd',
];

/** dist/<name>.d.ts beside each dist/<name>.js, over tsc's
 * dist/entries/<name>.d.ts: the sources' folders are not the package's. */
function writeTypeEntries() {
  for (const name of TYPE_ENTRIES) {
    const declared = readFileSync(join(root, 'dist', 'entries', `${name}.d.ts`), 'utf8');
    const lines = [`export * from './entries/${name}.js';`];
    if (/^export default /m.test(declared)) lines.push(`export { default } from './entries/${name}.js';`);
    writeFileSync(join(root, 'dist', `${name}.d.ts`), `${lines.join('\n')}\n`);
  }
}

/**
 * Deletes the .d.ts files tsc wrote that no type entry reaches (through
 * `from '…'` or `import('…')`): the CLI's, the workers', the bundles'
 * internals, which only weigh on every install (30 of 75 files, 20 of
 * 96 KB; #11 keeps the packed tarball under 200 KB).
 */
function pruneDeclarations() {
  const dist = join(root, 'dist');
  const reached = new Set();
  const visit = (file) => {
    if (reached.has(file)) return;
    reached.add(file);
    const text = readFileSync(file, 'utf8');
    for (const [, spec] of text.matchAll(/(?:from\s+|import\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = resolve(dirname(file), spec.replace(/\.js$/, '.d.ts'));
      if (existsSync(target)) visit(target);
      else if (existsSync(target.replace(/\.d\.ts$/, '/index.d.ts'))) visit(target.replace(/\.d\.ts$/, '/index.d.ts'));
      else throw new Error(`${file} refers to ${spec}, which has no declaration file`);
    }
  };
  for (const name of TYPE_ENTRIES) visit(join(dist, `${name}.d.ts`));
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.d.ts') && !reached.has(path)) rmSync(path);
    }
    if (dir !== dist && readdirSync(dir).length === 0) rmSync(dir, { recursive: true });
  };
  walk(dist);
}

if (isMain(import.meta.url)) await main(bundle);
