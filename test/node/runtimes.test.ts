// Bun and Deno rows of the consumer matrix: the tarballs as published,
// installed into a fresh project, run by the npm packages' own binaries with
// the fewest permissions that work (and blake3-kit/compat there and in
// workerd, from the same install). Every digest is checked against
// @noble/hashes, and which backend ran (and why) against what that runtime
// allows.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { compatExpected, compatProbe, consumerProject, packAll, root, runInWorkerd } from './packed.js';

const bin = (name: string) => join(root, 'node_modules', '.bin', name);

// What the probe prints: digests in all three modes, XOF at a position,
// a streamed hasher, 4 MiB through hashParallel, and who did the work.
const PROBE = `import * as b3 from 'blake3-kit';
import * as bao from 'blake3-kit/bao';
const api = await bao.init();
const input = (n) => Uint8Array.from({ length: n }, (_, i) => (i * 7) % 251);
const key = new Uint8Array(32).fill(9);
const hasher = api.createHasher();
for (let at = 0; at < 100_000; at += 777) hasher.update(input(100_000).subarray(at, at + 777));
const reader = api.createHasher({ context: 'runtime probe' }).update(input(5000)).xof();
reader.position = 1000;
b3.configureParallel({ workers: 2, threshold: 0, helpWhileStarting: false });
const parallel = b3.toHex(await b3.hashParallel(input(4 << 20)));
const { error, ...native } = b3.nativeStatus();
// The single-block probe runs on timers after init(): wait for its verdict.
for (let i = 0; i < 400 && b3.backendStatus().wasmBlocks?.how === 'probing'; i++) await new Promise((r) => setTimeout(r, 5));
console.log(JSON.stringify({
  status: b3.backendStatus(),
  backend: api.backend,
  hashes: [0, 1, 1024, 1025, 100_000].map((n) => b3.toHex(api.hash(input(n)))),
  keyed: b3.toHex(api.keyedHash(key, input(3000))),
  derived: b3.toHex(api.deriveKey('runtime probe', input(3000), { length: 64 })),
  xof: b3.toHex(reader.read(131)),
  streamed: b3.toHex(hasher.digest()),
  parallel,
  bao: b3.toHex(bao.baoEncode(input(100_000)).hash),
  many: b3.toHex(bao.hashMany([input(5000), input(64)])),
  workers: b3.parallelStatus(),
  native: { ...native, error: error?.message },
}));
b3.terminateWorkers();
`;

// blake3-kit/compat as blake3-wasm's users call it: synchronous, no init().
const COMPAT = `import { Buffer } from 'node:buffer';
import { hash, createHash, keyedHash, deriveKey } from 'blake3-kit/compat';
${compatProbe('Buffer.alloc(32, 7)')}
console.log(JSON.stringify(compat));
`;

const input = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7) % 251);
const context = new TextEncoder().encode('runtime probe');
const expected = {
  hashes: [0, 1, 1024, 1025, 100_000].map((n) => bytesToHex(blake3(input(n)))),
  keyed: bytesToHex(blake3(input(3000), { key: new Uint8Array(32).fill(9) })),
  derived: bytesToHex(blake3(input(3000), { context, dkLen: 64 })),
  xof: bytesToHex(blake3(input(5000), { context, dkLen: 1131 }).subarray(1000)),
  streamed: bytesToHex(blake3(input(100_000))),
  parallel: bytesToHex(blake3(input(4 << 20))),
  bao: bytesToHex(blake3(input(100_000))),
  many: bytesToHex(blake3(input(5000))) + bytesToHex(blake3(input(64))),
};

interface Report {
  backend: string;
  status: { backend: string; reason: string; wasmBlocks?: { blocks: string; chunks: string; messages: string; how: string } };
  workers: { started: number; jobs: number };
  native: { loaded: boolean; error?: string };
}

describe.runIf(inject('flavour') === 'simd')('Bun and Deno, from the tarballs as published', () => {
  let dir: string;
  let project: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'blake3-kit-runtimes-'));
    const packed = packAll(dir);
    const native = packed.platforms['linux-x64-gnu']?.tarball;
    project = consumerProject(dir, 'runtimes', native === undefined ? [packed.main] : [packed.main, native]);
    writeFileSync(join(project, 'probe.mjs'), PROBE);
    writeFileSync(join(project, 'compat.mjs'), COMPAT);
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function run(command: string, args: string[]): Report {
    // No BLAKE3_KIT_* variables: the runtime picks, as in a user's shell.
    const env = { ...process.env, BLAKE3_KIT_BACKEND: undefined, BLAKE3_KIT_NATIVE_PATH: undefined, NO_COLOR: '1' } as NodeJS.ProcessEnv;
    const result = spawnSync(bin(command), [...args, 'probe.mjs'], { cwd: project, encoding: 'utf8', env, timeout: 60_000 });
    expect(result.stderr).toBe('');
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject(expected);
    // Why this backend, and the single-block code measured on this engine.
    expect(report.status.backend).toBe(report.backend);
    expect(report.status.reason).toContain(report.backend.replace('native+', ''));
    expect(report.status.wasmBlocks).toMatchObject({ how: 'measured', blocks: expect.stringMatching(/^(rows|words)$/) });
    return report;
  }

  const onLinuxX64 = process.platform === 'linux' && process.arch === 'x64';

  it('Bun: loads the platform package through its napi, and hashes right', () => {
    const report = run('bun', []);
    // Four lanes with their message re-read in Bun's JavaScriptCore, on the
    // workers too (the parallel digest above ran there).
    expect(report.status.wasmBlocks).toMatchObject({ chunks: 'lanes', messages: 'reloaded' });
    if (onLinuxX64) expect(report).toMatchObject({ backend: 'native+wasm-simd', native: { loaded: true } });
  }, 90_000);

  it('Deno, allowed only to read the project: wasm on workers, and says why not native', () => {
    // No --allow-env (env reads are optional), no --allow-ffi, no -A.
    const report = run('deno', ['run', '--allow-read=.']);
    expect(report.backend).toBe('wasm-simd');
    expect(report.status.wasmBlocks).toMatchObject({ chunks: 'lanes', messages: 'live' });
    expect(report.workers.started).toBe(2);
    expect(report.workers.jobs).toBeGreaterThan(0);
    if (onLinuxX64) expect(report.native.error).toMatch(/--allow-ffi/);
  }, 90_000);

  it.runIf(onLinuxX64)(
    'Deno with --allow-ffi as well: the native addon',
    () => {
      expect(run('deno', ['run', '--allow-read=.', '--allow-ffi']).backend).toBe('native+wasm-simd');
    },
    90_000,
  );

  // Bun and Deno resolve the "node" condition: blake3-wasm's Node API, Buffers and all.
  it.each([
    ['bun', []],
    ['deno', ['run', '--allow-read=.']],
  ])(
    '%s: blake3-kit/compat hashes right, synchronously, with Buffers',
    (command, args) => {
      const env = { ...process.env, BLAKE3_KIT_BACKEND: undefined, BLAKE3_KIT_NATIVE_PATH: undefined, NO_COLOR: '1' } as NodeJS.ProcessEnv;
      const result = spawnSync(bin(command), [...args, 'compat.mjs'], { cwd: project, encoding: 'utf8', env, timeout: 60_000 });
      expect(result.stderr).toBe('');
      expect(JSON.parse(result.stdout)).toEqual({ ...compatExpected, buffer: true });
    },
    90_000,
  );

  // workerd resolves the "workerd" condition; no Buffer there without nodejs_compat.
  it('workerd: blake3-kit/compat hashes right, synchronously, bundled as wrangler does', async () => {
    const source = `import { hash, createHash, keyedHash, deriveKey } from 'blake3-kit/compat';
${compatProbe('new Uint8Array(32).fill(7)')}
export default { async test() { console.log('COMPAT ' + JSON.stringify(compat)); } };
`;
    const { output, status } = await runInWorkerd(project, 'compat-worker.js', source);
    expect(output).toMatch(/\[ PASS \] main/);
    expect(status).toBe(0);
    const printed = /COMPAT (\{.*\})/.exec(output)?.[1];
    expect(printed, output).toBeDefined();
    expect(JSON.parse(printed!)).toEqual({ ...compatExpected, buffer: false });
  }, 90_000);
});
