// hashParallel, hashBlob and hashStream: inputs split into power-of-two
// pieces along the BLAKE3 tree, pieces hashed by the worker pool into
// chaining values, and the values merged here (non-root merges, then the
// root or XOF output). Small inputs stay on the calling thread.
//
// The parts: settings.ts (the settings and piece lengths), lifecycle.ts
// (when the pool starts and stops), pieces.ts (one producer per source),
// tree.ts (pieces to chaining values), buffers.ts (reused piece buffers).

import { notInitialized, ownedModeOf, HASH_MODE, type ModeKey } from '../modes.js';
import { core, hash, wasmContextKeys, rootFromPieces } from '../wasm/workers.js';
import { Hasher } from '../hasher.js';
import { checkAsyncOptions, outputLength, type AsyncHashOptions, type Input, inputBytes } from '../input.js';
import { readSource, chunkBytes, type SourceIterator, type StreamSource } from '../stream-source.js';
import type { StreamChunkValues } from '../engine.js';
import { pieceBuffers } from './buffers.js';
import { PoolLifecycle, type ParallelPlatform } from './lifecycle.js';
import { blobPieces, blobSlices, bytesPieces, rangePieces, streamPieces, type RangeReader, type SmallStream } from './pieces.js';
import { abortable } from '../promises.js';
import { pieceLengthFor, streamPieceLength, type ParallelSettings } from './settings.js';
import { PIECES_PER_WORKER, runTree } from './tree.js';
import type { WorkerPool } from './pool.js';

export type { ParallelPlatform } from './lifecycle.js';
export { DEFAULT_THRESHOLD, type ParallelSettings } from './settings.js';

/** hashParallel, hashBlob and hashStream take the options of every
 * asynchronous API. */
export type ParallelOptions = AsyncHashOptions;

export type ParallelApi = ReturnType<typeof parallelApi>;

/** The parallel API of one platform (Node's worker_threads, Web Workers). */
export function parallelApi(platform: ParallelPlatform) {
  const workers = new PoolLifecycle(platform);
  return {
    /** BLAKE3 of an in-memory input, hashed across the worker pool. */
    hashParallel: (input: Input, options?: ParallelOptions): Promise<Uint8Array> => hashParallel(workers, input, options),
    /** BLAKE3 of a Blob or File, read in slices while workers hash earlier ones. */
    hashBlob: (blob: Blob, options?: ParallelOptions): Promise<Uint8Array> => hashBlob(workers, blob, options),
    /** BLAKE3 of a stream (web ReadableStream, Node Readable or any async
     * iterable of bytes) in fixed 1 MiB pieces, hashed by the pool while the
     * stream is read. At most two pieces per worker are held at once. */
    hashStream: (source: StreamSource, options?: ParallelOptions): Promise<Uint8Array> => hashStream(workers, source, options),
    /** Every chunk's chaining value of an in-memory input (hash mode), 32
     * bytes each, per piece in order, computed across the pool for Bao
     * encoding; undefined where the input stays on this thread. */
    chunkValues: (bytes: Uint8Array, options?: AsyncHashOptions): Promise<Uint8Array[] | undefined> => chunkValues(workers, bytes, options),
    /** The same for a Blob or File, read as hashBlob reads it (by the
     * workers where they can), so this thread never holds its bytes. */
    blobChunkValues: (blob: Blob, options?: AsyncHashOptions): Promise<Uint8Array[] | undefined> => blobChunkValues(workers, blob, options),
    /** The same for a stream, cut as hashStream cuts it: every chunk's
     * value and the length, or the whole stream when it fit one piece;
     * undefined, with the source untouched, where no workers run. */
    streamChunkValues: (source: StreamSource, options?: AsyncHashOptions): Promise<StreamChunkValues | undefined> =>
      streamChunkValues(workers, source, options),
    /** For sources that read any range on demand (files); undefined where
     * the caller should hash serially. */
    hashRanges: (total: number, read: RangeReader, options?: ParallelOptions): Promise<Uint8Array | undefined> =>
      hashRanges(workers, total, read, options),
    /** Sets pool size, threshold or worker URL for the calls that start after
     * it; calls in flight finish on the workers they began with. */
    configureParallel: (next: ParallelSettings): void => workers.configure(next),
    /** Starts the workers now; resolves once each has hashed a warm-up
     * piece, so a later call needs no help from this thread. */
    startWorkers: (): Promise<void> => workers.start(),
    /** Stops the workers once the calls using them end (at once if none
     * does); the next parallel hash starts new ones. */
    terminateWorkers: (): void => workers.terminate(),
    /** What the current pool has done: workers started and lost, jobs done
     * by workers and on this thread after a loss, and why workers were given
     * up on, if they were. */
    parallelStatus: () => workers.status(),
  };
}

/** Mode, key and output length from the options of a call, checked. */
function prepare(options: ParallelOptions | undefined): { tree: ModeKey; length: number } {
  if (core === undefined) notInitialized();
  checkAsyncOptions(options, 'options');
  const length = outputLength(options?.length, 'options.length');
  return { tree: ownedModeOf(options, 'options', wasmContextKeys), length };
}

async function hashParallel(lifecycle: PoolLifecycle, input: Input, options: ParallelOptions | undefined): Promise<Uint8Array> {
  const { tree, length: outLength } = prepare(options);
  options?.signal?.throwIfAborted();
  const bytes = inputBytes(input, 'input');
  const run = await bytesOnPool(lifecycle, tree, bytes, options, false);
  if (run === undefined) return serialHash(bytes, options);
  return rootFromPieces(tree.mode, tree.key, run.cvs, run.pieceLength, bytes.length, outLength);
}

/** The pool and piece length for an input of `total` bytes, or undefined
 * where it stays on this thread (no workers, or a single piece). */
function splitFor(lifecycle: PoolLifecycle, total: number): { workers: WorkerPool; pieceLength: number } | undefined {
  const workers = lifecycle.poolFor(total);
  if (!workers) return undefined;
  const pieceLength = pieceLengthFor(lifecycle.settings, total, workers.size);
  return total <= pieceLength ? undefined : { workers, pieceLength };
}

/** `bytes` in pieces across the pool: each piece's chaining value, or
 * (perChunk) its chunks'; undefined where the input stays on this thread
 * (no workers, or a single piece). */
async function bytesOnPool(
  lifecycle: PoolLifecycle,
  tree: ModeKey,
  bytes: Uint8Array,
  options: AsyncHashOptions | undefined,
  perChunk: boolean,
): Promise<{ cvs: Uint8Array[]; pieceLength: number } | undefined> {
  const total = bytes.length;
  const split = splitFor(lifecycle, total);
  if (split === undefined) return undefined;
  const { workers, pieceLength } = split;
  const staging = pieceBuffers(pieceLength, lifecycle.copyShared());
  const { cvs } = await runTree(workers, bytesPieces(bytes, total, pieceLength, staging), {
    hashing: tree,
    call: options,
    total,
    buffers: staging,
    perChunk,
  });
  return { cvs, pieceLength };
}

async function hashBlob(lifecycle: PoolLifecycle, blob: Blob, options: ParallelOptions | undefined): Promise<Uint8Array> {
  if (typeof Blob === 'undefined' || !(blob instanceof Blob)) throw new TypeError('blake3-kit: blob must be a Blob or File');
  const { tree, length: outLength } = prepare(options);
  options?.signal?.throwIfAborted();
  const run = await blobOnPool(lifecycle, tree, blob, options, false);
  if (run === undefined) return serialHash(new Uint8Array(await abortable(blob.arrayBuffer(), options?.signal)), options);
  return rootFromPieces(tree.mode, tree.key, run.cvs, run.pieceLength, blob.size, outLength);
}

/** `blob` in pieces across the pool, as bytesOnPool. */
async function blobOnPool(
  lifecycle: PoolLifecycle,
  tree: ModeKey,
  blob: Blob,
  options: AsyncHashOptions | undefined,
  perChunk: boolean,
): Promise<{ cvs: Uint8Array[]; pieceLength: number } | undefined> {
  const total = blob.size;
  const split = splitFor(lifecycle, total);
  if (split === undefined) return undefined;
  const { workers, pieceLength } = split;
  // Workers read their own slices where they can: the reads run in parallel
  // and off this thread, and this thread holds none of the bytes.
  const pieces = lifecycle.workersReadBlobs
    ? blobSlices(blob, total, pieceLength)
    : blobPieces(blob, total, pieceLength, workers.size * PIECES_PER_WORKER, options?.signal);
  const { cvs } = await runTree(workers, pieces, { hashing: tree, call: options, total, perChunk });
  return { cvs, pieceLength };
}

async function blobChunkValues(lifecycle: PoolLifecycle, blob: Blob, options: AsyncHashOptions | undefined): Promise<Uint8Array[] | undefined> {
  options?.signal?.throwIfAborted();
  return (await blobOnPool(lifecycle, HASH_MODE, blob, options, true))?.cvs;
}

async function chunkValues(lifecycle: PoolLifecycle, bytes: Uint8Array, options: AsyncHashOptions | undefined): Promise<Uint8Array[] | undefined> {
  options?.signal?.throwIfAborted();
  return (await bytesOnPool(lifecycle, HASH_MODE, bytes, options, true))?.cvs;
}

async function streamChunkValues(
  lifecycle: PoolLifecycle,
  source: StreamSource,
  options: AsyncHashOptions | undefined,
): Promise<StreamChunkValues | undefined> {
  options?.signal?.throwIfAborted();
  const workers = lifecycle.pool();
  if (!workers) return undefined;
  return readSource(source, options?.signal, async (iterator) => {
    const { cvs, length, whole } = await streamOnPool(lifecycle, workers, iterator, HASH_MODE, options, true);
    return whole !== undefined ? { whole } : { cvs, length };
  });
}

/**
 * For sources that read any range on demand (files): `read(offset, into)`
 * fills `into` from `offset` and resolves to the bytes read. Resolves to
 * undefined when `total` is at or below the threshold or no workers can
 * run, so the caller hashes serially.
 */
async function hashRanges(
  lifecycle: PoolLifecycle,
  total: number,
  read: RangeReader,
  options: ParallelOptions | undefined,
): Promise<Uint8Array | undefined> {
  const { tree, length: outLength } = prepare(options);
  const split = splitFor(lifecycle, total);
  if (split === undefined) return undefined;
  const { workers, pieceLength } = split;
  const buffers = pieceBuffers(pieceLength, lifecycle.copyShared());
  const pieces = rangePieces(read, total, pieceLength, buffers, options?.signal);
  const { cvs } = await runTree(workers, pieces, { hashing: tree, call: options, total, buffers });
  return rootFromPieces(tree.mode, tree.key, cvs, pieceLength, total, outLength);
}

async function hashStream(lifecycle: PoolLifecycle, source: StreamSource, options: ParallelOptions | undefined): Promise<Uint8Array> {
  const { tree, length: outLength } = prepare(options);
  return readSource(source, options?.signal, (iterator) => streamTree(lifecycle, iterator, tree, outLength, options));
}

async function streamTree(
  lifecycle: PoolLifecycle,
  iterator: SourceIterator,
  tree: ModeKey,
  outLength: number,
  options: ParallelOptions | undefined,
): Promise<Uint8Array> {
  const workers = lifecycle.pool();
  if (!workers) return serialStream(iterator, outLength, options);
  const { cvs, length, pieceLength, whole } = await streamOnPool(lifecycle, workers, iterator, tree, options, false);
  if (whole !== undefined) {
    options?.onProgress?.(whole.length);
    return hash(whole, options);
  }
  return rootFromPieces(tree.mode, tree.key, cvs, pieceLength, length, outLength);
}

/** A stream cut into fixed pieces across the pool: each piece's chaining
 * value, or (perChunk) its chunks', and the length; `whole` instead when it
 * ended within its first piece, which stays on this thread. */
async function streamOnPool(
  lifecycle: PoolLifecycle,
  workers: WorkerPool,
  iterator: SourceIterator,
  tree: ModeKey,
  options: AsyncHashOptions | undefined,
  perChunk: boolean,
): Promise<{ cvs: Uint8Array[]; length: number; pieceLength: number; whole: Uint8Array | undefined }> {
  const pieceLength = streamPieceLength(lifecycle.settings);
  const buffers = pieceBuffers(pieceLength, lifecycle.copyShared());
  const small: SmallStream = { whole: undefined };
  const pieces = streamPieces(iterator, pieceLength, buffers, options?.signal, small);
  const { cvs, length } = await runTree(workers, pieces, { hashing: tree, call: options, total: undefined, buffers, perChunk });
  return { cvs, length, pieceLength, whole: small.whole };
}

/** No workers here: the same stream, hashed on this thread. */
async function serialStream(iterator: SourceIterator, outLength: number, options: ParallelOptions | undefined): Promise<Uint8Array> {
  const signal = options?.signal;
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

/** The calling thread's path: `hash()` reads the mode and length from the
 * same options. */
function serialHash(bytes: Uint8Array, options: ParallelOptions | undefined): Uint8Array {
  const digest = hash(bytes, options);
  options?.onProgress?.(bytes.length, bytes.length);
  return digest;
}
