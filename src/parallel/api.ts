// hashParallel, hashBlob and hashStream: inputs split into power-of-two
// pieces along the BLAKE3 tree, pieces hashed by the worker pool into
// chaining values, and the values merged here (non-root merges, then the
// root or XOF output). Small inputs stay on the calling thread.

import { MODE_KEYED, modeOf, notInitialized, type ModeKey } from '../modes.js';
import { core } from '../wasm/core.js';
import { wasmContextKeys } from '../wasm/slot-io.js';
import { hash } from '../wasm/hash.js';
import { Hasher } from '../hasher.js';
import { checkAsyncOptions, checkIntact, checkOptions, inSharedMemory, outputLength, toBytes, type AsyncHashOptions, type Input } from '../input.js';
import { loadedModule } from '../wasm/load.js';
import { rootFromPieces, subtreeChainingValue } from '../wasm/subtree.js';
import { chunkBytes, readSource, type SourceIterator, type StreamSource } from '../stream-source.js';
import { WorkerPool, type SpawnWorker } from './pool.js';

/** hashParallel, hashBlob and hashStream take the options of every
 * asynchronous API. */
export type ParallelOptions = AsyncHashOptions;

export interface ParallelPlatform {
  spawn: SpawnWorker | undefined;
  workerUrl: () => URL;
  concurrency: () => number;
  /** Whether SharedArrayBuffer can be posted to workers here. */
  sharedMemory: () => boolean;
}

export interface ParallelSettings {
  /** Workers in the pool, 1 to 1024; 0 (the default): one per logical core. */
  workers?: number;
  /** Inputs shorter than this many bytes are hashed on the calling thread. */
  threshold?: number;
  /** Where the worker script is, for self-hosted or bundled copies. */
  workerUrl?: URL | string;
  /** Piece length in bytes, a power of two >= 1024; 0 picks one by size. */
  pieceLength?: number;
  /** How pieces that must be copied reach workers: 'transfer' (default:
   * copied into reusable ArrayBuffers that move to the worker and back) or
   * 'shared' (copied into SharedArrayBuffers, where they can be posted).
   * Input that already lives in a SharedArrayBuffer is never copied. */
  transport?: 'transfer' | 'shared';
  /** A worker that has not answered a job of n bytes within
   * `jobTimeout + n / 1 MiB * 100` ms is treated as lost (default 30 s). */
  jobTimeout?: number;
}

/** At most this many bytes stay on the calling thread. Serial time / all
 * workers' time for a plain (copied) input on this 2-core machine, Node 20:
 * 1 MiB 0.92, 2 MiB 0.95, 4 MiB 1.17, 8 MiB 1.54 (bench/parallel/node.mjs;
 * Chromium in the README). */
export const DEFAULT_THRESHOLD = 4 << 20;
const MIN_PIECE = 64 * 1024;
const MAX_PIECE = 8 * 1024 * 1024;
const STREAM_PIECE = 1024 * 1024;
const PIECES_PER_WORKER = 2;
/** The native addon's bound too (crate/native/src/pool.rs MAX_THREADS). */
const MAX_WORKERS = 1024;

type TreeMode = ModeKey;

function prepare(options: ParallelOptions | undefined): { tree: TreeMode; length: number } {
  if (core === undefined) notInitialized();
  checkAsyncOptions(options, 'options');
  const length = outputLength(options?.length, 'options.length');
  const { mode, key } = modeOf(options, 'options', wasmContextKeys);
  // A copy: the caller may change the key while workers hash.
  return { tree: { mode, key: mode === MODE_KEYED ? key!.slice() : key }, length };
}

function autoPieceLength(total: number, workers: number): number {
  let piece = MIN_PIECE;
  while (piece < MAX_PIECE && piece * workers * 4 < total) piece *= 2;
  return piece;
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export type ParallelApi = ReturnType<typeof parallelApi>;

export function parallelApi(platform: ParallelPlatform) {
  let settings: Required<Omit<ParallelSettings, 'workerUrl'>> & { workerUrl: URL | string | undefined } = {
    workers: 0,
    threshold: DEFAULT_THRESHOLD,
    workerUrl: undefined,
    pieceLength: 0,
    jobTimeout: 30_000,
    transport: 'transfer',
  };
  let pool: WorkerPool | undefined;

  function pieceLengthFor(total: number, workers: number): number {
    return settings.pieceLength || autoPieceLength(total, workers);
  }

  function copyShared(): boolean {
    return settings.transport === 'shared' && platform.sharedMemory();
  }

  function workerCount(): number {
    return settings.workers > 0 ? settings.workers : Math.max(1, platform.concurrency());
  }

  function getPool(): WorkerPool | undefined {
    const module = loadedModule();
    if (!platform.spawn || !module) return undefined;
    const { jobTimeout } = settings;
    const timeout = (bytes: number) => jobTimeout + Math.ceil(bytes / 2 ** 20) * 100;
    if (!pool) pool = new WorkerPool(platform.spawn, module, settings.workerUrl ?? platform.workerUrl(), workerCount(), timeout);
    return pool.broken ? undefined : pool;
  }

  /** Sets pool size, threshold or worker URL for the calls that start after
   * it; calls in flight finish on the workers they began with. */
  function configureParallel(next: ParallelSettings): void {
    checkOptions(next, 'options');
    const merged = { ...settings, ...next };
    if (merged.transport !== 'transfer' && merged.transport !== 'shared') {
      throw new TypeError("blake3-kit: options.transport must be 'transfer' or 'shared'");
    }
    const { workerUrl } = merged;
    if (workerUrl !== undefined && typeof workerUrl !== 'string' && !(workerUrl instanceof URL)) {
      throw new TypeError(`blake3-kit: options.workerUrl must be a URL or a string; got ${workerUrl === null ? 'null' : typeof workerUrl}`);
    }
    for (const name of ['workers', 'threshold', 'pieceLength', 'jobTimeout'] as const) {
      const value = merged[name];
      if (typeof value !== 'number') throw new TypeError(`blake3-kit: options.${name} must be a number; got ${typeof value}`);
      if (!Number.isInteger(value) || value < 0) throw new RangeError(`blake3-kit: options.${name} must be a non-negative integer; got ${value}`);
    }
    if (merged.workers > MAX_WORKERS) {
      throw new RangeError(`blake3-kit: options.workers must be from 1 to ${MAX_WORKERS}, or 0 for one per core; got ${merged.workers}`);
    }
    const { pieceLength } = merged;
    if (pieceLength !== 0 && (pieceLength < 1024 || (pieceLength & (pieceLength - 1)) !== 0 || pieceLength > 2 ** 30)) {
      throw new RangeError(`blake3-kit: options.pieceLength must be 0 or a power of two from 1024 to 2^30; got ${pieceLength}`);
    }
    settings = merged;
    terminateWorkers();
  }

  /** What the current pool has done: workers started and lost, jobs done by
   * workers and on this thread after a loss, and why workers were given up
   * on, if they were. */
  function parallelStatus() {
    return { workers: pool?.size ?? 0, ...(pool?.stats ?? { started: 0, lost: 0, jobs: 0, fallbacks: 0 }), broken: pool?.broken?.message };
  }

  /** Stops the workers once the calls using them end (at once if none
   * does); the next parallel hash starts new ones. */
  function terminateWorkers(): void {
    pool?.retire();
    pool = undefined;
    piecePools.clear();
  }

  /**
   * Feeds pieces to the pool and merges the results: `next()` yields each
   * piece (offset order, all but the last of `pieceLength` bytes) with a way
   * to recompute it here if its worker is lost.
   */
  async function runTree(
    tree: TreeMode,
    pieces: AsyncIterable<{ bytes: Uint8Array; shared: boolean; recompute: (() => Uint8Array | Promise<Uint8Array>) | undefined }>,
    options: ParallelOptions | undefined,
    total: number | undefined,
    workers: WorkerPool,
    release: (bytes: Uint8Array) => void,
  ): Promise<{ cvs: Uint8Array[]; length: number }> {
    const { signal, onProgress } = options ?? {};
    const cvs: Uint8Array[] = [];
    const running = new Set<Promise<void>>();
    let length = 0;
    let done = 0;
    let failure: unknown;
    const limit = workers.size * PIECES_PER_WORKER;
    workers.acquire();
    try {
      for await (const { bytes, shared, recompute } of pieces) {
        signal?.throwIfAborted();
        if (failure) throw failure;
        const index = cvs.length;
        const offset = length;
        cvs.push(undefined!);
        length += bytes.length;
        const size = bytes.length;
        const task = workers
          .run({
            mode: tree.mode,
            key: tree.key,
            offset,
            bytes,
            transfer: !shared,
            fallback: recompute && (async () => subtreeChainingValue(tree.mode, tree.key, offset, await recompute())),
          })
          .then((result) => {
            cvs[index] = result.cv;
            release(result.bytes ?? bytes);
            done += size;
            onProgress?.(done, total);
          })
          .catch((error: unknown) => {
            failure ??= error;
          });
        running.add(task);
        task.finally(() => running.delete(task));
        while (running.size >= limit) await abortable(Promise.race(running), signal);
      }
      signal?.throwIfAborted();
      await abortable(Promise.all(running), signal);
      if (failure) throw failure;
      return { cvs, length };
    } finally {
      workers.release();
    }
  }

  function finish(tree: TreeMode, cvs: Uint8Array[], pieceLength: number, length: number, outLength: number): Uint8Array {
    return rootFromPieces(tree.mode, tree.key, cvs, pieceLength, length, outLength);
  }

  /** BLAKE3 of an in-memory input, hashed across the worker pool. */
  async function hashParallel(input: Input, options?: ParallelOptions): Promise<Uint8Array> {
    const { tree, length: outLength } = prepare(options);
    options?.signal?.throwIfAborted();
    const bytes = typeof input === 'string' ? new TextEncoder().encode(input) : toBytes(input, 'input');
    const workers = bytes.length > settings.threshold ? getPool() : undefined;
    if (!workers) return serialHash(bytes, options);
    const pieceLength = pieceLengthFor(bytes.length, workers.size);
    if (bytes.length <= pieceLength) return serialHash(bytes, options);
    const total = bytes.length;
    // Shared memory can't shrink or detach; any other buffer can between two
    // pieces (resize, transfer): each piece is read only after a check, never
    // hashing a prefix as if it were the input.
    const inputShared = inSharedMemory(bytes);
    const staging = piecePool(pieceLength, copyShared());
    async function* pieces() {
      for (let offset = 0; offset < total; offset += pieceLength) {
        checkIntact(bytes, total, 'input');
        const view = bytes.subarray(offset, offset + pieceLength);
        const recompute = () => (checkIntact(bytes, total, 'input'), view);
        if (inputShared) yield { bytes: view, shared: true, recompute };
        else yield { bytes: staging.copy(view), shared: staging.shared, recompute };
      }
    }
    const { cvs } = await runTree(tree, pieces(), options, total, workers, (b) => staging.release(b));
    return finish(tree, cvs, pieceLength, total, outLength);
  }

  /** BLAKE3 of a Blob or File, read in slices while workers hash earlier ones. */
  async function hashBlob(blob: Blob, options?: ParallelOptions): Promise<Uint8Array> {
    if (typeof Blob === 'undefined' || !(blob instanceof Blob)) throw new TypeError('blake3-kit: blob must be a Blob or File');
    const { tree, length: outLength } = prepare(options);
    options?.signal?.throwIfAborted();
    const total = blob.size;
    const workers = total > settings.threshold ? getPool() : undefined;
    if (!workers) return serialHash(new Uint8Array(await abortable(blob.arrayBuffer(), options?.signal)), options);
    const pieceLength = pieceLengthFor(total, workers.size);
    if (total <= pieceLength) return serialHash(new Uint8Array(await abortable(blob.arrayBuffer(), options?.signal)), options);
    const read = (offset: number) => blob.slice(offset, offset + pieceLength).arrayBuffer().then((b) => new Uint8Array(b));
    // Several slices in flight: one Blob read at a time left Chromium at
    // 574 MB/s on a 256 MiB File (0.18x the in-memory parallel rate).
    const ahead = workers.size * PIECES_PER_WORKER;
    async function* pieces() {
      const reads: Promise<Uint8Array>[] = [];
      let nextOffset = 0;
      const fill = () => {
        for (; reads.length < ahead && nextOffset < total; nextOffset += pieceLength) reads.push(handled(read(nextOffset)));
      };
      fill();
      for (let offset = 0; offset < total; offset += pieceLength) {
        const bytes = await abortable(reads.shift()!, options?.signal);
        fill();
        yield { bytes, shared: false, recompute: () => read(offset) };
      }
    }
    const { cvs } = await runTree(tree, pieces(), options, total, workers, () => {});
    return finish(tree, cvs, pieceLength, total, outLength);
  }

  /**
   * For sources that read any range on demand (files): `read(offset, into)`
   * fills `into` from `offset` and resolves to the bytes read. Pieces are
   * read straight into pooled buffers, one piece ahead, with no other copy.
   * Resolves to undefined when `total` is at or below the threshold or no
   * workers can run, so the caller hashes serially.
   */
  async function hashRanges(
    total: number,
    read: (offset: number, into: Uint8Array) => Promise<number>,
    options?: ParallelOptions,
  ): Promise<Uint8Array | undefined> {
    const { tree, length: outLength } = prepare(options);
    const workers = total > settings.threshold ? getPool() : undefined;
    if (!workers) return undefined;
    const pieceLength = pieceLengthFor(total, workers.size);
    if (total <= pieceLength) return undefined;
    const buffers = piecePool(pieceLength, copyShared());
    const readPiece = (offset: number) =>
      handled(
        (async () => {
          const into = buffers.take().subarray(0, Math.min(pieceLength, total - offset));
          const count = await read(offset, into);
          return into.subarray(0, count);
        })(),
      );
    async function* pieces() {
      let next: Promise<Uint8Array> | undefined = readPiece(0);
      try {
        for (let offset = 0; offset < total; offset += pieceLength) {
          const bytes = await abortable(next!, options?.signal);
          next = offset + pieceLength < total ? readPiece(offset + pieceLength) : undefined;
          const copy = async () => {
            const again = new Uint8Array(Math.min(pieceLength, total - offset));
            return again.subarray(0, await read(offset, again));
          };
          yield { bytes, shared: buffers.shared, recompute: copy };
        }
      } finally {
        // A read ahead left when the call ends early (a failed or aborted
        // piece) settles before the caller may close what it reads from.
        await next?.catch(() => {});
      }
    }
    const { cvs } = await runTree(tree, pieces(), options, total, workers, (b) => buffers.release(b));
    return finish(tree, cvs, pieceLength, total, outLength);
  }

  /** BLAKE3 of a stream (web ReadableStream, Node Readable or any async
   * iterable of bytes) in fixed 1 MiB pieces, hashed by the pool while the
   * stream is read. At most two pieces per worker are held at once. */
  async function hashStream(source: StreamSource, options?: ParallelOptions): Promise<Uint8Array> {
    const { tree, length: outLength } = prepare(options);
    return readSource(source, options?.signal, (iterator) => streamTree(iterator, tree, outLength, options));
  }

  async function streamTree(
    iterator: SourceIterator,
    tree: TreeMode,
    outLength: number,
    options: ParallelOptions | undefined,
  ): Promise<Uint8Array> {
    const signal = options?.signal;
    const workers = getPool();
    if (!workers) {
      // No workers here: the same stream, hashed on this thread.
      using hasher = new Hasher(options); // reads only key and context
      let done = 0;
      for (let step = await iterator.next(); !step.done; step = await iterator.next()) {
        signal?.throwIfAborted();
        const chunk = chunkBytes(step.value);
        hasher.update(chunk);
        options?.onProgress?.((done += chunk.length));
      }
      signal?.throwIfAborted();
      return hasher.digest({ length: outLength });
    }
    const pieceLength = settings.pieceLength || STREAM_PIECE;
    const buffers = piecePool(pieceLength, copyShared());
    let whole: Uint8Array | undefined;
    async function* pieces() {
      let current = buffers.take();
      let filled = 0;
      // A full piece is held until a byte beyond it arrives: a stream of at
      // most one piece has no subtrees and is hashed here, as the root.
      let held: Uint8Array | undefined;
      let yielded = false;
      for (let step = await iterator.next(); !step.done; step = await iterator.next()) {
        signal?.throwIfAborted();
        let chunk = chunkBytes(step.value);
        while (chunk.length > 0) {
          if (held) {
            yield { bytes: held, shared: buffers.shared, recompute: sharedOnly(held, buffers.shared) };
            held = undefined;
            yielded = true;
          }
          const take = Math.min(chunk.length, pieceLength - filled);
          current.set(chunk.subarray(0, take), filled);
          filled += take;
          chunk = chunk.subarray(take);
          if (filled === pieceLength) {
            held = current;
            current = buffers.take();
            filled = 0;
          }
        }
      }
      if (!yielded && (held === undefined || filled === 0)) {
        whole = held ?? current.subarray(0, filled);
        return;
      }
      if (held) yield { bytes: held, shared: buffers.shared, recompute: sharedOnly(held, buffers.shared) };
      const last = current.subarray(0, filled);
      if (filled > 0) yield { bytes: last, shared: buffers.shared, recompute: sharedOnly(last, buffers.shared) };
    }
    const { cvs, length } = await runTree(tree, pieces(), options, undefined, workers, (b) => buffers.release(b));
    if (whole !== undefined) {
      options?.onProgress?.(whole.length);
      return hash(whole, options);
    }
    return finish(tree, cvs, pieceLength, length, outLength);
  }

  return { hashParallel, hashBlob, hashStream, hashRanges, configureParallel, terminateWorkers, parallelStatus };
}

/** Marks a read started ahead as handled: it may fail (a file truncated, a
 * Blob whose file changed) while the call waits on workers and before it
 * awaits the read, which then still throws; or never be awaited at all if
 * the call fails first. Either way the failure must not surface as an
 * unhandled rejection, which ends a Node process. */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** The calling thread's path: `hash()` reads the mode and length from the
 * same options. */
function serialHash(bytes: Uint8Array, options: ParallelOptions | undefined): Uint8Array {
  const digest = hash(bytes, options);
  options?.onProgress?.(bytes.length, bytes.length);
  return digest;
}

/** A stream piece can be rehashed here after a lost worker only if it was
 * shared: a transferred piece left this thread. */
function sharedOnly(bytes: Uint8Array, shared: boolean): (() => Uint8Array) | undefined {
  return shared ? () => bytes : undefined;
}

/** Piece-sized buffers, reused: shared memory where it can be posted,
 * otherwise plain buffers that travel to a worker and back. */
/** Reused piece buffers by length and kind. Fresh ones cost a zero-filled
 * allocation each call: with them, 16 MiB from a plain buffer on 2 workers
 * ran at 1.00x the single thread; see the README for the numbers now. At
 * most POOLED_BYTES stay held between calls (terminateWorkers frees them). */
const piecePools = new Map<string, PieceBuffers>();
const POOLED_BYTES = 32 * 1024 * 1024;

function piecePool(length: number, shared: boolean): PieceBuffers {
  const key = `${length}:${shared}`;
  let pool = piecePools.get(key);
  if (!pool) piecePools.set(key, (pool = new PieceBuffers(length, shared)));
  return pool;
}

class PieceBuffers {
  readonly shared: boolean;
  readonly #length: number;
  readonly #free: Uint8Array[] = [];

  constructor(length: number, shared: boolean) {
    this.#length = length;
    this.shared = shared;
  }

  take(): Uint8Array {
    return this.#free.pop() ?? new Uint8Array(this.shared ? new SharedArrayBuffer(this.#length) : new ArrayBuffer(this.#length));
  }

  copy(view: Uint8Array): Uint8Array {
    const buffer = this.take();
    buffer.set(view);
    return view.length === this.#length ? buffer : buffer.subarray(0, view.length);
  }

  release(bytes: Uint8Array): void {
    if (bytes.buffer.byteLength !== this.#length || bytes.byteOffset !== 0) return;
    if ((this.#free.length + 1) * this.#length > POOLED_BYTES) return;
    this.#free.push(new Uint8Array(bytes.buffer, 0, this.#length));
  }
}
