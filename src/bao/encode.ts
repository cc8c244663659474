// Bao encoding (the bao crate 0.13's format): the content length as an
// 8-byte little-endian u64, then the tree in pre-order: each parent (left
// CV, right CV) before its subtrees, and, in the combined encoding, each
// leaf's bytes in place. The outboard encoding leaves the content out.

import { checkOptions, toBytes, type Input } from '../input.js';
import { blockLength, HEADER_LEN, leafChainingValue, leafRootHash, leftLength, PARENT_LEN, parentChainingValue, parentsLength } from './tree.js';

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
 * `out` from `start`; returns the root hash. A parent's place is kept while
 * its subtrees are written, then filled with their chaining values.
 */
export function encodeTree(content: Uint8Array, block: number, out: Uint8Array, start: number, outboard: boolean): Uint8Array {
  let cursor = start;
  const subtree = (offset: number, size: number, root: boolean): Uint8Array => {
    if (size <= block) {
      const leaf = content.subarray(offset, offset + size);
      if (!outboard) {
        out.set(leaf, cursor);
        cursor += size;
      }
      return root ? leafRootHash(leaf) : leafChainingValue(leaf, offset);
    }
    const parent = cursor;
    cursor += PARENT_LEN;
    const left = leftLength(size);
    out.set(subtree(offset, left, false), parent);
    out.set(subtree(offset + left, size - left, false), parent + 32);
    return parentChainingValue(out.subarray(parent, parent + PARENT_LEN), root);
  };
  return subtree(0, content.length, true);
}
