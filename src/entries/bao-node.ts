// Entry point `blake3-kit/bao` for Node (bao-node-exports.ts), with the
// package's files beside it. Bundlers get bao-node-bundle.ts instead, by
// the `module` export condition.

import type { Blake3 } from '../api.js';
import { initNode, type NodeInitOptions } from '../node/backend.js';
import { filesBeside } from '../node/packaged.js';

export * from './bao-node-exports.js';

const files = filesBeside(import.meta.url);

/** Loads a backend once (later calls return the same result) and resolves
 * to the synchronous API. See NodeInitOptions and BLAKE3_KIT_BACKEND. */
export function init(options?: NodeInitOptions): Promise<Blake3> {
  return initNode(files, options);
}
