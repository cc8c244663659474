import { playwright } from '@vitest/browser-playwright';
import { fileURLToPath } from 'node:url';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
// @ts-expect-error: a plain .mjs module without types
import { webdriverProvider } from './scripts/webdriver.mjs';
// @ts-expect-error: a plain .mjs module without types
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './scripts/chromium.mjs';

const entry = (name: string) => fileURLToPath(new URL(`./src/entries/${name}.ts`, import.meta.url));

// The entries from source: 'blake3-kit', 'blake3-kit/bao' and
// 'blake3-kit/compat' (exact matches: an object alias of 'blake3-kit' would
// also take 'blake3-kit/bao').
const aliases = (platform: 'node' | 'browser') => [
  { find: /^blake3-kit$/, replacement: entry(platform) },
  { find: /^blake3-kit\/bao$/, replacement: entry(`bao-${platform}`) },
  { find: /^blake3-kit\/compat$/, replacement: entry(`compat-${platform}`) },
];

// blake3's own tests (copied, test/compat/ADAPTED.md) and ours for the
// compat entry: Node's in the node projects, the browser ones in Chromium.
const compatNode = ['test/compat/ts/node.test.ts', 'test/compat/blake3/node.test.ts', 'test/compat/compat-extra.test.ts'];
const compatBrowser = ['test/compat/ts/browser.test.ts', 'test/compat/blake3/browser.test.ts', 'test/compat/compat-browser.test.ts'];
// Their test helpers read the fixture with readFileSync(__dirname + ...):
// in the page, 'fs' is a module serving it and __dirname a constant.
const compatPage = {
  define: { __dirname: JSON.stringify('/test/compat/ts/base') },
};
const compatPageAliases = [{ find: /^fs$/, replacement: fileURLToPath(new URL('./test/compat/page-fs.ts', import.meta.url)) }];

// The suite every backend must pass, in Node and in Chromium.
const shared = ['test/shared/**/*.test.ts'];
// The wasm glue's own internals (subtrees, wasm memory, the raw exports).
const wasm = ['test/wasm/**/*.test.ts'];
// Every Node test runs in every Node project unless it is listed here: a
// new test runs on the addon too without anyone remembering to add it.
const node = ['test/node/**/*.test.ts'];
const nodeFile = (name: string) => `test/node/${name}.test.ts`;
// Tests of the package as a whole (its tarball in consumer projects, its
// build, docs and lint rules) or that start their own backends in child
// processes: once, in node-simd.
const nodeOnce = [
  'arm64',
  'bench-lock',
  'bundlers',
  'compat-exports',
  'examples',
  'example-page',
  'hash-in-parts',
  'inline-entry',
  'install',
  'lint-rules',
  'memory-bounds',
  'node-bundles',
  'package',
  'readme-links',
  'resume-page',
  'runtimes',
  'types',
  'vectors-fresh',
  'verified-download',
  'verified-fetch-runtimes',
  'verified-media',
  'wrangler',
].map(nodeFile);
// The wasm modules and their workers: kernels module against module, the
// known-answer test at init() against a broken build, init()'s module
// sources, the worker pool's replies, warnings and life (the addon hashes
// in parallel on its own threads).
const wasmOnly = ['init', 'kernels', 'parallel', 'self-test', 'worker-warnings'].map(nodeFile);
// The addon's own API and Node's default routing, which only the auto
// project has loaded; async-native needs the addon (auto and native).
const autoOnly = ['addon', 'native', 'native-safety', 'cli'].map(nodeFile);
const nativeOnly = ['async-native'].map(nodeFile);

const chromium = playwright({
  launchOptions: { executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, '--js-flags=--expose-gc'] },
});

function nodeProject(flavour: 'simd' | 'scalar'): TestProjectInlineConfiguration {
  return {
    resolve: { alias: aliases('node') },
    test: {
      name: `node-${flavour}`,
      include: [...shared, ...wasm, ...node, ...(flavour === 'simd' ? compatNode : [])],
      // The CLI picks its own backend: simd and auto test it.
      exclude: [...autoOnly.filter((file) => file !== nodeFile('cli') || flavour === 'scalar'), ...nativeOnly, ...(flavour === 'simd' ? [] : nodeOnce)],
      // wasm only, also in the child processes tests start (CLI, package).
      env: { BLAKE3_KIT_BACKEND: 'wasm' },
      provide: { flavour, backend: `wasm-${flavour}` },
      ...nodeRun,
    },
  };
}

// The native addon alone, and Node's default: native above the routing
// threshold, wasm-simd below it. Wasm internals (subtrees, wasm memory) are
// tested by the wasm projects; test/node/native.test.ts has the native ones.
function nativeProject(backend: 'native' | 'auto'): TestProjectInlineConfiguration {
  return {
    resolve: { alias: aliases('node') },
    test: {
      name: `node-${backend}`,
      include: [...shared, ...node, ...(backend === 'auto' ? compatNode : [])],
      // auto routes each size to native or wasm-simd, each raced in its own project.
      exclude: [...nodeOnce, ...wasmOnly, ...(backend === 'auto' ? [nodeFile('bao-race')] : autoOnly)],
      env: { BLAKE3_KIT_BACKEND: backend },
      provide: { flavour: 'simd', backend },
      ...nodeRun,
    },
  };
}

// Fast toEqual for byte arrays, in every project.
const setupFiles = ['test/equal-bytes.ts'];

const nodeRun = {
  setupFiles,
  environment: 'node',
  pool: 'forks',
  execArgv: ['--expose-gc'],
  testTimeout: 120_000,
} as const;

// The simd project is served cross-origin isolated (SharedArrayBuffer exists),
// the scalar one is not: the suite must pass both ways.
const isolation = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

type Engine = 'chromium' | 'firefox' | 'webkit';

// The browser entries name their wasm as `new URL('../wasm/…', import.meta.url)`,
// right for dist/ beside wasm/; from src/entries/ that URL lands in src/wasm/.
const builtWasm = {
  name: 'built-wasm',
  configureServer(server: { middlewares: { use(handler: (req: { url?: string }, res: unknown, next: () => void) => void): void } }) {
    server.middlewares.use((req, _res, next) => {
      if (req.url?.includes('/src/wasm/blake3-kit-') === true) req.url = req.url.replace('/src/wasm/', '/wasm/');
      next();
    });
  },
};

// Chromium through playwright (it drives Debian's build); Firefox ESR and
// WebKitGTK through WebDriver, which drives stock browsers (scripts/browsers.mjs).
const engines = {
  chromium: { provider: chromium, browser: 'chromium', headless: true },
  firefox: { provider: webdriverProvider('firefox'), browser: 'firefox', headless: true },
  // vitest calls every WebKit 'safari', and refuses headless Safari: it runs on an Xvfb display.
  webkit: { provider: webdriverProvider('webkit'), browser: 'safari', headless: false },
} as const;

// WebKitGTK 2.50's JavaScriptCore has no `using` declarations, which the
// tests and src/ use: vite lowers them there, as tsc (ES2022) does for dist/.
const lowered = { webkit: { oxc: { target: 'es2022' } } } as Partial<Record<Engine, object>>;

function browserProject(engine: Engine, flavour: 'simd' | 'scalar'): TestProjectInlineConfiguration {
  const { provider, browser, headless } = engines[engine];
  const compat = engine === 'chromium' && flavour === 'simd';
  return {
    ...lowered[engine],
    ...(compat ? compatPage : {}),
    resolve: { alias: [...aliases('browser'), ...(compat ? compatPageAliases : [])] },
    plugins: [builtWasm],
    server: { headers: flavour === 'simd' ? isolation : {} },
    test: {
      name: `${engine}-${flavour}`,
      include: [...shared, ...wasm, 'test/browser/**/*.test.ts', ...(compat ? compatBrowser : [])],
      provide: { flavour, backend: `wasm-${flavour}`, engine },
      setupFiles,
      testTimeout: 120_000,
      browser: {
        enabled: true,
        headless,
        provider,
        instances: [{ browser }],
        screenshotFailures: false,
      },
    },
  };
}

export default defineConfig({
  test: {
    projects: [
      nodeProject('simd'),
      nodeProject('scalar'),
      nativeProject('native'),
      nativeProject('auto'),
      ...(['chromium', 'firefox', 'webkit'] as const).flatMap((engine) => [browserProject(engine, 'simd'), browserProject(engine, 'scalar')]),
    ],
  },
});
