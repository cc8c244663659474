// Entry point `blake3-kit/bao` for browsers and bundlers: everything
// 'blake3-kit' exports (its init() and wasm module included: one module for
// both entries), plus content addressing (Bao, iroh's bao-tree, HashSeq,
// CIDs, subtrees) and batch hashing.

import { baoEncodeOn, type BaoEncodeParallelOptions } from '../addressing/bao/encode-parallel.js';
import type { BaoEncoding } from '../addressing/bao/encode.js';
import { baoTreeOutboardOn, type BaoTreeOutboardParallelOptions } from '../addressing/bao-tree/outboard-parallel.js';
import type { Input } from '../input.js';
import { browserParallel } from '../parallel/browser.js';
import type { StreamSource } from '../stream-source.js';

export * from './browser.js';
export * from '../addressing/index.js';
export type { BaoEncodeParallelOptions } from '../addressing/bao/encode-parallel.js';
export type { BaoTreeOutboardParallelOptions } from '../addressing/bao-tree/outboard-parallel.js';

/** The Bao encoding of a large input, its chunks hashed across Web Workers. */
export function baoEncodeParallel(input: Input | Blob | StreamSource, options?: BaoEncodeParallelOptions): Promise<BaoEncoding> {
  return baoEncodeOn(browserParallel(), input, options);
}

/** The bao-tree outboard and root hash of a large input (a picked File,
 * say: what an app stores beside it for verifiedFetch), its chunks hashed
 * across Web Workers. */
export function baoTreeOutboardParallel(
  input: Input | Blob | StreamSource,
  options?: BaoTreeOutboardParallelOptions,
): Promise<{ outboard: Uint8Array; hash: Uint8Array }> {
  return baoTreeOutboardOn(browserParallel(), input, options);
}
