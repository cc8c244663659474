// The platform-neutral public API. The entry points (node.ts, browser.ts)
// add `init`, which needs to know how to fetch the wasm file.

import { Hasher, XofReader, createHasher } from './hasher.js';
import { toHex } from './hex.js';
import { core } from './wasm/core.js';
import { deriveKey, hash, keyedHash } from './wasm/hash.js';
import type { Backend } from './wasm/load.js';

export { backend, backendStatus, deriveKey, hash, keyedHash, type BackendChoice, type BackendStatus, type InitOptions } from './backend.js';
export type { BlockChoice, BlockCode } from './wasm/blocks.js';

export { Hasher, XofReader, createHasher } from './hasher.js';
export { toHex } from './hex.js';
export { hashMany, type HashManyOptions } from './many.js';
export { BLAKE3_MULTIHASH, cid, cidBytes, type CidBase, equal, multihash, parseCid, parseMultihash, type ParsedCid, RAW_CODEC } from './cid.js';
export { baoDecode, baoDecodeOutboard, BaoVerifyError } from './bao/decode.js';
export { baoFetchRange, type BaoFetchOptions } from './bao/fetch.js';
export { baoEncodeStream, type BaoEncodeStreamOptions } from './bao/encode-stream.js';
export { baoEncode, baoEncodedLength, type BaoEncodeOptions, type BaoEncoding } from './bao/encode.js';
export { baoDecodeSlice, baoSlice, baoSliceOutboard } from './bao/slice.js';
export { hashSeq, parseHashSeq } from './bao/hash-seq.js';
export { baoTreeDecodeRangesStream, type VerifiedPiece } from './bao/tree-ranges-stream.js';
export { baoDecodeStream, type BaoStreamOptions, type ByteSource } from './bao/stream.js';
export { baoTreeDecodeOutboard, baoTreeOutboard, type BaoTreeOptions } from './bao/tree-outboard.js';
export {
  baoTreeDecodeRanges,
  baoTreeEncodeRanges,
  type BaoTreeEncodeRangesOptions,
  type BaoTreeRangeOptions,
  type ChunkRangeList,
} from './bao/tree-ranges.js';
export { leftSubtreeLength, maxSubtreeLength, mergeSubtrees, mergeSubtreesRoot, subtreeChainingValue, type SubtreeOptions } from './subtree.js';
export { MAX_OUTPUT_LENGTH, type AsyncHashOptions, type HashOptions, type Input, type KeyOption, type LengthOption } from './input.js';
export { simdSupported, type Backend, type Flavour, type WasmBackend, type WasmSource } from './wasm/load.js';

/** A streaming hasher (kept as a name for the one Hasher class). */
export type Blake3Hasher = Hasher;
/** An extended-output reader (kept as a name for the one XofReader class). */
export type Blake3XofReader = XofReader;

/** The one-shot functions a backend provides. */
export interface OneShots {
  readonly hash: typeof hash;
  readonly keyedHash: typeof keyedHash;
  readonly deriveKey: typeof deriveKey;
}

/** What `init()` resolves to: the synchronous API and the backend chosen.
 * `Hasher`, `XofReader` and `createHasher` are the same in every backend;
 * a new hasher takes the state of the backend in use. */
export interface Blake3 extends OneShots {
  readonly backend: Backend;
  readonly createHasher: typeof createHasher;
  readonly Hasher: typeof Hasher;
  readonly XofReader: typeof XofReader;
  readonly toHex: typeof toHex;
}

export const wasmOneShots: OneShots = { hash, keyedHash, deriveKey };

export function apiFor(active: Backend, oneShots: OneShots = wasmOneShots): Blake3 {
  return Object.freeze({ backend: active, ...oneShots, createHasher, Hasher, XofReader, toHex });
}

/** Diagnostics for tests and leak hunting: the wasm slots hashers and
 * readers hold (at most 4,096; any more keep their state in JS memory) and
 * the wasm memory size in bytes. */
export function memoryStats(): { liveHashers: number; memoryBytes: number } | undefined {
  if (core === undefined) return undefined;
  return { liveHashers: core.slots_in_use(), memoryBytes: core.memory.buffer.byteLength };
}
