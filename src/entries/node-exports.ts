// What every Node entry exports (node.ts, and node-bundle.ts for bundlers):
// the API of every platform, plus the native addon (backend.ts), files and
// Node streams, and hashing workers as worker_threads (parallel.ts). Each
// entry adds init() over the package's files as it finds them (packaged.ts,
// backend.ts's initNode).

import { nativeInUse } from '../backend.js';
import type { Input } from '../input.js';
import { nativeHashBlob, nativeHashParallel, nativeHashStream } from '../node/native-async.js';
import { addon } from '../native/addon.js';
import type { ParallelOptions, ParallelSettings } from '../parallel/api.js';
import type { StreamSource } from '../stream-source.js';
import { nodeParallel } from '../node/parallel.js';

export * from '../api.js';
export type { NodeInitOptions } from '../node/backend.js';
export { nativeStatus, type NativeStatus } from '../native/addon.js';
/** @deprecated The one Hasher, under the name it had when only it had
 * updateAsync and updateFromFd: every Hasher has them where the backend can
 * (see Hasher.supports). */
export { Hasher as NativeHasher } from '../hasher.js';
/** The one XofReader, under the name it had when native readers were their own class. */
export { XofReader as NativeXofReader } from '../hasher.js';
export { nativeThreshold } from '../node/routing.js';
export { FileTruncatedError, hashFile, type HashFileOptions, updateFromFile, type UpdateFromFileOptions } from '../node/file.js';
export { HashSink, HashTransform } from '../node/stream.js';
export type { ParallelOptions, ParallelSettings } from '../parallel/api.js';

// Where the addon is in use, the official crate's own threads (rayon) hash
// large inputs: 1.97x on 2 cores against 1.55-1.90x for wasm workers
// (bench/parallel/node.mjs). The wasm workers serve wasm-only set-ups.

/** BLAKE3 of an in-memory input, using every core for large ones. */
export function hashParallel(input: Input, options?: ParallelOptions): Promise<Uint8Array> {
  return nativeInUse() ? nativeHashParallel(input, options) : nodeParallel.hashParallel(input, options);
}

/** BLAKE3 of a Blob or File. */
export function hashBlob(blob: Blob, options?: ParallelOptions): Promise<Uint8Array> {
  return nativeInUse() ? nativeHashBlob(blob, options) : nodeParallel.hashBlob(blob, options);
}

/** BLAKE3 of a Node Readable, web ReadableStream or async iterable of bytes. */
export function hashStream(source: StreamSource, options?: ParallelOptions): Promise<Uint8Array> {
  return nativeInUse() ? nativeHashStream(source, options) : nodeParallel.hashStream(source, options);
}

/** Pool size (also the native thread count), threshold or worker URL. */
export function configureParallel(settings: ParallelSettings): void {
  nodeParallel.configureParallel(settings);
  if (addon !== undefined && settings.workers !== undefined) addon.setThreads(settings.workers);
}

export const { startWorkers, terminateWorkers, parallelStatus } = nodeParallel;
