// The parallel suite, run in Node (worker_threads) and Chromium (Web Workers)
// against the built package: parallel output must equal serial output.
import { blake3 as noble } from '@noble/hashes/blake3.js';
import { describe, expect, it } from 'vitest';
import { KEY, pattern, random, seed } from './setup.js';

type Lib = typeof import('../../src/node.js');
interface Env {
  /** A worker script that dies (exits, or closes itself) on its 3rd job. */
  dyingWorker: URL;
  /** A worker script that throws while loading. */
  brokenWorker: URL;
  /** Whether posted pieces are shared (SharedArrayBuffer) rather than moved. */
  shared: boolean;
}

const PIECE = 64 * 1024;
const CHUNK = 1024;

export function parallelSuite(lib: Lib, env: Env) {
  const { hashParallel, hashBlob, hashStream, configureParallel, parallelStatus, terminateWorkers, toHex, hash } = lib;
  const reset = (extra = {}) => configureParallel({ workers: 2, threshold: 0, pieceLength: PIECE, jobTimeout: 30_000, workerUrl: undefined, ...extra });

  describe(`parallel hashing (seed ${seed}, ${env.shared ? 'shared' : 'transferred'} pieces)`, () => {
    it('equals serial hashing at every piece-boundary length (piece ± chunk ± 1 byte)', async () => {
      reset();
      const input = pattern(5 * PIECE + 2 * CHUNK, 1);
      for (let k = 1; k <= 4; k++) {
        for (const delta of [-CHUNK - 1, -CHUNK, -CHUNK + 1, -1, 0, 1, CHUNK - 1, CHUNK, CHUNK + 1]) {
          const bytes = input.subarray(0, k * PIECE + delta);
          expect(toHex(await hashParallel(bytes)), `length ${bytes.length}`).toBe(toHex(hash(bytes)));
        }
      }
    });

    it('equals serial hashing in every mode, with extended output, for random lengths', async () => {
      reset({ pieceLength: 0 });
      const rng = random(seed);
      const lengths = [3 * 1024 * 1024 + 5, 16 * 1024 * 1024 + 1, ...Array.from({ length: 3 }, () => rng.int(64 * 1024 * 1024))];
      for (const length of lengths) {
        const bytes = pattern(length, length % 13);
        const ctx = new TextEncoder().encode('parallel ctx');
        expect(toHex(await hashParallel(bytes)), `length ${length}`).toBe(toHex(hash(bytes)));
        expect(toHex(await hashParallel(bytes, { key: KEY, length: 100 }))).toBe(toHex(noble(bytes, { key: KEY, dkLen: 100 })));
        expect(toHex(await hashParallel(bytes, { context: 'parallel ctx', length: 70_000 }))).toBe(toHex(hash(bytes, { context: 'parallel ctx', length: 70_000 })));
        if (length < 4 * 1024 * 1024) expect(toHex(await hashParallel(bytes, { context: 'parallel ctx' }))).toBe(toHex(noble(bytes, { context: ctx })));
      }
    }, 300_000);

    it('hashes SharedArrayBuffer-backed input without copying, where it exists', async () => {
      if (typeof SharedArrayBuffer === 'undefined' || !env.shared) return;
      reset();
      const shared = new Uint8Array(new SharedArrayBuffer(PIECE * 3 + 17));
      shared.set(pattern(shared.length, 4));
      expect(toHex(await hashParallel(shared))).toBe(toHex(hash(pattern(shared.length, 4))));
    });

    it('reports progress up to the total exactly once, and leaves the input untouched', async () => {
      reset();
      const bytes = pattern(7 * PIECE + 3, 2);
      const copy = bytes.slice();
      const seen: number[] = [];
      await hashParallel(bytes, { onProgress: (done, total) => (expect(total).toBe(bytes.length), seen.push(done)) });
      expect(seen.filter((d) => d === bytes.length)).toHaveLength(1);
      expect(seen.at(-1)).toBe(bytes.length);
      expect(bytes).toEqual(copy);
    });

    it('hashes Blobs in slices', async () => {
      reset();
      const bytes = pattern(9 * PIECE + 999, 5);
      const blob = new Blob([bytes.subarray(0, 100), bytes.subarray(100)]);
      let last = 0;
      expect(toHex(await hashBlob(blob, { onProgress: (done) => (last = done) }))).toBe(toHex(hash(bytes)));
      expect(last).toBe(bytes.length);
      expect(toHex(await hashBlob(new Blob([bytes.subarray(0, 10)])))).toBe(toHex(hash(bytes.subarray(0, 10))));
      expect(toHex(await hashBlob(blob, { key: KEY, length: 40 }))).toBe(toHex(hash(bytes, { key: KEY, length: 40 })));
    });

    it('hashes streams of odd-sized chunks in fixed pieces, tiny streams as the root', async () => {
      reset();
      const bytes = pattern(6 * PIECE + 5, 6);
      const streamOf = (data: Uint8Array, step: number) =>
        new ReadableStream<Uint8Array>({
          start(controller) {
            for (let i = 0; i < data.length; i += step) controller.enqueue(data.slice(i, i + step));
            controller.close();
          },
        });
      expect(toHex(await hashStream(streamOf(bytes, 7777)))).toBe(toHex(hash(bytes)));
      expect(toHex(await hashStream(streamOf(bytes.subarray(0, PIECE * 2), PIECE)))).toBe(toHex(hash(bytes.subarray(0, PIECE * 2))));
      for (const size of [0, 1, PIECE - 1, PIECE, PIECE + 1]) {
        expect(toHex(await hashStream(streamOf(bytes.subarray(0, size), 1000))), `size ${size}`).toBe(toHex(hash(bytes.subarray(0, size))));
      }
      async function* strings() {
        yield 'żółć';
        yield 'x'.repeat(PIECE * 2);
      }
      expect(toHex(await hashStream(strings(), { context: 'c' }))).toBe(toHex(hash('żółć' + 'x'.repeat(PIECE * 2), { context: 'c' })));
    });

    it('stops on abort, and the pool works afterwards', async () => {
      reset();
      const bytes = pattern(40 * PIECE, 7);
      const controller = new AbortController();
      const run = hashParallel(bytes, { signal: controller.signal, onProgress: (done) => done >= 4 * PIECE && controller.abort(new Error('stop')) });
      await expect(run).rejects.toThrow('stop');
      expect(parallelStatus().jobs).toBeGreaterThan(0); // workers, not the fallback, did the work
      await expect(hashParallel(bytes, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
      let pulled = 0;
      const endless = new ReadableStream<Uint8Array>({ pull: (c) => void (pulled++, c.enqueue(new Uint8Array(PIECE))) });
      const streamController = new AbortController();
      const streaming = hashStream(endless, { signal: streamController.signal, onProgress: (done) => done >= 8 * PIECE && streamController.abort() });
      await expect(streaming).rejects.toMatchObject({ name: 'AbortError' });
      const pulledAtAbort = pulled;
      await new Promise((r) => setTimeout(r, 50));
      expect(pulled - pulledAtAbort).toBeLessThanOrEqual(1); // reading stopped
      expect(toHex(await hashParallel(bytes))).toBe(toHex(hash(bytes)));
    });

    it('finishes a job on the calling thread when its worker dies, and replaces the worker', async () => {
      reset({ workerUrl: env.dyingWorker, jobTimeout: 2000 });
      const bytes = pattern(12 * PIECE + 1, 8);
      expect(toHex(await hashParallel(bytes))).toBe(toHex(hash(bytes)));
      expect(toHex(await hashParallel(bytes, { key: KEY }))).toBe(toHex(hash(bytes, { key: KEY })));
      const status = parallelStatus();
      expect(status.broken).toBeUndefined();
      expect(status.lost).toBeGreaterThanOrEqual(1); // it really died...
      expect(status.fallbacks).toBeGreaterThanOrEqual(1); // ...mid-job
      expect(status.started).toBeGreaterThan(2); // and was replaced
      expect(status.jobs).toBeGreaterThan(4);
      reset();
      expect(toHex(await hashParallel(bytes))).toBe(toHex(hash(bytes)));
    }, 60_000);

    it('falls back to the calling thread when the worker script fails to load', async () => {
      reset({ workerUrl: env.brokenWorker });
      const bytes = pattern(5 * PIECE + 1, 9);
      expect(toHex(await hashParallel(bytes))).toBe(toHex(hash(bytes)));
      expect(parallelStatus().broken).toMatch(/workers keep failing to start/);
      expect(parallelStatus().jobs).toBe(0);
      expect(toHex(await hashParallel(bytes))).toBe(toHex(hash(bytes)));
      reset();
      expect(toHex(await hashParallel(bytes))).toBe(toHex(hash(bytes)));
      expect(parallelStatus()).toMatchObject({ broken: undefined, lost: 0 });
      expect(parallelStatus().jobs).toBeGreaterThan(0);
    });

    it('stays on the calling thread below the threshold, and validates its arguments', async () => {
      configureParallel({ threshold: 1 << 20, pieceLength: 0, workerUrl: env.brokenWorker });
      // A broken worker URL is never touched below the threshold.
      expect(toHex(await hashParallel(pattern(1 << 20)))).toBe(toHex(hash(pattern(1 << 20))));
      await expect(hashParallel(42 as never)).rejects.toBeInstanceOf(TypeError);
      await expect(hashParallel(new Uint8Array(1), { length: -1 })).rejects.toBeInstanceOf(RangeError);
      await expect(hashBlob('x' as never)).rejects.toBeInstanceOf(TypeError);
      await expect(hashStream(null as never)).rejects.toBeInstanceOf(TypeError);
      expect(() => configureParallel({ pieceLength: 3000 })).toThrow(RangeError);
      expect(() => configureParallel({ workers: -1 })).toThrow(RangeError);
      expect(() => configureParallel({ workers: 5000 })).toThrow(/^blake3-kit: options\.workers must be from 1 to 1024, or 0 for one per core; got 5000$/);
      expect(() => configureParallel({ workers: 5000 })).toThrow(RangeError);
      expect(() => configureParallel({ workerUrl: 42 as never })).toThrow(TypeError);
      expect(() => configureParallel({ workerUrl: 42 as never })).toThrow(/options\.workerUrl/);
      expect(() => configureParallel({ threshold: '1' as never })).toThrow(/options\.threshold must be a number; got string/);
      reset();
    });

    it('lets calls in flight finish when settings change or the workers are terminated', async () => {
      reset();
      const bytes = pattern(24 * PIECE + 5, 10);
      const expected = toHex(hash(bytes));
      const started = parallelStatus().started;
      const before = hashParallel(bytes);
      configureParallel({ threshold: 1 }); // a new pool for later calls
      const during = hashParallel(bytes);
      terminateWorkers();
      const after = hashParallel(bytes);
      expect((await Promise.all([before, during, after])).map(toHex)).toEqual([expected, expected, expected]);
      expect(parallelStatus().started).toBeGreaterThan(started); // the last call started its own pool
      terminateWorkers();
      expect(parallelStatus().workers).toBe(0);
    });

    it('rejects an input detached or shrunk during the call, never hashing what is left', async () => {
      reset();
      const length = 24 * PIECE;
      const resizable = new ArrayBuffer(length, { maxByteLength: length });
      new Uint8Array(resizable).set(pattern(length, 11));
      let shrunk = false;
      const shrinking = hashParallel(new Uint8Array(resizable), { onProgress: () => shrunk || ((shrunk = true), resizable.resize(PIECE)) });
      await expect(shrinking).rejects.toThrow(/input was detached or shrunk while it was being hashed/);
      await expect(hashParallel(new Uint8Array(resizable))).resolves.toEqual(hash(pattern(PIECE, 11)));

      const plain = pattern(length, 12);
      let moved = false;
      const detaching = hashParallel(plain, { onProgress: () => moved || ((moved = true), structuredClone(plain.buffer, { transfer: [plain.buffer] })) });
      await expect(detaching).rejects.toThrow(/input was detached or shrunk/);
      expect(toHex(await hashParallel(pattern(length, 12)))).toBe(toHex(hash(pattern(length, 12))));
    });
  });
}
