// Verifying Bao decoders over whole buffers. Every parent is checked before
// its children are read, every leaf before its bytes are copied out, and
// nothing (not even the length, which only the final leaf vouches for) is
// returned until the whole tree is verified.

import { toBytes } from '../input.js';
import { equal } from './equal.js';
import { MODE_HASH } from '../modes.js';
import { treeOps } from '../tree-ops.js';
import { blockLength, CHUNK_LEN, HEADER_LEN, leftLength, PARENT_LEN, parentsLength } from './tree.js';

/** The encoding does not match the hash, or is malformed (truncated, extra
 * bytes, a length header that disagrees with it). */
export class BaoVerifyError extends Error {
  readonly code = 'ERR_BAO_VERIFY';
  constructor(message: string) {
    super(`blake3-kit: ${message}`);
    this.name = 'BaoVerifyError';
  }
}

/** The content length in a Bao header (unverified). */
export function readHeader(bytes: Uint8Array, what: string): number {
  if (bytes.length < HEADER_LEN) throw new BaoVerifyError(`${what} is shorter than its 8-byte header`);
  const length = new DataView(bytes.buffer, bytes.byteOffset, HEADER_LEN).getBigUint64(0, true);
  if (length > BigInt(Number.MAX_SAFE_INTEGER)) throw new BaoVerifyError(`${what} declares more content than fits in memory`);
  return Number(length);
}

export function checkHash(hash: unknown): Uint8Array {
  const bytes = toBytes(hash, 'hash');
  if (bytes.length !== 32) throw new RangeError(`blake3-kit: hash must be 32 bytes; got ${bytes.length}`);
  return bytes;
}

/** The content of a combined Bao encoding, verified against `hash`. */
export function baoDecode(encoding: ArrayBufferView | ArrayBufferLike, hash: ArrayBufferView | ArrayBufferLike): Uint8Array {
  const bytes = toBytes(encoding, 'encoding');
  const root = checkHash(hash);
  const length = readHeader(bytes, 'encoding');
  const block = blockLength(0);
  if (bytes.length !== HEADER_LEN + parentsLength(length, block) + length) {
    throw new BaoVerifyError(`encoding is ${bytes.length} bytes, which its length header does not account for`);
  }
  return verifySubtree(bytes, HEADER_LEN, 0, length, root, true, undefined).content;
}

/** `content`, verified against `hash` with its Bao outboard encoding. */
export function baoDecodeOutboard(
  content: ArrayBufferView | ArrayBufferLike,
  outboard: ArrayBufferView | ArrayBufferLike,
  hash: ArrayBufferView | ArrayBufferLike,
): Uint8Array {
  const data = toBytes(content, 'content');
  const tree = toBytes(outboard, 'outboard');
  const root = checkHash(hash);
  const length = readHeader(tree, 'outboard');
  const block = blockLength(0);
  if (length !== data.length || tree.length !== HEADER_LEN + parentsLength(length, block)) {
    throw new BaoVerifyError('content and outboard do not agree with the length header');
  }
  return verifySubtree(tree, HEADER_LEN, 0, length, root, true, data).content;
}

/**
 * Verifies a pre-order encoded subtree: `size` content bytes at input byte
 * `offset`, encoded in `tree` from `start` (leaves in place, or, for an
 * outboard, the subtree's own bytes in `content`), against `expected` (the root hash if `isRoot`, else the
 * subtree's chaining value). Its whole tree is computed in one batched pass,
 * then its top and every stored parent are compared with it. Returns a copy
 * of the content and where the encoding of the subtree ends.
 */
export function verifySubtree(
  tree: Uint8Array,
  start: number,
  offset: number,
  size: number,
  expected: Uint8Array,
  isRoot: boolean,
  content: Uint8Array | undefined,
): { content: Uint8Array; end: number } {
  const block = blockLength(0);
  const out = content === undefined ? new Uint8Array(size) : content.slice(0, size);
  const parents: number[] = [];
  let cursor = start;
  const walk = (at: number, length: number): void => {
    if (length <= block) {
      if (content === undefined) out.set(tree.subarray(cursor, (cursor += length)), at);
      return;
    }
    parents.push(cursor, at, length);
    cursor += PARENT_LEN;
    const left = leftLength(length);
    walk(at, left);
    walk(at + left, length - left);
  };
  walk(0, size);
  // The backend computes every parent in one pass; they are compared here
  // in pre-order, as stored.
  const found = new Uint8Array((parents.length / 3) * PARENT_LEN);
  const top = treeOps().preOrder(MODE_HASH, undefined, out, offset / CHUNK_LEN, 0, false, isRoot, found);
  if (!equal(top, expected)) throw new BaoVerifyError(`the content from byte ${offset} does not match the hash`);
  for (let i = 0; i < parents.length; i += 3) {
    if (!sameBytes(tree, parents[i]!, found, (i / 3) * PARENT_LEN, PARENT_LEN)) {
      throw new BaoVerifyError(`the tree node above byte ${offset + parents[i + 1]!} does not match the hash`);
    }
  }
  return { content: out, end: cursor };
}

/** Whether `count` bytes of `a` from `atA` equal those of `b` from `atB`. */
export function sameBytes(a: Uint8Array, atA: number, b: Uint8Array, atB: number, count: number): boolean {
  let difference = 0;
  for (let i = 0; i < count; i++) difference |= a[atA + i]! ^ b[atB + i]!;
  return difference === 0;
}
