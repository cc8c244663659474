// Bao encoding (the bao crate 0.13's format): the content length as an
// 8-byte little-endian u64, then the tree in pre-order: each parent (left
// CV, right CV) before its subtrees, and, in the combined encoding, each
// leaf's bytes in place. The outboard encoding leaves the content out.

import { HASH_MODE, type ModeKey } from '../modes.js';
import { checkOptions, toBytes, type Input } from '../input.js';
import { treeOps } from '../tree-ops.js';
import { blockLength, HEADER_LEN, parentsLength } from './tree.js';
import { CHUNK_LEN } from '../tree/geometry.js';

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

const encoder = new TextEncoder();

/** Bytes of the Bao encoding of `length` content bytes (a non-negative
 * safe integer), or of its outboard with `{ outboard: true }`. */
export function baoEncodedLength(length: number, options?: BaoEncodeOptions): number {
  if (typeof length !== 'number') throw new TypeError(`blake3-kit: length must be a number; got ${length === null ? 'null' : typeof length}`);
  if (!Number.isSafeInteger(length) || length < 0) throw new RangeError(`blake3-kit: length must be a non-negative safe integer; got ${length}`);
  checkOptions(options, 'options');
  const outboard = options?.outboard;
  if (outboard !== undefined && typeof outboard !== 'boolean')
    throw new TypeError(`blake3-kit: options.outboard must be a boolean; got ${outboard === null ? 'null' : typeof outboard}`);
  return HEADER_LEN + parentsLength(length, blockLength(0)) + (options?.outboard ? 0 : length);
}

/** The Bao encoding of `input` and its root hash. */
export function baoEncode(input: Input, options?: BaoEncodeOptions): BaoEncoding {
  checkOptions(options, 'options');
  const content = typeof input === 'string' ? encoder.encode(input) : toBytes(input, 'input');
  const outboard = options?.outboard === true;
  const encoding = new Uint8Array(baoEncodedLength(content.length, options));
  new DataView(encoding.buffer).setBigUint64(0, BigInt(content.length), true);
  const hash = encodeTree(content, blockLength(0), encoding, HEADER_LEN, outboard);
  return { encoding, hash };
}

/**
 * Writes the pre-order tree of `content` (leaves of `block` bytes) into
 * `out` from `start`, with the leaves in place unless `outboard`; returns
 * the root hash. One pass of the backend's (wasm/pre-order.ts, the addon's
 * outboard.rs).
 */
export function encodeTree(
  content: Uint8Array,
  block: number,
  out: Uint8Array,
  start: number,
  outboard: boolean,
  hashing: ModeKey = HASH_MODE,
): Uint8Array {
  return treeOps().preOrder(hashing.mode, hashing.key, content, 0, Math.log2(block / CHUNK_LEN), !outboard, true, out.subarray(start));
}

/**
 * Writes the parents of a tree over `length` bytes from its `levels` into
 * `out` from `start`, in pre-order, with the leaves of `content` in place
 * when it is given. In whole chunks and bit arithmetic, the values copied as
 * 32-bit words where everything is aligned (always, for the encodings made
 * here): the walk by byte offsets, copying bytes, took 2.8 of 12.5 ms of a
 * 16 MiB outboard encode (--cpu-prof, wasm-simd).
 */
export function writePreOrder(levels: Uint8Array[], length: number, block: number, out: Uint8Array, start: number, content?: Uint8Array): void {
  const blockChunks = block / CHUNK_LEN;
  const aligned = out.byteOffset % 4 === 0 && start % 4 === 0 && levels.every((level) => level.byteOffset % 4 === 0);
  const outWords = aligned ? new Uint32Array(out.buffer, out.byteOffset, out.length >> 2) : undefined;
  const levelWords = aligned ? levels.map((level) => new Uint32Array(level.buffer, level.byteOffset, level.length >> 2)) : undefined;
  let cursor = start;
  const copyValue = (first: number, chunks: number): void => {
    // A subtree of `chunks` chunks from chunk `first` is at level
    // ceil(log2(chunks)), at index first / 2^level (levels.ts).
    const height = chunks === 1 ? 0 : 32 - Math.clz32(chunks - 1);
    const index = Math.floor(first / 2 ** height);
    if (outWords !== undefined) {
      const words = levelWords![height]!;
      const to = cursor >> 2;
      const from = 8 * index;
      for (let i = 0; i < 8; i++) outWords[to + i] = words[from + i]!;
      cursor += 32;
      return;
    }
    const level = levels[height]!;
    for (let i = 0; i < 32; i++) out[cursor++] = level[32 * index + i]!;
  };
  // `chunks` chunks from chunk `first`, `size` bytes (the last chunk may be short).
  const subtree = (first: number, chunks: number, size: number): void => {
    if (chunks <= blockChunks) {
      if (content !== undefined) {
        out.set(content.subarray(first * CHUNK_LEN, first * CHUNK_LEN + size), cursor);
        cursor += size;
      }
      return;
    }
    const left = 2 ** (31 - Math.clz32(chunks - 1)); // the largest power of two below `chunks`
    copyValue(first, left);
    copyValue(first + left, chunks - left);
    // An outboard has nothing to write for a leaf: no call for one.
    if (content !== undefined || left > blockChunks) subtree(first, left, left * CHUNK_LEN);
    if (content !== undefined || chunks - left > blockChunks) subtree(first + left, chunks - left, size - left * CHUNK_LEN);
  };
  subtree(0, Math.max(1, Math.ceil(length / CHUNK_LEN)), length);
}
