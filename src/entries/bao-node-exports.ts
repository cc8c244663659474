// What every Node entry of `blake3-kit/bao` exports (bao-node.ts, and
// bao-node-bundle.ts for bundlers): everything 'blake3-kit' exports, plus
// content addressing (Bao, iroh's bao-tree, HashSeq, CIDs, subtrees) and
// batch hashing. In Node both entries load the module with every export
// (a file read, not a download), so one init() serves both.

import { baoEncodeOn, type BaoEncodeParallelOptions } from '../addressing/bao/encode-parallel.js';
import type { BaoEncoding } from '../addressing/bao/encode.js';
import { baoTreeOutboardOn, type BaoTreeOutboardParallelOptions } from '../addressing/bao-tree/outboard-parallel.js';
import type { Input } from '../input.js';
import type { StreamSource } from '../stream-source.js';
import { nodeParallel } from '../node/parallel.js';

export * from './node-exports.js';
export * from '../addressing/index.js';
export type { BaoEncodeParallelOptions } from '../addressing/bao/encode-parallel.js';
export type { BaoTreeOutboardParallelOptions } from '../addressing/bao-tree/outboard-parallel.js';

/** The Bao encoding of a large input, its chunks hashed across
 * worker_threads (wasm workers on every backend: the addon hashes a chunk
 * at a time through upstream's hazmat, slower than the workers' lanes). */
export function baoEncodeParallel(input: Input | Blob | StreamSource, options?: BaoEncodeParallelOptions): Promise<BaoEncoding> {
  return baoEncodeOn(nodeParallel, input, options);
}

/** The bao-tree outboard and root hash of a large input (a picked File,
 * say: what an app stores beside it for verifiedFetch), its chunks hashed
 * across worker_threads. */
export function baoTreeOutboardParallel(
  input: Input | Blob | StreamSource,
  options?: BaoTreeOutboardParallelOptions,
): Promise<{ outboard: Uint8Array; hash: Uint8Array }> {
  return baoTreeOutboardOn(nodeParallel, input, options);
}
