// Bao encoding (the bao crate 0.13's format): the content length as an
// 8-byte little-endian u64, then the tree in pre-order: each parent (left
// CV, right CV) before its subtrees, and, in the combined encoding, each
// leaf's bytes in place. The outboard encoding leaves the content out.

import { HASH_MODE, type ModeKey } from '../../modes.js';
import { checkOptions, type Input, inputBytes } from '../../input.js';
import { treeOps } from '../../tree-ops.js';
import { HEADER_LEN } from './nodes.js';
import { type BlockSize, CHUNK_LEAVES, CHUNK_LEN, CV_LEN, heightOf, leftSubtreeLength, PARENT_LEN } from '../../tree/geometry.js';
import { parentsInPreOrder } from '../../tree/walk.js';

export interface BaoEncodeOptions {
  /** Leave the content out: header and parents only. */
  outboard?: boolean;
}

export interface BaoEncoding {
  /** The encoding (combined, or outboard). */
  encoding: Uint8Array;
  /** The root hash: BLAKE3 of the content. */
  hash: Uint8Array;
}

/** Bytes of the Bao encoding of `length` content bytes (a non-negative
 * safe integer), or of its outboard with `{ outboard: true }`. */
export function baoEncodedLength(length: number, options?: BaoEncodeOptions): number {
  if (typeof length !== 'number') throw new TypeError(`blake3-kit: length must be a number; got ${length === null ? 'null' : typeof length}`);
  if (!Number.isSafeInteger(length) || length < 0) throw new RangeError(`blake3-kit: length must be a non-negative safe integer; got ${length}`);
  checkOptions(options, 'options');
  const outboard = options?.outboard;
  if (outboard !== undefined && typeof outboard !== 'boolean')
    throw new TypeError(`blake3-kit: options.outboard must be a boolean; got ${outboard === null ? 'null' : typeof outboard}`);
  return HEADER_LEN + CHUNK_LEAVES.parentsLength(length) + (options?.outboard ? 0 : length);
}

/** The Bao encoding of `input` and its root hash. */
export function baoEncode(input: Input, options?: BaoEncodeOptions): BaoEncoding {
  checkOptions(options, 'options');
  const content = inputBytes(input, 'input');
  const outboard = options?.outboard === true;
  const encoding = new Uint8Array(baoEncodedLength(content.length, options));
  new DataView(encoding.buffer).setBigUint64(0, BigInt(content.length), true);
  const hash = encodeTree(content, CHUNK_LEAVES, encoding, HEADER_LEN, outboard);
  return { encoding, hash };
}

/**
 * Writes the pre-order tree of `content` (leaves of `block`) into `out`
 * from `start`, with the leaves in place unless `outboard`; returns the root
 * hash. One pass of the backend's (wasm/pre-order.ts, the addon's
 * outboard.rs).
 */
export function encodeTree(
  content: Uint8Array,
  block: BlockSize,
  out: Uint8Array,
  start: number,
  outboard: boolean,
  hashing: ModeKey = HASH_MODE,
): Uint8Array {
  return treeOps().preOrder(hashing.mode, hashing.key, content, out.subarray(start), {
    chunkLog: block.chunkLog,
    combined: !outboard,
    root: true,
    firstChunk: 0,
  });
}

/**
 * Writes the parents of a tree over `length` bytes from its `levels` into
 * `out` from `start`, in pre-order, with the leaves of `content` in place
 * when it is given. The values copied as 32-bit words where everything is
 * aligned (always, for the encodings made here): copying bytes, the walk
 * took 2.8 of 12.5 ms of a 16 MiB outboard encode (--cpu-prof, wasm-simd).
 */
export function writePreOrder(levels: Uint8Array[], length: number, block: BlockSize, out: Uint8Array, start: number, content?: Uint8Array): void {
  const aligned = out.byteOffset % 4 === 0 && start % 4 === 0 && levels.every((level) => level.byteOffset % 4 === 0);
  const outWords = aligned ? new Uint32Array(out.buffer, out.byteOffset, out.length >> 2) : undefined;
  const levelWords = aligned ? levels.map((level) => new Uint32Array(level.buffer, level.byteOffset, level.length >> 2)) : undefined;
  let cursor = start;
  const copyValue = (first: number, chunks: number): void => {
    // A subtree of `chunks` chunks from chunk `first` is at level
    // heightOf(chunks), at index first / 2^level (levels.ts).
    const height = heightOf(chunks);
    const index = Math.floor(first / 2 ** height);
    if (outWords !== undefined) {
      const words = levelWords![height]!;
      const to = cursor >> 2;
      const from = 8 * index;
      for (let i = 0; i < 8; i++) outWords[to + i] = words[from + i]!;
      cursor += CV_LEN;
      return;
    }
    const level = levels[height]!;
    for (let i = 0; i < 32; i++) out[cursor++] = level[32 * index + i]!;
  };
  // The k-th parent (from 0) at content byte `offset` goes after k parents
  // and, in a combined encoding, `offset` content bytes; the leaves fill the gaps.
  const count = Math.max(0, block.leaves(length) - 1);
  const offsets = new Float64Array(count);
  const sizes = new Float64Array(count);
  parentsInPreOrder(block, length, offsets, sizes);
  let copied = 0;
  for (let parents = 0; parents < count; parents++) {
    const offset = offsets[parents]!;
    const size = sizes[parents]!;
    const left = leftSubtreeLength(size);
    cursor = start + parents * PARENT_LEN;
    if (content !== undefined) {
      if (offset > copied) out.set(content.subarray(copied, offset), cursor + copied);
      copied = offset;
      cursor += offset;
    }
    const first = offset / CHUNK_LEN;
    const leftChunks = left / CHUNK_LEN;
    copyValue(first, leftChunks);
    copyValue(first + leftChunks, Math.ceil(size / CHUNK_LEN) - leftChunks);
  }
  if (content !== undefined && length > copied) out.set(content.subarray(copied, length), start + count * PARENT_LEN + copied);
}
