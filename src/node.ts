// Entry point for Node: the API of every platform, plus the native addon
// (node/backend.ts), files and Node streams, and hashing workers as
// worker_threads running dist/worker-node.js (node/parallel.ts).

import type { Blake3 } from './api.js';
import { initBackend, nativeInUse } from './backend.js';
import type { Input } from './input.js';
import { nativeHashBlob, nativeHashParallel, nativeHashStream } from './native/async.js';
import { addon } from './native/addon.js';
import { nodePlatform, type NodeInitOptions } from './node/backend.js';
import { nodeParallel } from './node/parallel.js';
import type { ParallelOptions, ParallelSettings } from './parallel/api.js';
import type { StreamSource } from './stream-source.js';

export * from './api.js';
export type { NodeInitOptions } from './node/backend.js';
export { nativeStatus, type NativeStatus } from './native/addon.js';
/** @deprecated The one Hasher, under the name it had when only it had
 * updateAsync and updateFromFd: every Hasher has them where the backend can
 * (see Hasher.supports). */
export { Hasher as NativeHasher } from './hasher.js';
/** The one XofReader, under the name it had when native readers were their own class. */
export { XofReader as NativeXofReader } from './hasher.js';
export { nativeThreshold } from './node/routing.js';
export { FileTruncatedError, hashFile, type HashFileOptions, updateFromFile, type UpdateFromFileOptions } from './node/file.js';
export { HashSink, HashTransform } from './node/stream.js';
export type { ParallelOptions, ParallelSettings } from './parallel/api.js';

// Relative to this file, which is dist/node.js once bundled.
const platform = nodePlatform({
  wasm: (flavour) => new URL(`../wasm/blake3-kit-${flavour}.wasm`, import.meta.url),
  // Bundled as CommonJS, import.meta.url is empty and this throws, which
  // must fail the native load (with the reason), not the import.
  localAddon: () => new URL(`../native/blake3-kit.${process.platform}-${process.arch}.node`, import.meta.url),
});

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

/** Loads a backend once (later calls return the same result) and resolves
 * to the synchronous API. See NodeInitOptions and BLAKE3_KIT_BACKEND. */
export function init(options?: NodeInitOptions): Promise<Blake3> {
  return initBackend(platform, options);
}
