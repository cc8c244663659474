// The examples users copy, each run from the tarballs as published in a
// fresh project: the Deno script by Deno, the Cloudflare Worker by workerd
// (bundled as wrangler does), the Vite app built by Vite and used in
// Chromium. Every digest against @noble/hashes.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { build } from 'esbuild';
import { chromium } from 'playwright';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
// @ts-expect-error: a plain .mjs module without types
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../scripts/chromium.mjs';
import { consumerProject, type Packed, packAll, root } from './packed.js';

const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const example = (...path: string[]) => join(root, 'examples', ...path);
const content = (length: number) => Uint8Array.from({ length }, (_, i) => (i * 13 + 7) % 256);

describe.runIf(inject('flavour') === 'simd')('examples, from the tarballs as published', () => {
  let dir: string;
  let packed: Packed;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'blake3-kit-examples-'));
    packed = packAll(dir);
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('examples/deno/hash.mjs prints b3sum lines with only --allow-read', () => {
    const project = consumerProject(dir, 'deno', [packed.main]);
    copyFileSync(example('deno', 'hash.mjs'), join(project, 'hash.mjs'));
    const data = content(3_000_001);
    writeFileSync(join(project, 'data.bin'), data);
    const run = spawnSync(bin('deno'), ['run', '--allow-read=.', 'hash.mjs', 'data.bin'], {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(`${bytesToHex(blake3(data))}  data.bin\n`);
  }, 90_000);

  it('examples/cloudflare-worker answers with the hash of the body in workerd', async () => {
    const project = consumerProject(dir, 'worker', [packed.main]);
    mkdirSync(join(project, 'src'));
    copyFileSync(example('cloudflare-worker', 'src', 'index.js'), join(project, 'src', 'index.js'));
    // What wrangler does: bundle with the workerd condition, the .wasm files as modules.
    const out = join(project, 'out');
    await build({
      entryPoints: [join(project, 'src', 'index.js')],
      bundle: true,
      outdir: out,
      platform: 'neutral',
      format: 'esm',
      conditions: ['workerd', 'worker', 'browser'],
      loader: { '.wasm': 'copy' },
      logLevel: 'warning',
    });
    const files = ['index.js', ...readdirSync(out).filter((file) => file !== 'index.js')];
    const modules = files.map((file) => `(name = "${file}", ${file.endsWith('.wasm') ? 'wasm' : 'esModule'} = embed "${file}")`);
    const port = await freePort();
    writeFileSync(
      join(out, 'config.capnp'),
      `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const worker :Workerd.Worker = (modules = [${modules.join(', ')}], compatibilityDate = "2025-06-01");\n`,
    );
    const workerd = spawn(bin('workerd'), ['serve', join(out, 'config.capnp')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    workerd.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    try {
      const body = content(1_000_003);
      const answer = await retry(
        () => fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body }),
        () => stderr,
      );
      expect(answer.status).toBe(200);
      expect(await answer.text()).toBe(`${bytesToHex(blake3(body))}\n`);
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(405);
    } finally {
      workerd.kill();
    }
  }, 90_000);

  it('examples/vite-app, built by Vite, hashes a picked file on workers in Chromium', async () => {
    const project = consumerProject(dir, 'vite-app', [packed.main]);
    for (const file of ['index.html', 'main.js']) copyFileSync(example('vite-app', file), join(project, file));
    spawnSync(bin('vite'), ['build', '--logLevel', 'warn'], { cwd: project, stdio: 'inherit', timeout: 60_000 });
    const data = content(9 * 1024 * 1024 + 5);
    const picked = join(dir, 'picked.bin');
    writeFileSync(picked, data);
    const server = await serveStatic(join(project, 'dist'));
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
      await page.waitForFunction(() => crossOriginIsolated);
      await page.setInputFiles('#file', picked);
      await page.waitForFunction(() => document.getElementById('digest')!.textContent!.length === 64, undefined, { timeout: 60_000 });
      expect(await page.textContent('#digest')).toBe(bytesToHex(blake3(data)));
      const [, started, jobs] = /(\d+) workers hashed (\d+) pieces/.exec((await page.textContent('#status')) ?? '') ?? [];
      expect(Number(started)).toBeGreaterThan(0);
      expect(Number(jobs)).toBeGreaterThan(0);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      server.close();
    }
  }, 120_000);
});

async function retry(request: () => Promise<Response>, log: () => string): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await request();
    } catch (error) {
      if (attempt === 100) throw new Error(`workerd did not answer: ${log()}`, { cause: error });
      await new Promise((done) => setTimeout(done, 100));
    }
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

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };

/** `site` on 127.0.0.1, cross-origin isolated. */
function serveStatic(site: string): Promise<Server> {
  const server = createServer((request, response) => {
    const name = normalize(new URL(request.url ?? '/', 'http://x').pathname).slice(1) || 'index.html';
    try {
      const body = readFileSync(join(site, name));
      response.writeHead(200, {
        'Content-Type': TYPES[extname(name)] ?? 'application/octet-stream',
        'Cross-Origin-Opener-Policy': 'same-origin',
        'Cross-Origin-Embedder-Policy': 'require-corp',
      });
      response.end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}
