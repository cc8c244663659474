// Entry point `blake3-kit/bao` for browsers and bundlers: everything
// 'blake3-kit' exports, plus content addressing (Bao, iroh's bao-tree,
// HashSeq, CIDs, subtrees) and batch hashing, over the wasm module with every
// export. Apps that only hash import 'blake3-kit' and download the smaller
// module without these.

import type { Blake3 } from './api.js';
import { initBackend, type InitOptions } from './backend.js';
import { baoEncodeOn, type BaoEncodeParallelOptions } from './bao/encode-parallel.js';
import type { BaoEncoding } from './bao/encode.js';
import type { Input } from './input.js';
import { browserParallel } from './parallel/browser.js';
import type { StreamSource } from './stream-source.js';
import type { Platform } from './wasm/load.js';
import { withTreeExports } from './wasm/widen.js';

export * from './browser.js';
export * from './addressing.js';
export type { BaoEncodeParallelOptions } from './bao/encode-parallel.js';

const platform: Platform = {
  defaultSource: (flavour) =>
    flavour === 'simd' ? new URL('../wasm/blake3-kit-simd.wasm', import.meta.url) : new URL('../wasm/blake3-kit-scalar.wasm', import.meta.url),
  load: (location) => fetch(location),
};

/** Loads the wasm module once (later calls return the same result; after
 * init() from 'blake3-kit', it replaces that entry's smaller module while no
 * hasher holds state in it) and resolves to the synchronous API. */
export function init(options?: InitOptions): Promise<Blake3> {
  return withTreeExports(initBackend(platform, options), platform, options);
}

/** The Bao encoding of a large input, its chunks hashed across Web Workers. */
export function baoEncodeParallel(input: Input | Blob | StreamSource, options?: BaoEncodeParallelOptions): Promise<BaoEncoding> {
  return baoEncodeOn(browserParallel(), input, options);
}
