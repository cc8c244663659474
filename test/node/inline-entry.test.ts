// The entries for places that can't fetch a file, from the packed tarball
// installed in a fresh project: blake3-kit/inline bundled by esbuild for Node
// (one file, run from elsewhere) and for a browser under a strict CSP, the
// default entry bundled for Node (a clear error naming the inline entry),
// and the workerd condition run by Cloudflare's workerd with plain init().
// Once per run (node-simd): nothing here depends on the project's flavour.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs module without types
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../scripts/chromium.mjs';
// @ts-expect-error: a plain .mjs module without types
import { packMain } from '../../scripts/pack.mjs';
import { flavour, load, pattern } from '../shared/setup.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const b3 = await load();
const LENGTH = 100_003; // several chunks and a partial one
const expected = `${b3.toHex(b3.hash('abc'))} ${b3.toHex(b3.hash(pattern(LENGTH)))}`;
// What each consumer prints or shows: the digests of 'abc' and of the pattern.
const body = `const b3 = await init(); const bytes = new Uint8Array(${LENGTH}); for (let i = 0; i < bytes.length; i++) bytes[i] = i % 251;
  const out = b3.backend + ' ' + toHex(b3.hash('abc')) + ' ' + toHex(b3.hash(bytes));`;
const consumer = (entry: string, style: 'esm' | 'cjs') =>
  style === 'esm'
    ? `import { init, toHex } from '${entry}';\n${body}\nglobalThis.document ? (document.body.dataset.out = out) : console.log(out);\n`
    : `const { init, toHex } = require('${entry}');\n(async () => { ${body} console.log(out); })().catch((e) => { console.error(e.message); process.exitCode = 1; });\n`;

let dir: string;
let project: string;

async function bundle(name: string, source: string, options: Parameters<typeof build>[0]): Promise<string> {
  writeFileSync(join(project, name), source);
  const outdir = join(project, 'out', name.replace(/\W/g, '-'));
  const result = await build({ absWorkingDir: project, entryPoints: [name], bundle: true, outdir, logLevel: 'silent', ...options });
  expect(result.errors).toEqual([]);
  return outdir;
}

/** Runs a bundle with node from a directory that has no node_modules. */
function runElsewhere(file: string) {
  const elsewhere = mkdtempSync(join(dir, 'elsewhere-'));
  return spawnSync(process.execPath, [file], { cwd: elsewhere, encoding: 'utf8', timeout: 30_000 });
}

describe.skipIf(flavour !== 'simd')('entries for places without a file to fetch', () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'blake3-kit-inline-'));
    project = join(dir, 'app');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    // Offline: the platform packages are optional, and not needed here.
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', packMain(dir)], { cwd: project, stdio: 'ignore' });
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(['esm', 'cjs'] as const)('blake3-kit/inline bundled by esbuild --platform=node (%s) is one file that hashes right', async (style) => {
    const outdir = await bundle(`inline-${style}.${style === 'esm' ? 'mjs' : 'cjs'}`, consumer('blake3-kit/inline', style), {
      platform: 'node',
      format: style,
      outExtension: { '.js': `.${style === 'esm' ? 'mjs' : 'cjs'}` },
    });
    expect(readdirSync(outdir)).toHaveLength(1);
    const run = runElsewhere(join(outdir, readdirSync(outdir)[0]!));
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe(`wasm-simd ${expected}`);
  });

  // esbuild's `module` condition picks the bundle entry, which carries the
  // wasm (test/node/node-bundles.test.ts has every bundler and entry, and
  // what a bundle of the plain entry says).
  it.each(['esm', 'cjs'] as const)('the default entry bundled by esbuild --platform=node (%s) is one file that hashes right too', async (style) => {
    const outdir = await bundle(`default-${style}.${style === 'esm' ? 'mjs' : 'cjs'}`, consumer('blake3-kit', style), {
      platform: 'node',
      format: style,
      outExtension: { '.js': `.${style === 'esm' ? 'mjs' : 'cjs'}` },
    });
    expect(readdirSync(outdir)).toHaveLength(1);
    const run = runElsewhere(join(outdir, readdirSync(outdir)[0]!));
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe(`wasm-simd ${expected}`);
  });

  it('blake3-kit/inline bundled by esbuild --platform=browser into one file hashes in Chromium under a strict CSP', async () => {
    const outdir = await bundle('page.js', consumer('blake3-kit/inline', 'esm'), { platform: 'browser', format: 'esm' });
    expect(readdirSync(outdir)).toEqual(['page.js']);
    writeFileSync(join(outdir, 'index.html'), '<!doctype html><meta charset="utf-8"><body><script type="module" src="page.js"></script>');
    const strict = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'";
    const requested: string[] = [];
    const server = createServer(async (request, response) => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      requested.push(url.pathname);
      // /no-wasm/ shows that the CSP is enforced: without 'wasm-unsafe-eval' compiling is refused.
      const csp = url.pathname.startsWith('/no-wasm/') ? "default-src 'self'; script-src 'self'" : strict;
      const name = url.pathname.replace(/^\/(no-wasm\/)?/, '') || 'index.html';
      const type = extname(name) === '.js' ? 'text/javascript' : 'text/html';
      try {
        const body = await readFile(join(outdir, name));
        response.writeHead(200, { 'Content-Type': type, 'Content-Security-Policy': csp }).end(body);
      } catch {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${base}/`);
      await page.waitForFunction(() => document.body.dataset.out !== undefined, undefined, { timeout: 30_000 });
      expect(await page.evaluate(() => document.body.dataset.out)).toBe(`wasm-simd ${expected}`);
      expect(errors).toEqual([]);
      // The page and the one script: nothing else fetched.
      expect(requested.filter((path) => path !== '/favicon.ico')).toEqual(['/', '/page.js']);
      const refused = await browser.newPage();
      const refusals: string[] = [];
      refused.on('pageerror', (error) => refusals.push(error.message));
      await refused.goto(`${base}/no-wasm/`);
      await expect.poll(() => refusals.join('\n'), { timeout: 30_000 }).toMatch(/WebAssembly|wasm/i);
    } finally {
      await browser.close();
      server.close();
    }
  }, 60_000);

  // Before 2025-05-05 workerd has no FinalizationRegistry.
  // blake3-kit/bao Bao-encodes there too (the same digest as a hash).
  const baoBody = `${body}\n        if (toHex(baoEncode(bytes).hash) !== toHex(b3.hash(bytes))) throw new Error('baoEncode differs');`;
  it.each([
    ['2025-01-01', 'blake3-kit'],
    ['2025-06-01', 'blake3-kit'],
    ['2025-06-01', 'blake3-kit/bao'],
  ])(
    'the workerd condition hashes in Cloudflare workerd with plain init() (compatibility date %s, %s)',
    async (date, entry) => {
      // What wrangler does: bundle with the workerd condition and hand the
      // imported .wasm to workerd as a compiled module.
      const bao = entry === 'blake3-kit/bao';
      const outdir = await bundle(
        `worker-${date}${bao ? '-bao' : ''}.js`,
        `import { init, toHex${bao ? ', baoEncode' : ''} } from '${entry}';
      export default { async test(controller, env) {
        ${bao ? baoBody : body}
        if (out !== env.EXPECTED) throw new Error('got ' + out);
        console.log('digest ok');
      } };\n`,
        { platform: 'neutral', format: 'esm', conditions: ['workerd', 'worker', 'browser'], loader: { '.wasm': 'copy' } },
      );
      // The main module first: workerd runs the first one.
      const main = `worker-${date}${bao ? '-bao' : ''}.js`;
      const files = [main, ...readdirSync(outdir).filter((file) => file !== main)];
      const modules = files.map((file) => `(name = "${file}", ${file.endsWith('.wasm') ? 'wasm' : 'esModule'} = embed "${file}")`);
      expect(modules.filter((module) => module.includes('wasm ='))).toHaveLength(2);
      const config = join(outdir, 'config.capnp'); // embed paths are relative to it
      writeFileSync(
        config,
        `using Workerd = import "/workerd/workerd.capnp";
      const config :Workerd.Config = (services = [(name = "main", worker = .worker)]);
      const worker :Workerd.Worker = (
        modules = [${modules.join(', ')}],
        compatibilityDate = "${date}",
        bindings = [(name = "EXPECTED", text = "wasm-simd ${expected}")],
      );\n`,
      );
      const workerd = join(root, 'node_modules', '.bin', 'workerd');
      const run = spawnSync(workerd, ['test', config, '--verbose'], { encoding: 'utf8', timeout: 60_000 });
      expect(run.stdout + run.stderr).toContain('digest ok');
      expect(run.stdout + run.stderr).toMatch(/\[ PASS \] main/);
      expect(run.status).toBe(0);
    },
    90_000,
  );

  it.each([
    ['blake3-kit', 'edge-light.js', 'blake3-kit-'],
    ['blake3-kit/bao', 'bao-edge-light.js', 'blake3-kit-'],
  ])(
    'the edge-light condition of %s imports its two .wasm files with the ?module suffix Vercel Edge compiles at deploy time',
    async (from, entry, prefix) => {
      // Only the resolution is checked here: no Vercel Edge runtime runs in this test.
      const imports: string[] = [];
      await bundle('edge.js', `import { init } from '${from}'; export default init;\n`, {
        platform: 'neutral',
        format: 'esm',
        conditions: ['edge-light', 'worker', 'browser'],
        plugins: [
          {
            name: 'record-wasm',
            setup(b) {
              b.onResolve({ filter: /\.wasm/ }, (args) => {
                imports.push(`${args.importer.slice(project.length)} -> ${args.path}`);
                return { path: args.path, external: true };
              });
            },
          },
        ],
      });
      expect(imports.sort()).toEqual([
        `/node_modules/blake3-kit/dist/${entry} -> ../wasm/${prefix}scalar.wasm?module`,
        `/node_modules/blake3-kit/dist/${entry} -> ../wasm/${prefix}simd.wasm?module`,
      ]);
    },
  );

  it('types blake3-kit/inline with the browser API only (no hashFile)', () => {
    writeFileSync(
      join(project, 'typed.ts'),
      `import * as inline from 'blake3-kit/inline';
      import { init, toHex, type Blake3Hasher } from 'blake3-kit/inline';
      const b3 = await init({ flavour: 'scalar' });
      const hasher: Blake3Hasher = b3.createHasher().update('abc');
      void toHex(hasher.digest());
      // @ts-expect-error: the inline entry has no file API
      void inline.hashFile;\n`,
    );
    // ESNext.Disposable until the shipped types stop needing it (issue 11).
    const options = {
      module: 'ESNext',
      moduleResolution: 'bundler',
      target: 'ES2022',
      strict: true,
      noEmit: true,
      types: [],
      lib: ['ES2022', 'DOM', 'ESNext.Disposable'],
    };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: ['typed.ts'] }));
    const run = spawnSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', project], { encoding: 'utf8' });
    expect(run.stdout + run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
