// Entry point for Node: the wasm files are read from disk next to dist/.

import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { apiFor, type Blake3 } from './api.js';
import { initWith, type InitOptions, type Platform } from './load.js';

export * from './api.js';
export { FileTruncatedError, hashFile } from './node/file.js';
export { HashSink, HashTransform, hashStream } from './node/stream.js';
export type { AsyncHashOptions } from './node/progress-options.js';

const URL_SCHEME = /^[a-z][a-z0-9+.-]+:/i; // at least two letters: not a drive

const nodePlatform: Platform = {
  defaultSource: (flavour) => new URL(`../wasm/blake3-kit-${flavour}.wasm`, import.meta.url),
  async load(location) {
    const url = location instanceof URL ? location : URL_SCHEME.test(location) ? new URL(location) : pathToFileURL(location);
    if (url.protocol === 'file:') return readFile(url);
    return fetch(url);
  },
};

/** Loads the wasm core once (later calls return the same result) and
 * resolves to the synchronous API. */
export function init(options?: InitOptions): Promise<Blake3> {
  return initWith(nodePlatform, options).then(apiFor);
}
