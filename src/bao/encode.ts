// Bao encoding (the bao crate 0.13's format): the content length as an
// 8-byte little-endian u64, then the tree in pre-order: each parent (left
// CV, right CV) before its subtrees, and, in the combined encoding, each
// leaf's bytes in place. The outboard encoding leaves the content out.

import { checkOptions, toBytes, type Input } from '../input.js';
import { treeLevels, writeParent } from './levels.js';
import { blockLength, HEADER_LEN, leftLength, PARENT_LEN, parentsLength } from './tree.js';

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

/** Bytes of the Bao encoding of `length` content bytes. */
export function baoEncodedLength(length: number, options?: BaoEncodeOptions): number {
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
 * the root hash. The chaining values all come from one batched pass.
 */
export function encodeTree(content: Uint8Array, block: number, out: Uint8Array, start: number, outboard: boolean): Uint8Array {
  const { levels, top } = treeLevels(content);
  writePreOrder(levels, content.length, block, out, start, outboard ? undefined : content);
  return top;
}

/** Writes the parents of a tree over `length` bytes from its `levels` into
 * `out` from `start`, in pre-order, with the leaves of `content` in place
 * when it is given. */
export function writePreOrder(levels: Uint8Array[], length: number, block: number, out: Uint8Array, start: number, content?: Uint8Array): void {
  let cursor = start;
  const subtree = (offset: number, size: number): void => {
    if (size <= block) {
      if (content !== undefined) out.set(content.subarray(offset, offset + size), cursor);
      if (content !== undefined) cursor += size;
      return;
    }
    const left = leftLength(size);
    writeParent(levels, offset, size, left, out, cursor);
    cursor += PARENT_LEN;
    subtree(offset, left);
    subtree(offset + left, size - left);
  };
  subtree(0, length);
}
