// Bundler rows of the consumer matrix: the PACKED tarball installed into a
// fresh project, built exactly as the README says, served on 127.0.0.1 and
// loaded in Debian's Chromium. A row passes only if the digest is right and
// workers really hashed (parallelStatus().jobs).
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { gzipSync } from 'node:zlib';
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { chromium } from 'playwright';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
// @ts-expect-error: a plain .mjs module without types
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../scripts/chromium.mjs';
// @ts-expect-error: a plain .mjs module without types
import { packMain } from '../../scripts/pack.mjs';
import { compatExpected, compatProbe } from './packed.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

// The app every row builds; `init` is what the README tells that bundler's users to write.
// It hashes on workers with 'blake3-kit', then Bao-encodes on workers with
// 'blake3-kit/bao': both entries over one module of each flavour.
const app = (init: string, baoInit: string) => `import { configureParallel, hashParallel, init, parallelStatus, toHex } from 'blake3-kit';
import { baoEncode, baoEncodeParallel, init as initBao } from 'blake3-kit/bao';

await init(${init});
configureParallel({ workers: 2, threshold: 0, helpWhileStarting: false });
const input = new Uint8Array(4 << 20).map((_, i) => i * 7);
const digest = toHex(await hashParallel(input));
const status = parallelStatus();
await initBao(${baoInit});
const outboard = await baoEncodeParallel(input, { outboard: true });
const serial = baoEncode(input, { outboard: true }).encoding;
window.report = {
  digest,
  status,
  bao: { hash: toHex(outboard.hash), sameAsSerial: outboard.encoding.length === serial.length && outboard.encoding.every((b, i) => b === serial[i]), status: parallelStatus() },
};
`;
const PAGE = '<!doctype html><script type="module" src="./app.js"></script>';
const INPUT = new Uint8Array(4 << 20).map((_, i) => i * 7);
const expected = bytesToHex(blake3(INPUT));

const ISOLATED = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
const cspWith = (scriptSources: string[]) => ({
  'Content-Security-Policy': `default-src 'self'; script-src 'self' 'wasm-unsafe-eval'${scriptSources.map((source) => ` ${source}`).join('')}; worker-src 'self'`,
});
const CSP = cspWith([]);
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };

interface Row {
  /** The app's init(...) arguments, and its blake3-kit/bao init's (by default the same). */
  init: string;
  baoInit?: string;
  /** Builds the app in `dir` (package installed, app.js and index.html
   * written); returns the folder to serve. */
  build(dir: string): string;
  /** Whether an output file is the worker script; by default its name
   * starts with "worker". */
  isWorker?(path: string, text: string): boolean;
  /** Sources the row's README steps add to script-src under a strict CSP. */
  scriptSources?(site: string): string[];
}

const namedWorker = (path: string) => /(^|\/)worker[-.]/.test(path);
// A bundler that names chunks by number: the worker is the script that
// answers the pool's messages and starts no workers itself.
const workerByContent = (path: string, text: string) => path.endsWith('.js') && text.includes('init-failed') && !text.includes('new Worker');

const ROWS: Record<string, Row> = {
  // esbuild leaves new URL(..., import.meta.url) as written: the README says
  // to copy worker.js and both .wasm files next to the bundle.
  esbuild: {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: source text of the app, not a template
    init: '{ source: (flavour) => new URL(`./blake3-kit-${flavour}.wasm`, import.meta.url) }',
    build(dir) {
      execFileSync(bin('esbuild'), ['app.js', '--bundle', '--format=esm', '--outdir=public', '--log-level=warning'], { cwd: dir });
      const site = join(dir, 'public');
      const pkg = join(dir, 'node_modules', 'blake3-kit');
      copyFileSync(join(pkg, 'dist', 'worker.js'), join(site, 'worker.js'));
      for (const file of readdirSync(join(pkg, 'wasm')).filter((f) => f.endsWith('.wasm'))) copyFileSync(join(pkg, 'wasm', file), join(site, file));
      writeFileSync(join(site, 'index.html'), PAGE);
      return site;
    },
  },
  // webpack 5 emits the worker and both .wasm files itself (new Worker(new
  // URL(...)) and new URL(..., import.meta.url) are built in): the smallest
  // config there is, in production mode.
  webpack: {
    init: '',
    build(dir) {
      writeFileSync(
        join(dir, 'webpack.config.js'),
        "export default { mode: 'production', entry: './app.js', output: { path: new URL('./public', import.meta.url).pathname } };\n",
      );
      execFileSync(bin('webpack'), ['--no-stats'], { cwd: dir });
      const site = join(dir, 'public');
      writeFileSync(join(site, 'index.html'), '<!doctype html><script src="./main.js"></script>');
      return site;
    },
    isWorker: workerByContent,
  },
  // Rollup resolves with node-resolve (browser condition) and copies what
  // new URL(..., import.meta.url) names, worker.js and the .wasm files, with
  // the import-meta-assets plugin.
  rollup: {
    init: '',
    build(dir) {
      writeFileSync(
        join(dir, 'rollup.config.js'),
        `import { nodeResolve } from '@rollup/plugin-node-resolve';
import { importMetaAssets } from '@web/rollup-plugin-import-meta-assets';
export default { input: 'app.js', output: { dir: 'public', format: 'es' }, plugins: [nodeResolve({ browser: true }), importMetaAssets()] };
`,
      );
      // The plugins, pinned in this repository, linked in as a user's would be installed.
      linkPackages(dir, ['@rollup/plugin-node-resolve', '@web/rollup-plugin-import-meta-assets']);
      execFileSync(bin('rollup'), ['-c', '--silent'], { cwd: dir });
      const site = join(dir, 'public');
      writeFileSync(join(site, 'index.html'), PAGE);
      return site;
    },
  },
  // Parcel with its default config (no .parcelrc; package exports off, so
  // the "browser" field) bundles the worker and copies the .wasm files.
  parcel: {
    init: '',
    build(dir) {
      execFileSync(bin('parcel'), ['build', 'index.html', '--dist-dir', 'public', '--no-cache', '--log-level', 'warn'], { cwd: dir });
      return join(dir, 'public');
    },
    // Parcel writes an inline <script type=importmap>, which script-src
    // 'self' blocks: the README says to allow it by its hash.
    scriptSources: (site) => inlineScriptHashes(readFileSync(join(site, 'index.html'), 'utf8')),
  },
  // Vite emits the worker and both .wasm files itself: nothing to configure.
  // (The Vite that vitest depends on, the version in package-lock.json.)
  vite: {
    init: '',
    build(dir) {
      execFileSync(bin('vite'), ['build', '--logLevel', 'warn'], { cwd: dir });
      return join(dir, 'dist');
    },
  },
};

let dir: string;
let tarball: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'blake3-kit-bundlers-'));
  tarball = packMain(dir);
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh project with the tarball installed and `source` as app.js. */
function installed(name: string, source: string): string {
  const project = join(dir, name);
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: `consumer-${name}`, private: true, type: 'module' }));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], { cwd: project, stdio: 'ignore' });
  writeFileSync(join(project, 'app.js'), source);
  writeFileSync(join(project, 'index.html'), PAGE);
  return project;
}

/** A fresh project with the tarball installed and the app written. */
function consumer(name: string, init: string, baoInit = init): string {
  return installed(name, app(init, baoInit));
}

const SERVED = [
  ['cross-origin isolated', ISOLATED],
  ['under a strict CSP', CSP],
] as const;

/** What a row must show: the right digest, computed by workers, silently. */
function expectWorkersRan({ report, warnings, errors }: Loaded): void {
  expect(errors).toEqual([]);
  expect(warnings).toEqual([]);
  expect(report.digest).toBe(expected);
  expect(report.status).toMatchObject({ started: 2, broken: undefined });
  expect(report.status.jobs).toBeGreaterThan(0);
  expect(report.bao).toMatchObject({ hash: expected, sameAsSerial: true, status: { started: 2, broken: undefined } });
  expect(report.bao.status.jobs).toBeGreaterThan(0);
}

// Node's projects all run test/node/; one Chromium run of these rows is enough.
const simd = inject('flavour') === 'simd';

describe.runIf(simd).each(Object.entries(ROWS))('%s, following the README', (name, row) => {
  let site: string;
  beforeAll(() => {
    site = row.build(consumer(name, row.init, row.baoInit));
  }, 120_000);

  const csp = () => (row.scriptSources ? cspWith(row.scriptSources(site)) : CSP);

  it('hashes right on workers, cross-origin isolated', async () => expectWorkersRan(await served(site, ISOLATED, open)), 60_000);

  it('hashes right on workers, under a strict CSP', async () => expectWorkersRan(await served(site, csp(), open)), 60_000);

  it('without its worker file, warns once per pool and still hashes right on one thread', async () => {
    const bare = `${site}-no-worker`;
    const isWorker = row.isWorker ?? namedWorker;
    copyTree(site, bare, (file) => !isWorker(file, readFileSync(join(site, file), 'utf8')));
    const { report, warnings } = await served(bare, csp(), open);
    expect(report.digest).toBe(expected);
    expect(report.status).toMatchObject({ jobs: 0, broken: expect.stringMatching(/workers keep failing to start/) });
    expect(report.bao).toMatchObject({ hash: expected, sameAsSerial: true, status: { jobs: 0, broken: report.status.broken } });
    // Once: both entries share one module, so one pool.
    expect(warnings).toEqual([report.status.broken]);
  }, 60_000);

  // The app imports 'blake3-kit' and 'blake3-kit/bao': one module of each
  // flavour for both (before, 17.1 KB gzip more of SIMD wasm).
  it('ships each wasm module once, for both entries', () => {
    const wasm = filesOf(site).filter((file) => file.endsWith('.wasm'));
    const contents = wasm.map((file) => readFileSync(join(site, file)));
    expect(new Set(contents.map((bytes) => createHash('sha256').update(bytes).digest('hex'))).size).toBe(wasm.length);
    expect(wasm).toHaveLength(2);
    const gzipped = contents.map((bytes, i) => `${wasm[i]} ${gzipSync(bytes, { level: 9 }).length} B gzip`);
    console.log(`${name}: ${gzipped.join(', ')}`);
  });
});

/** Every file under `dir`, as paths relative to it. */
function filesOf(dir: string, relative = ''): string[] {
  return readdirSync(join(dir, relative), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesOf(dir, join(relative, entry.name)) : [join(relative, entry.name)],
  );
}

// What Vite, webpack, Parcel and Rollup's import-meta-assets look for, as
// one expression in the shipped file (a minifier could split it).
it.runIf(simd)('dist/browser.js starts its workers with the literal new Worker(new URL(...), { type: module })', () => {
  // In the entry or a chunk of the code both browser entries share.
  const entry = readFileSync(join(root, 'dist', 'browser.js'), 'utf8');
  const chunks = [...entry.matchAll(/from"\.\/(shared-[\w-]+\.js)"/g)].map(([, chunk]) => readFileSync(join(root, 'dist', chunk!), 'utf8'));
  const shipped = [entry, ...chunks].find((code) => code.includes('new Worker(')) ?? '';
  expect(shipped).toMatch(/new Worker\(new URL\(["'`]\.\/worker\.js["'`], ?import\.meta\.url\), ?\{ ?type: ?["'`]module["'`] ?\}\)/);
});

// Vite's dev server pre-bundles the package into node_modules/.vite: the
// worker must still be found from there. Headers come from vite.config.js
// (server.headers), as an app would set them.
describe.runIf(simd)('vite dev server', () => {
  let project: string;
  beforeAll(() => {
    project = consumer('vite-dev', '');
    writeFileSync(join(project, 'vite.config.js'), 'export default { server: { headers: JSON.parse(process.env.TEST_HEADERS) } };\n');
  }, 120_000);

  it.each(SERVED)('hashes right on workers, %s', async (_, headers) => expectWorkersRan(await viteDev(project, headers, open)), 60_000);
});

// blake3-kit/compat as blake3-wasm's browser users write it: `await load()`
// (as blake3-wasm's browser builds need), then its API, in the bundlers
// they use most, each built as docs/bundlers-and-runtimes.md says for the
// hashing entry, from one project (one install for three rows).
const compatApp = (source: string) => `import load, { hash, createHash, keyedHash, deriveKey } from 'blake3-kit/compat';
let early;
try {
  hash('abc');
} catch (error) {
  early = error.message;
}
await load(${source});
${compatProbe('new Uint8Array(32).fill(7)')}
window.report = { early, ...compat };
`;
// Each builds and returns the folder to serve. One after the other, in the
// row: building the three at once took 3.0 s against 3.3 s (medians of four
// interleaved runs, this 2-core machine at load average 7-9), not worth the code.
const COMPAT_BUILDS: Record<string, (project: string) => string> = {
  // esbuild copies nothing: the modules go next to the bundle, load() is told where.
  esbuild(project) {
    writeFileSync(join(project, 'app-esbuild.js'), compatApp("new URL('./blake3-kit-simd.wasm', import.meta.url)"));
    execFileSync(bin('esbuild'), ['app-esbuild.js', '--bundle', '--format=esm', '--outfile=public-esbuild/app.js', '--log-level=warning'], {
      cwd: project,
    });
    const site = join(project, 'public-esbuild');
    const wasm = join(project, 'node_modules', 'blake3-kit', 'wasm');
    for (const file of readdirSync(wasm).filter((f) => f.endsWith('.wasm'))) copyFileSync(join(wasm, file), join(site, file));
    writeFileSync(join(site, 'index.html'), PAGE);
    return site;
  },
  webpack(project) {
    writeFileSync(
      join(project, 'webpack.config.js'),
      "export default { mode: 'production', entry: './app.js', output: { path: new URL('./public-webpack', import.meta.url).pathname } };\n",
    );
    execFileSync(bin('webpack'), ['--no-stats'], { cwd: project });
    const site = join(project, 'public-webpack');
    writeFileSync(join(site, 'index.html'), '<!doctype html><script src="./main.js"></script>');
    return site;
  },
  vite(project) {
    execFileSync(bin('vite'), ['build', '--logLevel', 'warn', '--outDir', 'public-vite'], { cwd: project });
    return join(project, 'public-vite');
  },
};

describe.runIf(simd)('blake3-kit/compat, after await load()', () => {
  let project: string;
  beforeAll(() => {
    project = installed('compat', compatApp(''));
  }, 60_000);

  it.each(Object.keys(COMPAT_BUILDS))(
    '%s: hashes right under a strict CSP, and says to load() first',
    async (name) => {
      const { report, warnings, errors } = await served(COMPAT_BUILDS[name]!(project), CSP, open);
      expect(errors).toEqual([]);
      expect(warnings).toEqual([]);
      expect(report).toEqual({ ...compatExpected, buffer: false, early: expect.stringContaining('call `await load()` before hashing') });
    },
    60_000,
  );
});

/** CSP sources ('sha256-…') for the inline scripts of a page. */
function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(/<script\b[^>]*>([^<]+)<\/script>/g)].map(([, body]) => `'sha256-${createHash('sha256').update(body!).digest('base64')}'`);
}

/** Links packages from this repository's node_modules into `dir`'s. */
function linkPackages(dir: string, names: string[]): void {
  for (const name of names) {
    const to = join(dir, 'node_modules', name);
    mkdirSync(dirname(to), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), to, 'dir');
  }
}

function copyTree(from: string, to: string, keep: (relative: string) => boolean, relative = ''): void {
  mkdirSync(join(to, relative), { recursive: true });
  for (const entry of readdirSync(join(from, relative), { withFileTypes: true })) {
    const path = join(relative, entry.name);
    if (entry.isDirectory()) copyTree(from, to, keep, path);
    else if (keep(path)) copyFileSync(join(from, path), join(to, path));
  }
}

type Status = { started: number; jobs: number; broken?: string };
type Report = { digest: string; status: Status; bao: { hash: string; sameAsSerial: boolean; status: Status } };
type Loaded = { report: Report; warnings: string[]; errors: string[] };

/** Loads `url` in Chromium: what the page reported, with the console's
 * warnings and errors. */
async function open(url: string): Promise<Loaded> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    const warnings: string[] = [];
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'warning') warnings.push(message.text());
      // A failed load is reported below with its URL.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text());
    });
    page.on('response', (response) => {
      const { pathname } = new URL(response.url());
      if (response.status() >= 400 && pathname !== '/favicon.ico') errors.push(`${response.status()} ${pathname}`);
    });
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(url);
    await page.waitForFunction(() => 'report' in window, undefined, { timeout: 30_000 });
    const report = (await page.evaluate(() => (window as unknown as { report: Report }).report)) as Report;
    return { report, warnings, errors };
  } finally {
    await browser.close();
  }
}

/** Serves the folder `site` with `headers` on 127.0.0.1 while `use` runs. */
async function served<T>(site: string, headers: Record<string, string>, use: (url: string) => Promise<T>): Promise<T> {
  const server = await serveStatic(site, headers);
  try {
    return await use(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
  } finally {
    server.close();
  }
}

/** Runs `vite` (the dev server) in `project` with `headers` while `use` runs. */
async function viteDev<T>(project: string, headers: Record<string, string>, use: (url: string) => Promise<T>): Promise<T> {
  const port = await freePort();
  const child = spawn(bin('vite'), ['--port', String(port), '--strictPort', '--host', '127.0.0.1'], {
    cwd: project,
    // With CI set, vite prints the port in bold even into a pipe.
    env: { ...process.env, TEST_HEADERS: JSON.stringify(headers), NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    let printed = '';
    await new Promise<void>((ready, failed) => {
      const deadline = setTimeout(() => failed(new Error(`vite did not report port ${port}; it printed:\n${printed}`)), 30_000);
      child.stdout.on('data', (data: Buffer) => {
        printed += data.toString();
        if (stripVTControlCharacters(printed).includes(`:${port}/`)) clearTimeout(deadline), ready();
      });
      child.on('exit', (code) => failed(new Error(`vite exited with code ${code}`)));
    });
    return await use(`http://127.0.0.1:${port}/`);
  } finally {
    child.kill();
  }
}

function freePort(): Promise<number> {
  const server = createServer();
  return new Promise((done) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    }),
  );
}

function serveStatic(dir: string, headers: Record<string, string>): Promise<Server> {
  const server = createServer((request, response) => {
    const name = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname)).slice(1) || 'index.html';
    const file = join(dir, name);
    if (name.startsWith('..') || !statSafe(file)) return void response.writeHead(404).end('not found');
    response.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', ...headers });
    response.end(readFileSync(file));
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

function statSafe(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
