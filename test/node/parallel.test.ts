import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parallelSuite } from '../shared/parallel-cases.js';
import { flavour, pattern } from '../shared/setup.js';

// The built package: workers run dist/worker-node.js.
// In Node both entries load the same module: the bao entry has every case.
const lib = await import('../../dist/bao-node.js');
await lib.init({ backend: `wasm-${flavour}` });
parallelSuite(lib as never, {
  cases: 'all',
  dyingWorker: new URL('./workers/dying-worker.mjs', import.meta.url),
  brokenWorker: new URL('./workers/broken-worker.mjs', import.meta.url),
  shared: true,
});

const dir = mkdtempSync(join(tmpdir(), 'blake3-kit-parallel-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const entry = JSON.stringify(fileURLToPath(new URL('../../dist/node.js', import.meta.url)));

/** Runs `code` (an ES module) in a child Node from a file: workers inherit
 * the parent's execArgv, and with `--input-type` (for -e) they fail to start. */
function runModule(code: string, timeout: number) {
  const script = join(dir, `child-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(script, code);
  return spawnSync(process.execPath, [script], { encoding: 'utf8', timeout });
}

it('never keeps the process alive once hashing is done, with or without help from this thread', () => {
  for (const help of [false, true]) {
    // With help, workers may still be starting when the last piece is done here.
    const code = `const b3 = await import(${entry}); await b3.init();
      b3.configureParallel({ threshold: 0, helpWhileStarting: ${help} }); const d = await b3.hashParallel(new Uint8Array(4 << 20));
      const { jobs, whileStarting } = b3.parallelStatus();
      console.log(b3.toHex(d).length, jobs > 0 || ${help}, whileStarting > 0 === ${help});`;
    const started = performance.now();
    expect(runModule(code, 20_000).stdout.trim(), `help ${help}`).toBe('64 true true');
    expect(performance.now() - started).toBeLessThan(10_000);
  }
});

describe('worker replies are checked', () => {
  const badWorker = new URL('./workers/bad-reply-worker.mjs', import.meta.url);
  const bytes = pattern(12 * 64 * 1024 + 1, 3);
  it.each(['short cv', 'no cv', 'string cv', 'wrong job id', 'piece kept', 'unknown type', 'not an object'])(
    'a reply with %s rejects the call clearly, and later calls hash on this thread',
    async (kind) => {
      process.env.BLAKE3_KIT_TEST_REPLY = kind;
      try {
        lib.configureParallel({ workers: 2, threshold: 0, pieceLength: 64 * 1024, workerUrl: badWorker, transport: 'transfer' });
        await expect(lib.hashParallel(bytes)).rejects.toThrow(
          /^blake3-kit: a worker sent a malformed reply \(.+\); hashing on this thread from now on$/,
        );
        expect(lib.parallelStatus().broken).toMatch(/malformed reply/);
        expect(lib.toHex(await lib.hashParallel(bytes))).toBe(lib.toHex(lib.hash(bytes)));
      } finally {
        delete process.env.BLAKE3_KIT_TEST_REPLY;
        lib.configureParallel({ workerUrl: undefined, pieceLength: 0, threshold: 4 << 20 });
      }
    },
    10_000, // well under the 30 s after which a silent worker counts as lost
  );
});

// Each of these failed a call while a read started ahead was still pending,
// whose own failure then ended the process (exit 1) although the caller
// awaited in try/catch. Children, several rounds each, with a deadline.
describe('no read ahead escapes as an unhandled rejection', () => {
  const child = (setup: string, body: string) =>
    runModule(
      `import * as fs from 'node:fs'; const b3 = await import(${entry}); await b3.init({ backend: 'wasm' });
      b3.configureParallel({ helpWhileStarting: false }); ${setup}
      const path = ${JSON.stringify(join(dir, 'f'))}; const seen = [];
      for (let round = 0; round < 5; round++) { fs.writeFileSync(path, Buffer.alloc(48 << 20, round)); let cut = false; ${body} }
      await new Promise((r) => setTimeout(r, 300)); console.log(seen.join(' '), b3.parallelStatus().jobs > 0);`,
      60_000,
    );

  it('hashFile on a large file truncated while its pieces are read by workers', () => {
    // Small pieces: many reads ahead, each likely to meet the cut.
    const result = child(
      'b3.configureParallel({ pieceLength: 1 << 18 });',
      `try {
        await b3.hashFile(path, { onProgress: () => cut || ((cut = true), fs.truncateSync(path, (5 << 20) + 100)) });
        seen.push('resolved');
      } catch (e) { seen.push(e.code + ':' + e.read); }`,
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(
      `${Array(5)
        .fill(`ERR_FILE_TRUNCATED:${(5 << 20) + 100}`)
        .join(' ')} true`,
    );
  });

  it('hashBlob on a file-backed Blob whose file changed', () => {
    const result = child(
      'b3.configureParallel({ pieceLength: 1 << 20 });',
      `const blob = await fs.openAsBlob(path);
      try {
        await b3.hashBlob(blob, { onProgress: () => cut || ((cut = true), fs.writeFileSync(path, 'changed')) });
        seen.push('resolved');
      } catch (e) { seen.push(e.name); }`,
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(`${Array(5).fill('NotReadableError').join(' ')} true`);
  });
});
