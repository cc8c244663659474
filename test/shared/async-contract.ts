// The async contract, written once: hashParallel, hashBlob and hashStream
// equal the one-shot hash in every mode and at every length, report
// progress with the right totals, reject with the signal's reason on abort
// and release the source, and reject bad arguments with the right error
// types. Run against the worker pool (test/node/parallel.test.ts,
// test/browser/parallel.test.ts) and the native addon
// (test/node/async-native.test.ts).
import { blake3 as noble } from '@noble/hashes/blake3.js';
import { describe, expect, it } from 'vitest';
import { CONTEXT, KEY, pattern, random, seed } from './setup.js';

type Lib = Pick<typeof import('../../src/entries/node.js'), 'hashParallel' | 'hashBlob' | 'hashStream' | 'hash' | 'toHex'>;

export interface AsyncSubject {
  /** What does the hashing, for the test names. */
  name: string;
  lib: Lib;
  /** The length of the pieces it hashes apart: splitting goes wrong, if
   * anywhere, at lengths around multiples of it. */
  piece: number;
  /** At most this many pieces are copied before the first is reported
   * done: a buffer changed after that is seen only in later pieces. */
  copiedAhead: number;
  /** Called first in each case: the settings the cases rely on. */
  reset(): void;
  /** Whether the last call used what is under test rather than hashing
   * serially: a case must not pass because nothing ran in parallel. */
  ranOffThread?(): boolean;
}

const CHUNK = 1024;

/** A stream of `data` in chunks of `step` bytes, read as it is pulled. */
function chunkedStream(data: Uint8Array, step: number) {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= data.length) return controller.close();
      controller.enqueue(data.slice(offset, offset + step));
      offset += step;
    },
  });
}

/** A stream that never ends; it counts its pulls and records why it was
 * cancelled. */
function endlessStream(chunk: number) {
  const seen = { pulls: 0, cancelled: undefined as unknown };
  const stream = new ReadableStream<Uint8Array>({
    pull: (controller) => void (seen.pulls++, controller.enqueue(new Uint8Array(chunk))),
    cancel: (reason) => void (seen.cancelled = reason),
  });
  return { stream, seen };
}

export function asyncContract(subject: AsyncSubject) {
  const { lib, piece, reset } = subject;
  const { hashParallel, hashBlob, hashStream, hash, toHex } = lib;
  /** Stream chunks that straddle piece boundaries (and, for native, large
   * enough to go off the thread). */
  const step = Math.floor(piece / 3) + 7;
  let input: Uint8Array<ArrayBuffer> | undefined;
  /** Bytes of the official pattern, made once per suite. */
  const bytes = (length: number) => (input ??= pattern(4 * piece + 2 * CHUNK + 1) as Uint8Array<ArrayBuffer>).subarray(0, length);
  const streamOf = (data: Uint8Array, size = step) => chunkedStream(data, size);
  const all = (data: Uint8Array<ArrayBuffer>, options?: object) =>
    Promise.all([hashParallel(data, options), hashBlob(new Blob([data]), options), hashStream(streamOf(data), options)]).then((ds) => ds.map(toHex));

  describe(`the async contract on ${subject.name} (seed ${seed})`, () => {
    it('hashParallel, hashBlob and hashStream equal the one-shot around every piece boundary', async () => {
      reset();
      const lengths = [0, 1, CHUNK + 1];
      for (let k = 1; k <= 3; k++) for (const delta of [-CHUNK - 1, -1, 0, 1, CHUNK + 1]) lengths.push(k * piece + delta);
      for (const length of lengths) {
        const data = bytes(length);
        const expected = toHex(hash(data));
        expect(await all(data), `length ${length}`).toEqual([expected, expected, expected]);
      }
      expect(subject.ranOffThread?.() ?? true).toBe(true);
    });

    it('equals the one-shot in every mode, with extended output, at random lengths', async () => {
      reset();
      const rng = random(seed);
      for (const length of [rng.int(piece), piece + rng.int(3 * piece)]) {
        const data = bytes(length);
        for (const options of [{ key: KEY, length: 100 }, { context: CONTEXT, length: 70_000 }, { length: 20 }]) {
          const expected = toHex(hash(data, options));
          expect(await all(data, options), `length ${length}, ${JSON.stringify(Object.keys(options))}`).toEqual([expected, expected, expected]);
        }
        // A second oracle for the modes that take a key.
        expect(toHex(await hashParallel(data, { key: KEY }))).toBe(toHex(noble(data, { key: KEY })));
        expect(toHex(await hashParallel(data, { context: CONTEXT }))).toBe(toHex(noble(data, { context: new TextEncoder().encode(CONTEXT) })));
      }
    });

    it('takes views at an offset, shared memory, multi-part Blobs, strings and tiny streams', async () => {
      reset();
      const data = bytes(2 * piece + 3);
      expect(toHex(await hashParallel(data.subarray(17)))).toBe(toHex(hash(data.subarray(17))));
      if (typeof SharedArrayBuffer !== 'undefined') {
        const shared = new Uint8Array(new SharedArrayBuffer(data.length));
        shared.set(data);
        expect(toHex(await hashParallel(shared))).toBe(toHex(hash(data)));
      }
      const parts = new Blob([data.subarray(0, 100), data.subarray(100, piece + 1), data.subarray(piece + 1)]);
      expect(toHex(await hashBlob(parts, { key: KEY, length: 40 }))).toBe(toHex(hash(data, { key: KEY, length: 40 })));
      async function* strings() {
        yield 'żółć';
        yield 'x'.repeat(piece * 2);
      }
      expect(toHex(await hashStream(strings(), { context: 'c' }))).toBe(toHex(hash(`żółć${'x'.repeat(piece * 2)}`, { context: 'c' })));
      for (const size of [0, 1, piece - 1, piece, piece + 1]) {
        const tiny = bytes(size);
        expect(toHex(await hashStream(streamOf(tiny, Math.floor(piece / 64) + 1))), `size ${size}`).toBe(toHex(hash(tiny)));
      }
    });

    it('reports progress with the right totals, up to the total exactly once, and leaves the input untouched', async () => {
      reset();
      for (const length of [3 * piece + 5, CHUNK]) {
        const data = bytes(length).slice();
        const calls: [string, number, number | undefined][] = [];
        const progress = (api: string) => ({ onProgress: (done: number, total?: number) => void calls.push([api, done, total]) });
        await hashParallel(data, progress('hashParallel'));
        await hashBlob(new Blob([data]), progress('hashBlob'));
        await hashStream(streamOf(data), progress('hashStream'));
        const totals = { hashParallel: length, hashBlob: length, hashStream: undefined };
        for (const [api, total] of Object.entries(totals)) {
          const seen = calls.filter((call) => call[0] === api);
          expect(seen.length, `${api} at ${length}`).toBeGreaterThan(0);
          expect(new Set(seen.map((call) => call[2])), `${api}'s totals`).toEqual(new Set([total]));
          const done = seen.map((call) => call[1]);
          expect(done, `${api} counts up`).toEqual([...done].sort((a, b) => a - b));
          expect(done.at(-1)).toBe(length);
          expect(
            done.filter((d) => d === length),
            `${api} reaches the total once`,
          ).toHaveLength(1);
        }
        expect(toHex(hash(data)), 'the input is untouched').toBe(toHex(hash(bytes(length))));
      }
    });

    it('rejects with the signal’s reason on abort, releases the source and works afterwards', async () => {
      reset();
      const data = bytes(4 * piece);
      const reason = new Error('enough');
      const midway = new AbortController();
      const run = hashParallel(data, { signal: midway.signal, onProgress: (done) => done >= piece && midway.abort(reason) });
      await expect(run).rejects.toBe(reason);
      expect(subject.ranOffThread?.() ?? true).toBe(true);

      const blobAbort = new AbortController();
      const blobRun = hashBlob(new Blob([data]), { signal: blobAbort.signal, onProgress: () => blobAbort.abort(reason) });
      await expect(blobRun).rejects.toBe(reason);

      const before = AbortSignal.abort(reason);
      await expect(hashParallel(data, { signal: before })).rejects.toBe(reason);
      await expect(hashBlob(new Blob([data]), { signal: before })).rejects.toBe(reason);
      const unread = streamOf(data);
      await expect(hashStream(unread, { signal: before })).rejects.toBe(reason);
      expect(unread.locked, 'a stream it never read is left unlocked').toBe(false);
      await expect(hashParallel(data, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });

      const { stream: endless, seen } = endlessStream(Math.floor(piece / 4));
      const streamAbort = new AbortController();
      const streaming = hashStream(endless, { signal: streamAbort.signal, onProgress: (done) => done >= 2 * piece && streamAbort.abort(reason) });
      await expect(streaming).rejects.toBe(reason);
      const pulledAtAbort = seen.pulls;
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(seen.pulls - pulledAtAbort, 'reading stopped').toBeLessThanOrEqual(1);
      expect(seen.cancelled, 'the stream was cancelled with the reason').toBe(reason);

      let released = false;
      async function* generated() {
        try {
          for (;;) yield new Uint8Array(Math.floor(piece / 4));
        } finally {
          released = true;
        }
      }
      const iterableAbort = new AbortController();
      const iterating = hashStream(generated(), {
        signal: iterableAbort.signal,
        onProgress: (done) => done >= 2 * piece && iterableAbort.abort(reason),
      });
      await expect(iterating).rejects.toBe(reason);
      expect(released, 'the iterator was returned').toBe(true);

      expect(await all(data)).toEqual(Array(3).fill(toHex(hash(data))));
    });

    it('rejects an input detached or shrunk during the call, never hashing what is left', async () => {
      reset();
      const length = (subject.copiedAhead + 2) * piece;
      const resizable = new ArrayBuffer(length, { maxByteLength: length });
      new Uint8Array(resizable).set(pattern(length));
      let shrunk = false;
      const shrinking = hashParallel(new Uint8Array(resizable), { onProgress: () => shrunk || ((shrunk = true), resizable.resize(piece)) });
      await expect(shrinking).rejects.toThrow(/^blake3-kit: input was detached or shrunk while it was being hashed/);
      await expect(hashParallel(new Uint8Array(resizable))).resolves.toEqual(hash(bytes(piece)));

      const plain = pattern(length);
      let moved = false;
      const detaching = hashParallel(plain, {
        onProgress: () => moved || ((moved = true), structuredClone(plain.buffer, { transfer: [plain.buffer] })),
      });
      await expect(detaching).rejects.toThrow(/^blake3-kit: input was detached or shrunk/);
      expect(toHex(await hashParallel(pattern(length, 1)))).toBe(toHex(hash(pattern(length, 1))));
    });

    it('rejects bad arguments, never throws them, with the right error type and a named argument', async () => {
      reset();
      /** `call` must return a promise that rejects with `type` and `message`. */
      const rejects = async (call: () => Promise<unknown>, type: ErrorConstructor, message: RegExp) => {
        const result = call();
        expect(result).toBeInstanceOf(Promise);
        await expect(result).rejects.toThrow(message);
        await expect(result).rejects.toBeInstanceOf(type);
      };
      const data = new Uint8Array(10);
      const stream = () => streamOf(data);
      await rejects(() => hashParallel(42 as never), TypeError, /^blake3-kit: input /);
      await rejects(() => hashBlob('x' as never), TypeError, /^blake3-kit: blob /);
      await rejects(() => hashStream(null as never), TypeError, /^blake3-kit: source /);
      await rejects(() => hashStream({} as never), TypeError, /^blake3-kit: source /);
      async function* numbers() {
        yield 42;
      }
      await rejects(() => hashStream(numbers() as never), TypeError, /^blake3-kit: chunk /);
      const calls = [(o: object) => hashParallel(data, o), (o: object) => hashBlob(new Blob([data]), o), (o: object) => hashStream(stream(), o)];
      for (const call of calls) {
        await rejects(() => call('opts' as never), TypeError, /^blake3-kit: options must be a plain object/);
        await rejects(() => call({ length: -1 }), RangeError, /^blake3-kit: options\.length /);
        await rejects(() => call({ length: '32' }), TypeError, /^blake3-kit: options\.length /);
        await rejects(() => call({ signal: 'x' }), TypeError, /^blake3-kit: options\.signal /);
        await rejects(() => call({ onProgress: 1 }), TypeError, /^blake3-kit: options\.onProgress /);
        await rejects(() => call({ key: new Uint8Array(31) }), RangeError, /^blake3-kit: options\.key /);
        await rejects(() => call({ key: KEY, context: 'c' }), TypeError, /^blake3-kit: options\.key and options\.context /);
      }
      expect(await all(data)).toEqual(Array(3).fill(toHex(hash(data))));
    });
  });
}
