// The house's rules, checked by `npm test`'s lint step (scripts/test.mjs):
// the layers of src/ (docs/layout.md draws them) and every package import in
// src/, bench/, scripts/, test/ and examples/ declared by the package.json it
// is installed from. test/node/lint-rules.test.ts breaks each on purpose.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

// The front's files that a backend must not reach: they sit above it.
const FRONT = '^src/(?:backend|hasher|api|many|tree-ops)\\.ts$';
// Everything above the front: the platforms, the features over it, the entries.
const ABOVE_FRONT = '^src/(?:entries|node|parallel|addressing|compat|cli)/';
const BACKENDS = '^src/(?:wasm|native)/';

/** The layers of src/. */
const layers = [
  {
    name: 'native-not-wasm',
    comment: 'The native backend is used where wasm is not, and the other way round: neither may need the other.',
    from: { path: '^src/native/' },
    to: { path: '^src/wasm/' },
  },
  {
    name: 'wasm-not-native',
    comment: 'The native backend is used where wasm is not, and the other way round: neither may need the other.',
    from: { path: '^src/wasm/' },
    to: { path: '^src/native/' },
  },
  {
    name: 'tree-is-the-ground',
    comment: "src/tree/ is the BLAKE3 tree's geometry and walker: pure, it imports nothing of src/ outside itself.",
    from: { path: '^src/tree/' },
    to: { path: '^src/', pathNot: '^src/tree/' },
  },
  {
    name: 'input-is-the-ground',
    comment: 'src/input.ts checks arguments for every layer, so it can import none of them.',
    from: { path: '^src/input\\.ts$' },
    to: { path: '^src/' },
  },
  {
    name: 'backends-below-the-front',
    comment: 'A backend gives the front what src/engine.ts asks for; it never reaches the front or anything over it.',
    from: { path: BACKENDS },
    to: { path: [FRONT, ABOVE_FRONT] },
  },
  {
    name: 'addressing-over-the-front',
    comment: 'Content addressing works on any backend: it reaches them through the front (src/tree-ops.ts, src/engine.ts), never directly.',
    from: { path: '^src/addressing/' },
    to: { path: ['^src/(?:wasm|native|node|parallel)/', '^src/entries/'] },
  },
  {
    name: 'workers-through-one-door',
    comment: 'The hashing workers use wasm through src/wasm/workers.ts alone, so what they depend on is written in one place.',
    from: { path: '^src/parallel/' },
    to: { path: '^src/wasm/', pathNot: '^src/wasm/workers\\.ts$' },
  },
  {
    name: 'cli-on-public-entries',
    comment: "The command is a user of the package: it imports only the public Node entries, as any program would.",
    from: { path: '^src/cli/' },
    to: { path: '^src/', pathNot: ['^src/cli/', '^src/entries/(?:bao-)?node\\.ts$'] },
  },
  {
    name: 'entries-on-top',
    comment: 'Entries compose the package; nothing under them may import one (only the command, which is above them).',
    from: { path: '^src/', pathNot: ['^src/entries/', '^src/cli/'] },
    to: { path: '^src/entries/' },
  },
  {
    name: 'no-circular',
    comment: 'An import cycle: modules that need each other belong in one module, or one of them depends on the wrong layer.',
    from: { path: '^src/' },
    to: { circular: true },
  },
];

/** The package names a package.json declares, in every dependency field. */
function declared(manifest) {
  const json = JSON.parse(readFileSync(join(__dirname, manifest), 'utf8'));
  const names = new Set([json.name]);
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'])
    for (const name of Object.keys(json[field] ?? {})) names.add(name);
  return [...names];
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// Each project that installs its own packages, innermost first, and the
// folders whose files it installs for.
const projects = [
  { manifest: 'bench/package.json', files: '^bench/' },
  { manifest: 'examples/vite-app/package.json', files: '^examples/vite-app/' },
  { manifest: 'examples/cloudflare-worker/package.json', files: '^examples/cloudflare-worker/' },
  { manifest: 'examples/verified-media/package.json', files: '^examples/verified-media/' },
  {
    manifest: 'package.json',
    files: '^(?:src|scripts|test|examples)/',
    except: ['^examples/vite-app/', '^examples/cloudflare-worker/', '^examples/verified-media/'],
  },
];

// Where resolution finds an installed package: node_modules/ here, or in a
// project's own folder. (dependency-cruiser refuses regular expressions with
// nested repeats, so the prefixes are spelled out.)
const INSTALLED = `(?:${['node_modules/', ...projects.slice(0, -1).map(({ manifest }) => manifest.replace('package.json', 'node_modules/'))].map(escape).join('|')})?`;

/** A package import whose package `manifest` does not declare. It works from
 * what resolution returns: `node_modules/<name>/…` where the package is
 * installed (perhaps only as a dependency of a dependency), the bare
 * specifier where it is not (bench/ and the examples install theirs on
 * demand). */
const undeclared = ({ manifest, files, except }) => ({
  name: `declared-in-${manifest.replace(/\/?package\.json$/, '').replaceAll('/', '-') || 'root'}`,
  comment: `Every package imported under ${files.slice(1)} is declared in ${manifest}: one present only as a dependency of a dependency can vanish with its next release.`,
  from: except === undefined ? { path: files } : { path: files, pathNot: except },
  to: {
    dependencyTypesNot: ['core', 'local'],
    path: `^${INSTALLED}(?!(?:${declared(manifest).map(escape).join('|')})(?:/|$))@?[\\w-]`,
  },
});

// src/ ships with no dependencies at all: only Node's own modules (and the
// wasm files that the edge entries import for the platform's bundler).
const noPackagesInSrc = {
  name: 'src-without-dependencies',
  comment: 'The package has no dependencies: src/ imports only Node built-ins and its own files.',
  from: { path: '^src/' },
  to: { dependencyTypesNot: ['core', 'local'], pathNot: '\\.wasm$' },
};

module.exports = {
  forbidden: [...layers, noPackagesInSrc, ...projects.map(undeclared)].map((rule) => ({ severity: 'error', ...rule })),
  options: {
    // tsconfig.test.json: the paths the tests use resolve as vitest resolves them.
    tsConfig: { fileName: 'tsconfig.test.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['node_modules', '\\.d\\.ts$', '^examples/.*/dist/', '^bench/(?:reference|results|rayon-ref)/'] },
  },
};
