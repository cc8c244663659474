// What the `blake3-kit/bao` entries add to the hashing API, in one list:
// content addressing (Bao, the bao crate's format; iroh's bao-tree, HashSeq,
// CIDs, the subtree API, verified fetches) and batch hashing (hashMany),
// whose wasm exports the hashing entries' modules leave out.

export {
  BLAKE3_MULTIHASH,
  cid,
  cidBytes,
  type CidBase,
  type CidCodec,
  type CidOptions,
  DRISL_CODEC,
  multihash,
  parseCid,
  parseMultihash,
  type ParsedCid,
  RAW_CODEC,
} from './cid.js';
export { baoDecode, baoDecodeOutboard, BaoVerifyError } from './bao/decode.js';
export { type Blake3Multihasher, blake3Multihasher, MultihashDigest, multihashHasher, type MultihashHasherOptions } from './multiformats/hasher.js';
export { baoFetchRange, type BaoFetchOptions } from './bao/fetch.js';
export { baoEncodeStream, type BaoEncodeStreamOptions } from './bao/encode-stream.js';
export { baoEncode, baoEncodedLength, type BaoEncodeOptions, type BaoEncoding } from './bao/encode.js';
export { baoDecodeSlice, baoSlice, baoSliceOutboard } from './bao/slice.js';
export { hashSeq, parseHashSeq } from './bao-tree/hash-seq.js';
export { baoTreeDecodeRangesStream, type VerifiedPiece } from './bao-tree/ranges-stream.js';
export { BaoTreeResponseReader } from './bao-tree/response.js';
export { type HttpByteRange, httpRangeBytes, httpRangeChunks } from './bao-tree/http-range.js';
export { baoTreeDecodeHashSeq, type HashSeqPiece, type HashSeqRanges, type HashSeqResponseOptions } from './bao-tree/hash-seq-response.js';
export { baoDecodeStream, type BaoStreamOptions, type ByteSource } from './bao/stream.js';
export { baoTreeDecodeOutboard, baoTreeOutboard, type BaoTreeOptions } from './bao-tree/outboard.js';
export {
  baoTreeDecodeRanges,
  baoTreeEncodeRanges,
  type BaoTreeEncodeRangesOptions,
  type BaoTreeRangeOptions,
  type ChunkRangeList,
} from './bao-tree/ranges.js';
export { leftSubtreeLength, maxSubtreeLength, mergeSubtrees, mergeSubtreesRoot, subtreeChainingValue, type SubtreeOptions } from './subtree.js';
export { hashMany, type HashManyOptions } from '../many.js';
export { verifiedFetch, type VerifiedFetchOptions } from './verified-fetch/verified-fetch.js';
export type { TreeOptions as VerifiedTreeOptions } from './verified-fetch/options.js';
export {
  createVerifiedFetchHandler,
  type FetchEventLike,
  type VerifiedFetchHandler,
  type VerifiedFetchHandlerOptions,
  type VerifiedTarget,
} from './verified-fetch/handler.js';
