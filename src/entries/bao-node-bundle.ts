// Entry point `blake3-kit/bao` for Node when a bundler resolves it (the
// `module` export condition): bao-node.ts with the wasm and the worker
// script inside (node/embedded.ts).

import type { Blake3 } from '../api.js';
import { initNode, type NodeInitOptions } from '../node/backend.js';
import { embeddedFiles } from '../node/embedded.js';

export * from './bao-node-exports.js';

/** Loads a backend once (later calls return the same result) and resolves
 * to the synchronous API. See NodeInitOptions and BLAKE3_KIT_BACKEND. */
export function init(options?: NodeInitOptions): Promise<Blake3> {
  return initNode(embeddedFiles, options);
}
