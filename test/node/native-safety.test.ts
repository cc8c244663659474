// What a caller's JS can do to memory the native addon is hashing on another
// thread, and the addon's own memory: each case runs in a fresh Node (a
// crash must show as an exit code, not take the suite down) with a deadline.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { NativeHasher, hash, hashParallel, nativeStatus } from 'blake3-kit';
import { describe, expect, it } from 'vitest';
import { load, pattern } from '../shared/setup.js';

await load(); // node-auto: the addon above the routing threshold

const entry = fileURLToPath(new URL('../../dist/node.js', import.meta.url));
const MiB = 1 << 20;

/**
 * Runs `code` (an ES module body with `b3` = the built package on the native
 * backend, `big(n)` = a resizable ArrayBuffer of n patterned bytes, and
 * `busyPool()` = libuv's threads kept busy) in a fresh Node; returns its
 * status and output.
 */
function child(code: string, timeout = 60_000) {
  const script = `
    const b3 = await import(${JSON.stringify(entry)});
    await b3.init();
    const big = (n) => {
      const buffer = new ArrayBuffer(n, { maxByteLength: n });
      const bytes = new Uint8Array(buffer);
      for (let i = 0; i < n; i += 4096) bytes[i] = i / 4096;
      return buffer;
    };
    const { pbkdf2 } = await import('node:crypto');
    const busyPool = () => { for (let i = 0; i < 8; i++) pbkdf2('x', 'y', 200000, 32, 'sha256', () => {}); };
    const expectFailure = async (promise, pattern) => {
      try { await promise; } catch (error) {
        if (pattern.test(error.message)) return 'rejected';
        throw error;
      }
      return 'resolved';
    };
    ${code}`;
  const env = { ...process.env, BLAKE3_KIT_BACKEND: 'native', BLAKE3_KIT_NATIVE_PATH: undefined };
  return spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8', env, timeout });
}

function expectClean(result: ReturnType<typeof child>) {
  expect({ signal: result.signal, status: result.status, stderr: result.stderr }).toEqual({ signal: null, status: 0, stderr: '' });
}

describe('async native hashing never reads memory the caller can free', () => {
  it('a resizable buffer shrunk to 0 during hashParallel: a clear rejection, no crash', () => {
    const result = child(`
      for (let round = 0; round < 6; round++) {
        const buffer = big(64 << 20);
        busyPool();
        const pending = b3.hashParallel(new Uint8Array(buffer));
        buffer.resize(0);
        console.log(await expectFailure(pending, /detached or shrunk/));
      }`);
    expectClean(result);
    expect(result.stdout.trim().split('\n')).toEqual(Array(6).fill('rejected'));
  });

  it('a buffer transferred away and collected during hashParallel: a clear rejection, no crash', () => {
    const result = child(`
      for (let round = 0; round < 6; round++) {
        let buffer = big(64 << 20);
        busyPool();
        const pending = b3.hashParallel(new Uint8Array(buffer));
        structuredClone(buffer, { transfer: [buffer] });
        buffer = undefined;
        gc();
        console.log(await expectFailure(pending, /detached or shrunk/));
      }`);
    expectClean(result);
    expect(result.stdout.trim().split('\n')).toEqual(Array(6).fill('rejected'));
  });

  it('a buffer posted to a worker that exits during hashParallel: a clear rejection, no crash', () => {
    const result = child(`
      const { Worker } = await import('node:worker_threads');
      for (let round = 0; round < 8; round++) {
        const buffer = big(64 << 20);
        busyPool();
        // Handled from the start: it may reject before the worker exits.
        const outcome = expectFailure(b3.hashParallel(new Uint8Array(buffer)), /detached or shrunk/);
        const worker = new Worker('process.exit(0)', { eval: true });
        worker.postMessage(buffer, [buffer]);
        await new Promise((resolve) => worker.once('exit', resolve));
        gc();
        console.log(await outcome);
      }`);
    expectClean(result);
    expect(result.stdout.trim().split('\n')).toEqual(Array(8).fill('rejected'));
  });

  it('NativeHasher.updateAsync hashes the bytes as they were at the call when one piece is shrunk away', () => {
    // One piece (<= 16 MiB) is copied before updateAsync returns.
    const result = child(`
      const buffer = big(8 << 20);
      const expected = b3.toHex(b3.hash(new Uint8Array(buffer).slice()));
      for (let round = 0; round < 6; round++) {
        const copy = buffer.slice(0);
        const resizable = new ArrayBuffer(copy.byteLength, { maxByteLength: copy.byteLength });
        new Uint8Array(resizable).set(new Uint8Array(copy));
        const hasher = new b3.NativeHasher();
        busyPool();
        const pending = hasher.updateAsync(new Uint8Array(resizable));
        resizable.resize(0);
        await pending;
        console.log(b3.toHex(hasher.digest()) === expected ? 'same' : 'different');
      }`);
    expectClean(result);
    expect(result.stdout.trim().split('\n')).toEqual(Array(6).fill('same'));
  });
});

describe('shared memory is hashed in place', () => {
  it('a SharedArrayBuffer input gives the digest of its bytes, also when it grows meanwhile', async () => {
    const shared = new SharedArrayBuffer(40 * MiB, { maxByteLength: 80 * MiB });
    const view = new Uint8Array(shared);
    view.set(pattern(40 * MiB));
    const expected = hash(view.slice());
    const pending = hashParallel(view.subarray(0, 40 * MiB));
    shared.grow(80 * MiB);
    expect(await pending).toEqual(expected);
  });
});

describe('a failed async update loses nothing', () => {
  it('a shrink after the first piece leaves the hasher as it was', async () => {
    const buffer = new ArrayBuffer(40 * MiB, { maxByteLength: 40 * MiB });
    new Uint8Array(buffer).set(pattern(40 * MiB));
    const hasher = new NativeHasher().update(pattern(100_000));
    const pending = hasher.updateAsync(new Uint8Array(buffer));
    buffer.resize(1);
    await expect(pending).rejects.toThrow(/input was detached or shrunk/);
    expect(hasher.update('tail').digest()).toEqual(new NativeHasher().update(pattern(100_000)).update('tail').digest());
  });

  it('bad arguments reject with errors naming them, never throw', async () => {
    const hasher = new NativeHasher();
    await expect(hasher.updateAsync(42 as never)).rejects.toThrow(TypeError);
    await expect(hasher.updateAsync(new Uint8Array(4), {} as never)).rejects.toThrow(/signal must be an AbortSignal/);
    await expect(hasher.updateFromFd('3' as never, 0, 10, false)).rejects.toThrow(/fd must be a number/);
    await expect(hasher.updateFromFd(-1, 0, 10, false)).rejects.toThrow(RangeError);
    await expect(hasher.updateFromFd(0, 0.5, 10, false)).rejects.toThrow(/offset/);
    await expect(hasher.updateFromFd(0, 0, 10, 'no' as never)).rejects.toThrow(/mmap must be a boolean/);
    expect(hasher.update('still usable').digest()).toEqual(new NativeHasher().update('still usable').digest());
  });
});

describe('mapped files and SIGBUS', () => {
  it('a SIGBUS listener added while a mapped hashFile runs, then a truncation: a settled promise, no hang', () => {
    // Node installs its own SIGBUS handler for the listener; without the
    // addon taking the front again, the truncated page faults for ever.
    const result = child(
      `
      const { mkdtempSync, writeFileSync, appendFileSync, truncateSync, rmSync } = await import('node:fs');
      const { join } = await import('node:path');
      const { tmpdir } = await import('node:os');
      const dir = mkdtempSync(join(tmpdir(), 'blake3-kit-sigbus-'));
      const path = join(dir, 'shrinking');
      const block = new Uint8Array(32 << 20).fill(7);
      const outcomes = [];
      for (let run = 0; run < 6; run++) {
        writeFileSync(path, block);
        for (let i = 0; i < 3; i++) appendFileSync(path, block); // 128 MiB
        const started = performance.now();
        await b3.hashFile(path, { mmap: false });
        const took = performance.now() - started;
        const listener = () => {};
        const hashing = b3.hashFile(path); // mapped, one task
        // The next run waits for this truncation: on a loaded machine the
        // mapped hash can finish first, and a late truncation would then
        // cut the next run's file under its unmapped reference hash.
        const truncated = new Promise((resolve) => setTimeout(() => {
          process.on('SIGBUS', listener);
          truncateSync(path, run % 2 ? 0 : 5 << 20);
          resolve();
        }, (run / 12) * took));
        try { await hashing; outcomes.push('digest'); }
        catch (e) { outcomes.push(e.code); }
        await truncated;
        process.off('SIGBUS', listener);
      }
      rmSync(dir, { recursive: true });
      console.log(outcomes.join(' '));`,
      120_000,
    );
    expectClean(result);
    for (const outcome of result.stdout.trim().split(' ')) expect(['digest', 'ERR_FILE_TRUNCATED']).toContain(outcome);
  });
});

describe('native memory', () => {
  it('dispose() frees native state at once: RSS stays bounded over 2x10^5 hashers', () => {
    // Without a free, ~2 KiB per hasher waits for a GC that JS heap
    // pressure alone schedules (10^6 rounds reached 2.2 GB).
    const result = child(`
      const input = new Uint8Array(20_000);
      const before = process.memoryUsage().rss;
      for (let i = 0; i < 200_000; i++) {
        const h = b3.createHasher();
        h.update(input);
        h.digest();
        h.dispose();
      }
      console.log(Math.round((process.memoryUsage().rss - before) / 1048576));`);
    expectClean(result);
    expect(Number(result.stdout.trim())).toBeLessThan(150);
  });

  it('the addon is the backend under test', () => {
    expect(nativeStatus().loaded).toBe(true);
  });
});
