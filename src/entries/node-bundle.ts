// Entry point for Node when a bundler resolves 'blake3-kit' (the `module`
// export condition, which esbuild, webpack and Rollup use and Node does
// not): the same API as node.ts, with both wasm flavours and the worker
// script inside (node/embedded.ts), so that a one-file bundle runs with
// nothing beside it.

import type { Blake3 } from '../api.js';
import { initNode, type NodeInitOptions } from '../node/backend.js';
import { embeddedFiles } from '../node/embedded.js';

export * from './node-exports.js';

/** Loads a backend once (later calls return the same result) and resolves
 * to the synchronous API. See NodeInitOptions and BLAKE3_KIT_BACKEND. */
export function init(options?: NodeInitOptions): Promise<Blake3> {
  return initNode(embeddedFiles, options);
}
