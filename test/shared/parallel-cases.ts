// The worker pool's suite, run in Node (worker_threads) and Chromium (Web
// Workers) against the built package: the async contract (async-contract.ts)
// with each way pieces reach workers, then what only workers have: piece
// lengths by input size, dying and broken workers, settings and transports.
import { blake3 as noble } from '@noble/hashes/blake3.js';
import { describe, expect, it } from 'vitest';
import { asyncContract } from './async-contract.js';
import { KEY, pattern, random, seed } from './setup.js';

// The bao entries' types (everything); a hashing entry runs the hashing cases.
type Lib = typeof import('../../src/entries/bao-node.js') | typeof import('../../src/entries/bao-browser.js');
interface Env {
  /** A worker script that dies (exits, or closes itself) on its 3rd job. */
  dyingWorker: URL;
  /** A worker script that throws while loading. */
  brokenWorker: URL;
  /** Whether SharedArrayBuffers can be posted to workers here. */
  shared: boolean;
  /** Which cases: hashing (a 'blake3-kit' lib), Bao encoding, or both. */
  cases: 'all' | 'hashing' | 'bao';
}

const PIECE = 64 * 1024;

export function parallelSuite(lib: Lib, env: Env) {
  const { hashParallel, hashBlob, hashStream, configureParallel, parallelStatus, terminateWorkers, toHex, hash } = lib;
  const hashing = env.cases !== 'bao';
  const bao = env.cases !== 'hashing';
  const itHashing = it.runIf(hashing);
  const itBao = it.runIf(bao);
  // Every piece to the workers (no help from this thread while they start),
  // so that what is tested here is what workers do; the help has its test.
  const reset = (extra = {}) =>
    configureParallel({
      workers: 2,
      threshold: 0,
      pieceLength: PIECE,
      jobTimeout: 30_000,
      workerUrl: undefined,
      transport: 'transfer',
      helpWhileStarting: false,
      ...extra,
    });

  // Every input on workers, in pieces small enough to make several.
  for (const transport of !hashing ? [] : env.shared ? (['transfer', 'shared'] as const) : (['transfer'] as const)) {
    asyncContract({
      name: `the worker pool (${transport} pieces)`,
      lib,
      piece: PIECE,
      copiedAhead: 2 * 2, // two workers, two pieces each (tree.ts PIECES_PER_WORKER)
      reset: () => reset({ transport }),
      ranOffThread: () => parallelStatus().jobs > 0,
    });
  }

  describe(`the worker pool (seed ${seed})`, () => {
    itHashing(
      'equals serial hashing with pieces sized by the input (pieceLength 0), in every mode, for random lengths',
      async () => {
        reset({ pieceLength: 0 });
        const rng = random(seed);
        const lengths = [3 * 1024 * 1024 + 5, 16 * 1024 * 1024 + 1, ...Array.from({ length: 3 }, () => rng.int(64 * 1024 * 1024))];
        for (const length of lengths) {
          const bytes = pattern(length, length % 13);
          const ctx = new TextEncoder().encode('parallel ctx');
          expect(toHex(await hashParallel(bytes)), `length ${length}`).toBe(toHex(hash(bytes)));
          expect(toHex(await hashParallel(bytes, { key: KEY, length: 100 }))).toBe(toHex(noble(bytes, { key: KEY, dkLen: 100 })));
          expect(toHex(await hashParallel(bytes, { context: 'parallel ctx', length: 70_000 }))).toBe(
            toHex(hash(bytes, { context: 'parallel ctx', length: 70_000 })),
          );
          if (length < 4 * 1024 * 1024)
            expect(toHex(await hashParallel(bytes, { context: 'parallel ctx' }))).toBe(toHex(noble(bytes, { context: ctx })));
        }
        // Blobs take the same sizes; streams, of unknown length, 1 MiB pieces.
        const bytes = pattern(lengths[0]!, 3) as Uint8Array<ArrayBuffer>;
        expect(toHex(await hashBlob(new Blob([bytes])))).toBe(toHex(hash(bytes)));
        async function* chunks() {
          for (let i = 0; i < bytes.length; i += 100_000) yield bytes.subarray(i, i + 100_000);
        }
        expect(toHex(await hashStream(chunks()))).toBe(toHex(hash(bytes)));
        expect(parallelStatus().jobs).toBeGreaterThan(0);
      },
      300_000,
    );

    itBao('Bao-encodes on the workers exactly as baoEncode does, with progress, and stops on abort', async () => {
      const { baoEncode, baoEncodeParallel } = lib;
      reset();
      const rng = random(seed + 1);
      const before = parallelStatus().jobs;
      for (const length of [PIECE + 1, 5 * PIECE, 7 * PIECE + 1023, rng.int(40 * PIECE)]) {
        const bytes = pattern(length, 5);
        for (const outboard of [false, true]) {
          const seen: number[] = [];
          const ours = await baoEncodeParallel(bytes, { outboard, onProgress: (done) => seen.push(done) });
          const theirs = baoEncode(bytes, { outboard });
          expect(toHex(ours.hash), `length ${length}`).toBe(toHex(theirs.hash));
          expect(toHex(hash(ours.encoding)), `length ${length} outboard ${outboard}`).toBe(toHex(hash(theirs.encoding)));
          expect(seen.at(-1)).toBe(length);
        }
      }
      expect(parallelStatus().jobs).toBeGreaterThan(before);
      // A Blob: its outboard from chunk values the workers compute, its
      // combined encoding read first; small ones as a stream, here.
      for (const length of [5 * PIECE + 7, 3 * PIECE, 1000, 0]) {
        const bytes = pattern(length, 6) as Uint8Array<ArrayBuffer>;
        for (const outboard of [true, false]) {
          const seen: number[] = [];
          const jobs = parallelStatus().jobs;
          const ours = await baoEncodeParallel(new Blob([bytes]), { outboard, onProgress: (done) => seen.push(done) });
          const theirs = baoEncode(bytes, { outboard });
          expect(toHex(ours.hash), `Blob of ${length}`).toBe(toHex(theirs.hash));
          expect(toHex(hash(ours.encoding)), `Blob of ${length}, outboard ${outboard}`).toBe(toHex(hash(theirs.encoding)));
          if (length > PIECE) {
            if (length > PIECE) expect(parallelStatus().jobs, `Blob of ${length} on the workers`).toBeGreaterThan(jobs);
            expect(seen.at(-1)).toBe(length);
          }
        }
      }
      const stopBlob = new AbortController();
      const blobRun = baoEncodeParallel(new Blob([pattern(40 * PIECE) as Uint8Array<ArrayBuffer>]), {
        outboard: true,
        signal: stopBlob.signal,
        onProgress: () => stopBlob.abort(new Error('enough of the Blob')),
      });
      await expect(blobRun).rejects.toThrow('enough of the Blob');
      // A stream: pieces cut as hashStream cuts them (1 MiB; one piece stays
      // here), in odd-sized reads, strings too.
      const streamOf = (bytes: Uint8Array, read: number) =>
        new ReadableStream<Uint8Array>({
          start(controller) {
            for (let at = 0; at < bytes.length; at += read) controller.enqueue(bytes.slice(at, at + read));
            controller.close();
          },
        });
      for (const length of [3 * 1024 * 1024 + 5, 70_000, 0]) {
        const bytes = pattern(length, 7);
        for (const outboard of [true, false]) {
          const jobs = parallelStatus().jobs;
          const ours = await baoEncodeParallel(streamOf(bytes, 100_003), { outboard });
          const theirs = baoEncode(bytes, { outboard });
          expect(toHex(hash(ours.encoding)), `stream of ${length}, outboard ${outboard}`).toBe(toHex(hash(theirs.encoding)));
          expect(toHex(ours.hash)).toBe(toHex(theirs.hash));
          if (length > 1024 * 1024) expect(parallelStatus().jobs, `stream of ${length} on the workers`).toBeGreaterThan(jobs);
        }
      }
      async function* words() {
        for (let i = 0; i < 200_000; i++) yield `word ${i} `;
      }
      const text = new TextEncoder().encode(Array.from({ length: 200_000 }, (_, i) => `word ${i} `).join(''));
      expect(toHex(hash((await baoEncodeParallel(words(), { outboard: true })).encoding))).toBe(
        toHex(hash(baoEncode(text, { outboard: true }).encoding)),
      );
      const stopStream = new AbortController();
      const streamRun = baoEncodeParallel(streamOf(pattern(8 * 1024 * 1024), 1 << 20), {
        outboard: true,
        signal: stopStream.signal,
        onProgress: () => stopStream.abort(new Error('enough of the stream')),
      });
      await expect(streamRun).rejects.toThrow('enough of the stream');
      // Small inputs stay here; aborting stops a large one.
      expect(toHex((await baoEncodeParallel(pattern(100))).hash)).toBe(toHex(hash(pattern(100))));
      const abort = new AbortController();
      const run = baoEncodeParallel(pattern(40 * PIECE), { signal: abort.signal, onProgress: () => abort.abort(new Error('enough')) });
      await expect(run).rejects.toThrow('enough');
    });

    itBao(
      'builds bao-tree outboards on the workers exactly as baoTreeOutboard does, from bytes, a Blob or a stream, and stops on abort',
      async () => {
        const { baoTreeOutboard, baoTreeOutboardParallel } = lib;
        reset();
        const rng = random(seed + 2);
        const same = (ours: { outboard: Uint8Array; hash: Uint8Array }, theirs: { outboard: Uint8Array; hash: Uint8Array }, what: string) => {
          expect(toHex(ours.hash), what).toBe(toHex(theirs.hash));
          expect(ours.outboard.length, what).toBe(theirs.outboard.length);
          expect(toHex(hash(ours.outboard)), what).toBe(toHex(hash(theirs.outboard)));
        };
        for (const tree of [{ chunkLog: 4 }, { chunkLog: 2, order: 'post' as const }, { chunkLog: 0 }]) {
          for (const length of [5 * PIECE + 7, rng.int(40 * PIECE), 16 * 1024 + 1]) {
            const bytes = pattern(length, 9) as Uint8Array<ArrayBuffer>;
            const theirs = baoTreeOutboard(bytes, tree);
            const jobs = parallelStatus().jobs;
            const seen: number[] = [];
            same(await baoTreeOutboardParallel(new Blob([bytes]), { ...tree, onProgress: (done) => seen.push(done) }), theirs, `Blob of ${length}`);
            expect(seen.at(-1)).toBe(length);
            if (length > PIECE) expect(parallelStatus().jobs, `Blob of ${length} on the workers`).toBeGreaterThan(jobs);
            same(await baoTreeOutboardParallel(bytes, tree), theirs, `bytes of ${length}`);
            const stream = new ReadableStream<Uint8Array>({
              start(controller) {
                for (let at = 0; at < length; at += 100_003) controller.enqueue(bytes.slice(at, at + 100_003));
                controller.close();
              },
            });
            same(await baoTreeOutboardParallel(stream, tree), theirs, `stream of ${length}`);
          }
        }
        same(await baoTreeOutboardParallel(new Blob([]), {}), baoTreeOutboard(new Uint8Array(0)), 'empty Blob');
        const stop = new AbortController();
        const run = baoTreeOutboardParallel(new Blob([pattern(40 * PIECE) as Uint8Array<ArrayBuffer>]), {
          signal: stop.signal,
          onProgress: () => stop.abort(new Error('enough of the file')),
        });
        await expect(run).rejects.toThrow('enough of the file');
        await expect(baoTreeOutboardParallel(new Blob([]), { chunkLog: 17 })).rejects.toThrow(RangeError);
      },
    );

    itBao('Bao-encodes a stalled stream until an abort, which rejects at once and releases it', async () => {
      const { baoEncodeParallel } = lib;
      reset();
      for (const outboard of [true, false]) {
        let cancelled = false;
        const stalled = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(pattern(100_000, 3)); // then nothing, ever
          },
          cancel() {
            cancelled = true;
          },
        });
        const stop = new AbortController();
        setTimeout(() => stop.abort(new Error('gave up waiting')), 50);
        await expect(baoEncodeParallel(stalled, { outboard, signal: stop.signal }), `outboard ${outboard}`).rejects.toThrow('gave up waiting');
        expect(cancelled, `outboard ${outboard}: the stream was released`).toBe(true);
      }
    });

    itHashing(
      'finishes a job on the calling thread when its worker dies, and replaces the worker',
      async () => {
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
      },
      60_000,
    );

    it('falls back to the calling thread when the worker script fails to load', async () => {
      reset({ workerUrl: env.brokenWorker });
      const bytes = pattern(5 * PIECE + 1, 9);
      expect(toHex(await hashParallel(bytes))).toBe(toHex(hash(bytes)));
      expect(parallelStatus().broken).toMatch(/workers keep failing to start/);
      expect(parallelStatus().jobs).toBe(0);
      expect(toHex(await hashParallel(bytes))).toBe(toHex(hash(bytes)));
      if (bao) {
        // A stream's outboard with no pool: the source read once, here.
        const source = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream();
        expect(toHex(hash((await lib.baoEncodeParallel(source, { outboard: true })).encoding))).toBe(
          toHex(hash(lib.baoEncode(bytes, { outboard: true }).encoding)),
        );
      }
      expect(parallelStatus().jobs).toBe(0);
      reset();
      expect(toHex(await hashParallel(bytes))).toBe(toHex(hash(bytes)));
      expect(parallelStatus()).toMatchObject({ broken: undefined, lost: 0 });
      expect(parallelStatus().jobs).toBeGreaterThan(0);
    });

    itHashing('stays on the calling thread below the threshold, and validates its arguments', async () => {
      configureParallel({ threshold: 1 << 20, pieceLength: 0, workerUrl: env.brokenWorker });
      // A broken worker URL is never touched below the threshold.
      expect(toHex(await hashParallel(pattern(1 << 20)))).toBe(toHex(hash(pattern(1 << 20))));
      await expect(hashParallel(42 as never)).rejects.toBeInstanceOf(TypeError);
      await expect(hashParallel(new Uint8Array(1), { length: -1 })).rejects.toBeInstanceOf(RangeError);
      await expect(hashBlob('x' as never)).rejects.toBeInstanceOf(TypeError);
      await expect(hashStream(null as never)).rejects.toBeInstanceOf(TypeError);
      // A fetch Response is read through its body; none (a 204) is no bytes;
      // one already read is a TypeError.
      const small = pattern(300_000) as Uint8Array<ArrayBuffer>;
      expect(toHex(await hashStream(new Response(small)))).toBe(toHex(hash(small)));
      expect(toHex(await hashStream(new Response(null, { status: 204 })))).toBe(toHex(hash(new Uint8Array(0))));
      const used = new Response(small);
      await used.arrayBuffer();
      await expect(hashStream(used)).rejects.toThrow(/already read/);
      expect(() => configureParallel({ pieceLength: 3000 })).toThrow(RangeError);
      expect(() => configureParallel({ workers: -1 })).toThrow(RangeError);
      expect(() => configureParallel({ workers: 5000 })).toThrow(
        /^blake3-kit: options\.workers must be from 1 to 1024, or 0 for one per core; got 5000$/,
      );
      expect(() => configureParallel({ workers: 5000 })).toThrow(RangeError);
      expect(() => configureParallel({ workerUrl: 42 as never })).toThrow(TypeError);
      expect(() => configureParallel({ workerUrl: 42 as never })).toThrow(/options\.workerUrl/);
      expect(() => configureParallel({ threshold: '1' as never })).toThrow(/options\.threshold must be a number; got string/);
      reset();
    });

    itHashing(
      'hashes on this thread too until a worker has finished a job (helpWhileStarting, the default)',
      async () => {
        const rng = random(seed + 2);
        for (const [name, options] of [
          ['hash', {}],
          ['keyed', { key: KEY, length: 77 }],
          ['derive_key', { context: 'parallel ctx', length: 2000 }],
        ] as const) {
          reset({ helpWhileStarting: true }); // a new pool: workers start again
          const bytes = pattern(40 * PIECE + rng.int(PIECE), 11);
          const progress: number[] = [];
          const digest = await hashParallel(bytes, { ...options, onProgress: (done) => progress.push(done) });
          expect(toHex(digest), name).toBe(toHex(hash(bytes, options)));
          expect(progress.at(-1)).toBe(bytes.length);
          const status = parallelStatus();
          // A worker starts in milliseconds; this thread hashes a 64 KiB piece
          // in well under one, and begins on the next macrotask.
          expect(status.whileStarting, name).toBeGreaterThan(0);
          expect(status.whileStarting + status.jobs, name).toBe(41);
          expect(status.fallbacks).toBe(0);
        }
        // Once a worker has finished a job, the pieces are theirs.
        const bytes = pattern(40 * PIECE, 12);
        for (let i = 0; i < 50 && parallelStatus().jobs === 0; i++) await hashParallel(bytes);
        const { whileStarting, jobs } = parallelStatus();
        expect(jobs).toBeGreaterThan(0);
        expect(toHex(await hashParallel(bytes))).toBe(toHex(hash(bytes)));
        expect(parallelStatus().whileStarting).toBe(whileStarting);
        expect(parallelStatus().jobs).toBe(jobs + 40);
        expect(() => configureParallel({ helpWhileStarting: 'yes' as never })).toThrow(/options\.helpWhileStarting must be a boolean/);
        reset();
      },
      60_000,
    );

    itHashing(
      'starts no workers during a first call below 256 MiB, and starts them when it ends',
      async () => {
        reset({ helpWhileStarting: true });
        const bytes = pattern(40 * PIECE + 3, 13);
        expect(toHex(await hashParallel(bytes))).toBe(toHex(hash(bytes)));
        expect(parallelStatus()).toMatchObject({ started: 0, jobs: 0, whileStarting: 41 });
        // Started on a timer once the call has ended, then warmed up by the pool's own piece.
        for (let i = 0; i < 200 && parallelStatus().started === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
        expect(parallelStatus().started).toBe(2);
        // Later calls use them (never held again), and are right.
        for (let i = 0; i < 50 && parallelStatus().jobs === 0; i++)
          expect(toHex(await hashParallel(bytes, { key: KEY }))).toBe(toHex(hash(bytes, { key: KEY })));
        expect(parallelStatus().jobs).toBeGreaterThan(0);
        // Two first calls at once: neither starts workers, both are right.
        reset({ helpWhileStarting: true });
        const other = pattern(30 * PIECE, 14);
        const [a, b] = await Promise.all([hashParallel(bytes), hashParallel(other)]);
        expect([toHex(a), toHex(b)]).toEqual([toHex(hash(bytes)), toHex(hash(other))]);
        expect(parallelStatus().started).toBe(0);
        reset();
      },
      60_000,
    );

    itHashing('lets calls in flight finish when settings change or the workers are terminated', async () => {
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
  });
}
