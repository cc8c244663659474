// Bao slices: the header, then the parents and leaves on the paths to a byte
// range, in pre-order. A slice verifies on its own against the root hash, so
// an untrusted server can send part of a file. As the bao crate does, a
// length of 0 counts as 1, and a start at or past the end asks for the final
// chunk, so every slice proves the content length too.
//
// baoDecodeSlice verifies a copy of the slice (made before anything is
// hashed) and returns bytes of that copy: the caller's slice may change
// during the call without a changed byte being passed on. Slices are small
// (a range and its path), so the one copy in and the one out are cheap.

import { toBytes } from '../../input.js';
import { BaoVerifyError, checkHash, readHeader } from './decode.js';
import { sameBytes } from '../../equal.js';
import { concat, copyOf, HEADER_LEN, leafValue, parentChainingValue } from './nodes.js';
import { CHUNK_LEAVES, PARENT_LEN } from '../../tree/geometry.js';
import { Tree } from '../../tree/tree.js';
import { expectedValue } from '../../tree/walk.js';

type Bytes = ArrayBufferView | ArrayBufferLike;

/** The slice of a combined encoding for `length` bytes from `start`. */
export function baoSlice(encoding: Bytes, start: number, length: number): Uint8Array {
  const tree = toBytes(encoding, 'encoding');
  return extract(tree, undefined, start, length);
}

/** The slice for `length` bytes from `start`, from content and its outboard. */
export function baoSliceOutboard(content: Bytes, outboard: Bytes, start: number, length: number): Uint8Array {
  return extract(toBytes(outboard, 'outboard'), toBytes(content, 'content'), start, length);
}

/** The content bytes a slice holds, verified against `hash`: `length` bytes
 * from `start`, fewer at the end of the content. */
export function baoDecodeSlice(slice: Bytes, hash: Bytes, start: number, length: number): Uint8Array {
  const bytes = copyOf(toBytes(slice, 'slice'));
  const root = checkHash(hash);
  checkRange(start, length);
  const total = readHeader(bytes, 'slice');
  const { from, to, empty } = sliceRange(total, start, length);
  const parts: Uint8Array[] = [];
  let cursor = HEADER_LEN;
  const take = (count: number) => {
    if (cursor + count > bytes.length) throw new BaoVerifyError('slice is truncated');
    return bytes.subarray(cursor, (cursor += count));
  };
  const nodes: Uint8Array[] = [];
  const walk = Tree.of(total).walk();
  while (walk.next()) {
    const { offset, size, isRoot } = walk;
    if (total > 0 && (offset + size <= from || to <= offset)) {
      walk.skip();
      continue;
    }
    const expected = expectedValue(walk, nodes, root);
    if (walk.isLeaf) {
      const leaf = take(size);
      const found = leafValue(leaf, offset, isRoot);
      if (!sameBytes(found, expected)) throw new BaoVerifyError(`the content at byte ${offset} does not match the hash`, offset);
      if (!empty) parts.push(leaf.subarray(Math.max(0, from - offset), Math.min(size, to - offset)));
      continue;
    }
    const node = take(PARENT_LEN);
    if (!sameBytes(parentChainingValue(node, isRoot), expected))
      throw new BaoVerifyError(`the tree node above byte ${offset} does not match the hash`, offset);
    nodes[walk.depth] = node;
  }
  if (cursor !== bytes.length) throw new BaoVerifyError('slice has bytes past its last node');
  return concat(parts);
}

function extract(tree: Uint8Array, content: Uint8Array | undefined, start: number, length: number): Uint8Array {
  checkRange(start, length);
  const what = content === undefined ? 'encoding' : 'outboard';
  const total = readHeader(tree, what);
  const expected = HEADER_LEN + Tree.of(total).parentsLength + (content === undefined ? total : 0);
  if (tree.length !== expected || (content !== undefined && content.length !== total)) {
    throw new BaoVerifyError(`${what} does not agree with its length header`);
  }
  return sliceOf(tree, content === undefined ? undefined : (offset, size) => content.subarray(offset, offset + size), start, length);
}

/**
 * The slice for [start, start + length) from `tree` (a combined encoding,
 * or an outboard when `leafAt` gives the content's leaves: only those the
 * slice holds are asked for). Sizes are not checked here.
 */
export function sliceOf(
  tree: Uint8Array,
  leafAt: ((offset: number, size: number) => Uint8Array) | undefined,
  start: number,
  length: number,
): Uint8Array {
  const total = readHeader(tree, 'outboard');
  const { from, to } = sliceRange(total, start, length);
  const parts: Uint8Array[] = [tree.subarray(0, HEADER_LEN)];
  const walk = Tree.of(total).walk();
  while (walk.next()) {
    const { offset, size } = walk;
    if (offset + size <= from || to <= offset) {
      walk.skip();
      continue;
    }
    // In pre-order a node follows preIndex parents and, in a combined
    // encoding, the `offset` content bytes before it.
    const at = HEADER_LEN + walk.preIndex * PARENT_LEN + (leafAt === undefined ? offset : 0);
    if (!walk.isLeaf) parts.push(tree.subarray(at, at + PARENT_LEN));
    else parts.push(leafAt === undefined ? tree.subarray(at, at + size) : leafAt(offset, size));
  }
  return concat(parts);
}

/** The content bytes a slice of [start, start + length) needs: whole
 * chunks, [first, end), the final chunk when start is at or past the end. */
export function sliceChunks(total: number, start: number, length: number): { first: number; end: number } {
  const { from, to } = sliceRange(total, start, length);
  const block = CHUNK_LEAVES.bytes;
  return { first: Math.floor(from / block) * block, end: Math.min(total, Math.ceil(to / block) * block) };
}

/** The range a slice covers: [from, to), and whether no content is asked
 * for (length 0, or a start past the end: only the final chunk, as proof). */
function sliceRange(total: number, start: number, length: number): { from: number; to: number; empty: boolean } {
  const empty = length === 0 || start >= total;
  const from = start >= total ? Math.max(0, total - 1) : start;
  return { from, to: start + Math.max(length, 1), empty };
}

export function checkRange(start: number, length: number): void {
  if (!Number.isSafeInteger(start) || start < 0) throw new RangeError(`blake3-kit: start must be a non-negative safe integer; got ${start}`);
  if (!Number.isSafeInteger(length) || length < 0) throw new RangeError(`blake3-kit: length must be a non-negative safe integer; got ${length}`);
}
