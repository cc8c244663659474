// Verifying Bao decoders over whole buffers. Nothing (not even the length,
// which only the final leaf vouches for) is returned until the whole tree
// is verified.
//
// The guarantee of every verifier in src/addressing/bao: what it verifies is a copy in
// memory of its own, made before it is hashed, and what it returns or
// passes on is exactly that copy; the hash, and every node whose values are
// used, are copied too before they are checked. Stored parents that are
// only compared with ones computed from copied leaves may be read where
// they lie. Nothing the caller can still change is used after a check, so
// a caller (or another thread) writing its buffers during a call can make
// the call fail, never return a byte the hash does not vouch for.

import { toBytes } from '../../input.js';
import { sameBytes } from '../../equal.js';
import { MODE_HASH } from '../../modes.js';
import { treeOps } from '../../tree-ops.js';
import { copyOf, HEADER_LEN } from './nodes.js';
import { CHUNK_LEN, PARENT_LEN } from '../../tree/geometry.js';
import { Tree } from '../../tree/tree.js';

/** The encoding does not match the hash, or is malformed (truncated, extra
 * bytes, a length header that disagrees with it). */
export class BaoVerifyError extends Error {
  readonly code = 'ERR_BAO_VERIFY';
  /** The content byte where verification failed (the start of the chunk,
   * group or subtree that did not match, or whose node did not); undefined
   * when the failure has no place in the content (a header, a length). */
  readonly offset: number | undefined;
  /** The 1024-byte chunk of `offset`. */
  readonly chunk: number | undefined;
  constructor(message: string, offset?: number) {
    super(`blake3-kit: ${message}`);
    this.name = 'BaoVerifyError';
    this.offset = offset;
    this.chunk = offset === undefined ? undefined : Math.floor(offset / 1024);
  }
}

/** The content length in a Bao header (unverified). */
export function readHeader(bytes: Uint8Array, what: string): number {
  if (bytes.length < HEADER_LEN) throw new BaoVerifyError(`${what} is shorter than its 8-byte header`);
  const length = new DataView(bytes.buffer, bytes.byteOffset, HEADER_LEN).getBigUint64(0, true);
  if (length > BigInt(Number.MAX_SAFE_INTEGER)) throw new BaoVerifyError(`${what} declares more content than fits in memory`);
  return Number(length);
}

/** A copy of `hash` (the argument `name`), checked: 32 bytes. */
export function checkHash(hash: unknown, name = 'hash'): Uint8Array {
  const bytes = toBytes(hash, name);
  if (bytes.length !== 32) throw new RangeError(`blake3-kit: ${name} must be 32 bytes; got ${bytes.length}`);
  return copyOf(bytes);
}

/** The content of a combined Bao encoding, verified against `hash`. */
export function baoDecode(encoding: ArrayBufferView | ArrayBufferLike, hash: ArrayBufferView | ArrayBufferLike): Uint8Array {
  const bytes = toBytes(encoding, 'encoding');
  const root = checkHash(hash);
  const tree = Tree.of(readHeader(bytes, 'encoding'));
  if (bytes.length !== HEADER_LEN + tree.parentsLength + tree.length) {
    throw new BaoVerifyError(`encoding is ${bytes.length} bytes, which its length header does not account for`);
  }
  return verifySubtree(bytes, tree, { start: HEADER_LEN, offset: 0, expected: root, isRoot: true }).content;
}

/** `content`, verified against `hash` with its Bao outboard encoding. */
export function baoDecodeOutboard(
  content: ArrayBufferView | ArrayBufferLike,
  outboard: ArrayBufferView | ArrayBufferLike,
  hash: ArrayBufferView | ArrayBufferLike,
): Uint8Array {
  const data = toBytes(content, 'content');
  const parents = copyOf(toBytes(outboard, 'outboard'));
  const root = checkHash(hash);
  const tree = Tree.of(readHeader(parents, 'outboard'));
  if (tree.length !== data.length || parents.length !== HEADER_LEN + tree.parentsLength) {
    throw new BaoVerifyError('content and outboard do not agree with the length header');
  }
  return verifySubtree(parents, tree, { start: HEADER_LEN, offset: 0, expected: root, isRoot: true, content: copyOf(data) }).content;
}

/** Where a subtree's encoding is and what it must hash to. */
export interface SubtreeCheck {
  /** Where its encoding starts in the bytes given. */
  start: number;
  /** Its first content byte in the whole input. */
  offset: number;
  /** The root hash if `isRoot`, else the subtree's chaining value. */
  expected: Uint8Array;
  isRoot: boolean;
  /** For an outboard: the subtree's content, the decoder's own copy. */
  content?: Uint8Array;
}

/**
 * Verifies a pre-order encoded subtree (bao's one-chunk leaves) of
 * `subtree.length` content bytes: encoded in `encoding` from `check.start`
 * (leaves in place, or, for an outboard, the subtree's own bytes in
 * `check.content`), against `check.expected`. Its whole tree
 * is computed in one batched pass, then its top and every stored parent
 * are compared with it. Returns the content (a copy of the leaves, or
 * `content` itself) and where the encoding of the subtree ends. `encoding`
 * may be the caller's: its leaves are copied before they are hashed, and its
 * parents are only compared with those computed from the copy, never
 * used (the top alone vouches for the copied leaves). Copying the parents
 * as well cost 21% of a combined decode (16 MiB: 23.6 -> 28.4 ms,
 * wasm-simd). `content` and `expected` must be the decoder's own.
 */
export function verifySubtree(encoding: Uint8Array, subtree: Tree, check: SubtreeCheck): { content: Uint8Array; end: number } {
  const { start, offset, expected, isRoot, content } = check;
  const size = subtree.length;
  const parents = subtree.parents;
  const found = new Uint8Array(subtree.parentsLength);
  let out: Uint8Array;
  let stored: Float64Array | undefined;
  let end = start + found.length;
  if (content === undefined) {
    out = new Uint8Array(size);
    stored = new Float64Array(parents);
    end = extractLeaves(encoding, start, subtree, out, stored);
  } else out = content;
  const top = treeOps().preOrder(MODE_HASH, undefined, out, found, { chunkLog: 0, combined: false, root: isRoot, firstChunk: offset / CHUNK_LEN });
  if (!sameBytes(top, expected)) throw new BaoVerifyError(`the content from byte ${offset} does not match the hash`, offset);
  const bad = stored === undefined ? firstDifferentParent(encoding, start, found) : firstDifferentStored(encoding, start, stored, found);
  if (bad >= 0) {
    const at = offset + subtree.parentOffset(bad);
    throw new BaoVerifyError(`the tree node above byte ${at} does not match the hash`, at);
  }
  return { content: out, end };
}

/** Copies the leaves of the combined encoding of `size` bytes at `start`
 * into `out` (runs of adjacent leaves at once) and records where each
 * parent is stored; returns where the encoding ends. */
function extractLeaves(tree: Uint8Array, start: number, subtree: Tree, out: Uint8Array, stored: Float64Array): number {
  const size = subtree.length;
  // In pre-order, the k-th parent (from 0) of the subtree at content byte
  // `offset` is stored after `offset` content bytes and k parents.
  const parents = subtree.parentsInPreOrder(stored);
  let runFrom = start;
  for (let parent = 0; parent < parents; parent++) {
    const at = start + stored[parent]! + parent * PARENT_LEN;
    if (at > runFrom) out.set(tree.subarray(runFrom, at), runFrom - start - parent * PARENT_LEN);
    stored[parent] = at;
    runFrom = at + PARENT_LEN;
  }
  const end = start + size + parents * PARENT_LEN;
  if (end > runFrom) out.set(tree.subarray(runFrom, end), runFrom - start - parents * PARENT_LEN);
  return end;
}

/** The index of the first of `found`'s parents that differs from those
 * stored one after another in `tree` from `start`, or -1. Four bytes at a
 * time where both are aligned. */
export function firstDifferentParent(tree: Uint8Array, start: number, found: Uint8Array): number {
  const at = tree.byteOffset + start;
  if (at % 4 === 0 && found.byteOffset % 4 === 0) {
    const a = new Int32Array(tree.buffer, at, found.length / 4);
    const b = new Int32Array(found.buffer, found.byteOffset, found.length / 4);
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return Math.floor((i * 4) / PARENT_LEN);
    return -1;
  }
  for (let i = 0; i < found.length; i++) if (tree[start + i] !== found[i]) return Math.floor(i / PARENT_LEN);
  return -1;
}

/** The index of the first of `found`'s parents that differs from the one
 * stored at its recorded position in `tree`, or -1. Four bytes at a time
 * where the encoding is aligned (its parents then are): 2.85 -> 1.3 ms per
 * 16 MiB decode. */
function firstDifferentStored(tree: Uint8Array, start: number, stored: Float64Array, found: Uint8Array): number {
  if ((tree.byteOffset + start) % 4 === 0 && found.byteOffset % 4 === 0 && stored.length > 0) {
    const base = tree.byteOffset;
    const words = new Int32Array(tree.buffer, base + start, (stored[stored.length - 1]! + PARENT_LEN - start) / 4);
    const mine = new Int32Array(found.buffer, found.byteOffset, found.length / 4);
    for (let i = 0; i < stored.length; i++) {
      // An integer index (a typed array holds less than 2^32 bytes): a
      // double one made this loop ~7x slower.
      const at = (stored[i]! - start) >>> 2;
      for (let j = 0; j < PARENT_LEN / 4; j++) if (words[at + j] !== mine[i * (PARENT_LEN / 4) + j]) return i;
    }
    return -1;
  }
  for (let i = 0; i < stored.length; i++) {
    for (let j = 0; j < PARENT_LEN; j++) if (tree[stored[i]! + j] !== found[i * PARENT_LEN + j]) return i;
  }
  return -1;
}
