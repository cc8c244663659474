// Entry point for Node: the wasm files are read from disk next to dist/, the
// optional native addon from native/ (node/backend.ts picks the backend), and
// hashing workers are worker_threads running dist/worker-node.js
// (node/parallel.ts).

import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import type { Blake3 } from './api.js';
import type { Input } from './input.js';
import type { Platform } from './wasm/load.js';
import { nativeHashBlob, nativeHashParallel, nativeHashStream } from './native/async.js';
import { addon } from './native/addon.js';
import { initNode, nativeInUse, type NodeInitOptions } from './node/backend.js';
import { nodeParallel } from './node/parallel.js';
import type { ParallelOptions, ParallelSettings } from './parallel/api.js';
import type { StreamSource } from './stream-source.js';

export * from './api.js';
export { backend, deriveKey, hash, keyedHash, type BackendChoice, type NodeInitOptions } from './node/backend.js';
export { nativeStatus, type NativeStatus } from './native/addon.js';
export { NativeHasher } from './native/hasher.js';
/** The one XofReader, under the name it had when native readers were their own class. */
export { XofReader as NativeXofReader } from './hasher.js';
export { nativeThreshold } from './node/routing.js';
export { FileTruncatedError, hashFile, type HashFileOptions } from './node/file.js';
export { HashSink, HashTransform } from './node/stream.js';
export type { ParallelOptions, ParallelSettings } from './parallel/api.js';

const URL_SCHEME = /^[a-z][a-z0-9+.-]+:/i; // at least two letters: not a drive

const nodePlatform: Platform = {
  defaultSource: (flavour) => new URL(`../wasm/blake3-kit-${flavour}.wasm`, import.meta.url),
  async load(location) {
    const url = location instanceof URL ? location : URL_SCHEME.test(location) ? new URL(location) : pathToFileURL(location);
    if (url.protocol === 'file:') return readFile(url);
    return fetch(url);
  },
};

/** The addon that `npm run build:native` builds for this platform. */
const packagedAddon = new URL(`../native/blake3-kit.${process.platform}-${process.arch}.node`, import.meta.url);

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

export const { terminateWorkers, parallelStatus } = nodeParallel;

/** Loads a backend once (later calls return the same result) and resolves
 * to the synchronous API. See NodeInitOptions and BLAKE3_KIT_BACKEND. */
export function init(options?: NodeInitOptions): Promise<Blake3> {
  return initNode(nodePlatform, packagedAddon, options);
}
