// Entry point for Node: the wasm files are read from disk next to dist/, and
// hashing workers are worker_threads running dist/worker-node.js
// (node/parallel.ts).

import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { apiFor, type Blake3 } from './api.js';
import { initWith, type InitOptions, type Platform } from './load.js';
import { nodeParallel } from './node/parallel.js';

export * from './api.js';
export { FileTruncatedError, hashFile } from './node/file.js';
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

/** Hashes large inputs across worker_threads; see the README. */
export const { hashParallel, hashBlob, hashStream, configureParallel, terminateWorkers, parallelStatus } = nodeParallel;

/** Loads the wasm core once (later calls return the same result) and
 * resolves to the synchronous API. */
export function init(options?: InitOptions): Promise<Blake3> {
  return initWith(nodePlatform, options).then(apiFor);
}
