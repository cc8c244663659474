// iroh's bao-tree range requests: the encoding of a set of chunk ranges of
// a blob (bao-tree's encode_ranges_validated, byte for byte), and its
// verified decoding. No length prefix: the size is known beside it.
//
// The encoding walks the tree in pre-order. Above the chunk groups
// (2^chunkLog chunks), every parent whose subtree meets the ranges is sent
// (64 bytes: both children's chaining values). A group the ranges cover
// whole is sent as its bytes; a group they cover in part is sent down to
// its chunks: the parents of the parts they meet, and each chunk they meet.
// Ranges past the end of the blob ask for its last chunk (a size proof).
//
// The encoder never returns a hash it did not check: from a stored outboard
// it sends only nodes chained to the root it returns (options.hash, or the
// content's hash, computed). The decoder copies each node and leaf of the
// encoding before it checks it and returns those copies: the caller may
// change the encoding during the call without a changed byte being passed
// on.

import type { ModeKey } from '../../modes.js';
import { toBytes, type Input, inputBytes } from '../../input.js';
import { BaoVerifyError, checkHash } from '../bao/decode.js';
import { sameBytes } from '../../equal.js';
import { type Boundaries, boundariesOf, truncate } from '../../tree/ranges.js';
import { rangeRequest, rangeWalk, type VerifiedPiece } from './range-walk.js';
import { chunkLogOf, orderOf } from './outboard.js';
import { concat, copyOf, leafRootHash, leafValue, parentChainingValue, treeHashingOf } from '../bao/nodes.js';
import { BlockSize, CHUNK_LEN, PARENT_LEN } from '../../tree/geometry.js';
import { ParentStore, Tree } from '../../tree/tree.js';
import { expectedValue } from '../../tree/walk.js';

/** Chunk ranges, [start, end) in 1024-byte chunks; end Infinity for "to the end". */
export type ChunkRangeList = readonly (readonly [number, number])[];

export interface BaoTreeRangeOptions {
  /** log2 of the chunks per group, 0 to 16; 4 (16 KiB) by default, as iroh. */
  chunkLog?: number;
  /** 32 bytes: a keyed tree, as bao-tree's keyed_encode_ranges and
   * keyed_decode_ranges (the root hash is keyedHash(key, content)). */
  key?: ArrayBufferView | ArrayBufferLike;
}

export interface BaoTreeEncodeRangesOptions extends BaoTreeRangeOptions {
  /** The content's bao-tree outboard at the same chunkLog (from
   * baoTreeOutboard): the parents are read from it instead of computed.
   * Every node sent is checked: the root node against `hash`, each node
   * below against its parent, each group sent against its node. */
  outboard?: ArrayBufferView | ArrayBufferLike;
  /** The root hash the content is known by (32 bytes): with `outboard`,
   * only the groups the ranges reach are hashed. Without it the whole
   * content is hashed to check the outboard's root node, as a stored
   * outboard alone vouches for nothing. A hash that does not match is a
   * BaoVerifyError. */
  hash?: ArrayBufferView | ArrayBufferLike;
  /** The outboard's order: 'pre' (the default) or 'post', as iroh stores
   * outboards (written as the data arrives). */
  order?: 'pre' | 'post';
}

/**
 * The bao-tree encoding of `ranges` (chunk ranges) of `input`, as iroh
 * sends it in answer to a request for them: verifiable against the root
 * hash alone. Returns the encoding and the root hash. With
 * `options.outboard` and `options.hash` (the root the caller trusts, as
 * bao-tree's outboards carry theirs), the content is hashed only where the
 * ranges reach (as bao-tree's encode_ranges_validated); with the outboard
 * alone, all of it is hashed once more for the root. The hash returned is
 * always one checked here: a content byte, node or root that does not
 * match is a BaoVerifyError, never a wrong hash or an encoding that does
 * not verify.
 */
export function baoTreeEncodeRanges(
  input: Input,
  ranges: ChunkRangeList,
  options?: BaoTreeEncodeRangesOptions,
): { encoding: Uint8Array; hash: Uint8Array } {
  const minLevel = chunkLogOf(options);
  const content = inputBytes(input, 'input');
  const outboard = options?.outboard === undefined ? undefined : toBytes(options.outboard, 'options.outboard');
  const trusted = options?.hash === undefined ? undefined : checkHash(options.hash, 'options.hash');
  const asked = boundariesOf(ranges);
  const query = truncate(asked, content.length);
  const parts: Uint8Array[] = [];
  const order = orderOf(options);
  const hashing = treeHashingOf(options);
  const tree = Tree.of(content.length, BlockSize.of(minLevel));
  const encode = { query, parts, hashing };
  let hash: Uint8Array;
  if (outboard === undefined) hash = encodeGroups(tree, content, { ...encode, firstChunk: 0, isRoot: true });
  else {
    if (outboard.length !== tree.parentsLength) {
      throw new RangeError(
        `blake3-kit: options.outboard must be the ${tree.parentsLength}-byte ${order}-order outboard of the content at chunkLog ${minLevel}; got ${outboard.length} bytes`,
      );
    }
    hash = encodeAbove(new ParentStore(tree, outboard, order), content, { ...encode, trusted });
  }
  if (trusted !== undefined && !sameBytes(hash, trusted)) throw new BaoVerifyError('the content does not match options.hash');
  // Nothing asked, nothing sent (bao-tree checks before truncating).
  return { encoding: asked.length === 0 ? new Uint8Array(0) : concat(parts), hash };
}

/** What an encoder sends, and how: the ranges asked for, where its nodes
 * and leaves go, in order, and the tree's hashing mode. */
interface EncodeOptions {
  query: Boundaries;
  parts: Uint8Array[];
  hashing: ModeKey;
}

/** Encodes `data`, the subtree `tree` at chunk `firstChunk`, by hashing it:
 * its groups, and the parents above them and inside groups the ranges
 * cover in part. Returns its chaining value (the root hash if `isRoot`). */
function encodeGroups(
  tree: Tree,
  data: Uint8Array,
  { query, parts, hashing, firstChunk, isRoot }: EncodeOptions & { firstChunk: number; isRoot: boolean },
): Uint8Array {
  const walk = tree.walk({ exits: true, openPartial: true }, query, firstChunk);
  // The parent node open at each depth, filled in as its children's values arrive.
  const nodes: Uint8Array[] = [];
  let value: Uint8Array | undefined;
  while (walk.next()) {
    const { offset, size, depth } = walk;
    const root = isRoot && walk.isRoot;
    if (walk.exit) value = parentChainingValue(nodes[depth]!, root, hashing);
    else if (walk.isLeaf) {
      // A chunk, a whole group (or part of one), or a subtree not asked for (not sent).
      const bytes = data.subarray(offset, offset + size);
      if (walk.wanted) parts.push(bytes);
      value = leafValue(bytes, firstChunk * CHUNK_LEN + offset, root, hashing);
    } else {
      nodes[depth] = new Uint8Array(PARENT_LEN);
      parts.push(nodes[depth]!);
      continue;
    }
    if (depth > 0) nodes[depth - 1]!.set(value, walk.isRight ? 32 : 0);
  }
  return value!;
}

/** Encodes `content` with the parents above the groups read from `store`
 * (an outboard), checked top down from the root hash (`trusted`, else the
 * content's, computed): subtrees the ranges miss are skipped unread, and
 * each group the ranges reach is hashed and checked against its parent. */
function encodeAbove(store: ParentStore, content: Uint8Array, options: EncodeOptions & { trusted: Uint8Array | undefined }): Uint8Array {
  const { tree } = store;
  const { query, parts, hashing, trusted } = options;
  // A blob of one group has no parents: its hash is its content's.
  if (tree.leaves === 1) return encodeGroups(tree, content, { query, parts, hashing, firstChunk: 0, isRoot: true });
  const root = trusted ?? leafRootHash(content, hashing);
  if (!sameBytes(parentChainingValue(store.root(), true, hashing), root)) {
    throw new BaoVerifyError("the outboard's root node does not match the root hash");
  }
  // The open parents' nodes, by depth.
  const nodes: Uint8Array[] = [];
  const walk = tree.walk(undefined, query);
  while (walk.next()) {
    if (!walk.wanted) continue;
    const { offset, size, depth, isRoot } = walk;
    const expected = expectedValue(walk, nodes, root);
    if (walk.isLeaf) {
      // A literal, not a spread of `options`: spreading one per group cost
      // this encoder ~4% (64 ranges of 16 MiB from a post-order outboard).
      const group = { query: walk.query, parts, hashing, firstChunk: offset / CHUNK_LEN, isRoot };
      const found = encodeGroups(Tree.of(size, tree.block), content.subarray(offset, offset + size), group);
      if (!sameBytes(found, expected)) throw new BaoVerifyError(`the content at byte ${offset} does not match the outboard`, offset);
      continue;
    }
    const node = store.at(walk);
    if (!isRoot && !sameBytes(parentChainingValue(node, false, hashing), expected))
      throw new BaoVerifyError(`the outboard's node above byte ${offset} does not match its parent`, offset);
    parts.push(node);
    nodes[depth] = node;
  }
  return root;
}

/**
 * Verifies the bao-tree encoding of `ranges` of a blob of `size` bytes
 * whose root hash is `hash`, and returns the content it carries: each
 * piece with its byte offset, in order (whole chunks, or whole groups where
 * the ranges cover them). Throws BaoVerifyError at the first byte that does
 * not match, before returning anything.
 */
export function baoTreeDecodeRanges(
  encoding: ArrayBufferView | ArrayBufferLike,
  hash: ArrayBufferView | ArrayBufferLike,
  size: number,
  ranges: ChunkRangeList,
  options?: BaoTreeRangeOptions,
): VerifiedPiece[] {
  const bytes = toBytes(encoding, 'encoding');
  const walk = rangeWalk(rangeRequest(hash, size, ranges, options));
  const pieces: VerifiedPiece[] = [];
  let cursor = 0;
  for (let step = walk.next(); !step.done; ) {
    const wanted = step.value;
    if ('piece' in wanted) {
      pieces.push(wanted.piece);
      step = walk.next();
    } else {
      // Each node and leaf copied before it is checked; a leaf's copy is
      // the piece returned.
      const end = cursor + wanted.read;
      step = walk.next(end <= bytes.length ? copyOf(bytes.subarray(cursor, (cursor = end))) : undefined);
    }
  }
  if (cursor !== bytes.length) throw new BaoVerifyError(`the encoding has ${bytes.length - cursor} bytes past its last node`);
  return pieces;
}
