// The walk of a bao-tree range encoding, written once for both decoders: it
// asks for the encoding's next bytes, checks each node and leaf against the
// value above it, and hands on each verified piece. baoTreeDecodeRanges
// feeds it from a buffer, baoTreeDecodeRangesStream from a stream.

import type { ModeKey } from '../../modes.js';
import { BaoVerifyError, checkHash } from '../bao/decode.js';
import { sameBytes } from '../../equal.js';
import { type Boundaries, boundariesOf, truncate } from '../../tree/ranges.js';
import { chunkLogOf } from './outboard.js';
import { leafValue, parentChainingValue, treeHashingOf } from '../bao/nodes.js';
import { BlockSize, PARENT_LEN } from '../../tree/geometry.js';
import { Tree } from '../../tree/tree.js';
import { expectedValue } from '../../tree/walk.js';

/** A verified piece of the content: whole chunks, or a whole group. */
export interface VerifiedPiece {
  offset: number;
  bytes: Uint8Array;
}

/** What a decoder was asked to verify, checked. */
export interface RangeRequest {
  root: Uint8Array;
  size: number;
  /** The ranges past the end cut to the last chunk; none if none were asked. */
  query: Boundaries;
  minLevel: number;
  hashing: ModeKey;
}

/** A step of the walk: the next `read` bytes of the encoding, wanted for
 * the node or leaf at content byte `offset`, or a piece just verified. */
export type WalkStep = { read: number; offset: number } | { piece: VerifiedPiece };

export function rangeRequest(hash: unknown, size: unknown, ranges: unknown, options: { chunkLog?: number; key?: unknown } | undefined): RangeRequest {
  const minLevel = chunkLogOf(options);
  const hashing = treeHashingOf(options);
  const root = checkHash(hash);
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
    throw new RangeError(`blake3-kit: size must be a non-negative safe integer; got ${String(size)}`);
  }
  const asked = boundariesOf(ranges);
  // Nothing asked, nothing sent (bao-tree checks before truncating).
  return { root, size, query: asked.length === 0 ? asked : truncate(asked, size), minLevel, hashing };
}

/** Yields what it needs read (and takes those bytes back from next(), or
 * undefined where the encoding ended) and each piece once verified; throws
 * BaoVerifyError at the first node or leaf that does not match. A piece is
 * the very array it was given, and a node is kept as it was given (its
 * halves are what the children are checked against): both must be the
 * decoder's own copies, not the caller's memory. */
export function* rangeWalk({ root, size, query, minLevel, hashing }: RangeRequest): Generator<WalkStep, void, Uint8Array | undefined> {
  const nodes: Uint8Array[] = [];
  const walk = Tree.of(size, BlockSize.of(minLevel)).walk({ openPartial: true }, query);
  while (walk.next()) {
    if (!walk.wanted) continue;
    const { offset, size: length, isRoot } = walk;
    const expected = expectedValue(walk, nodes, root);
    if (walk.isLeaf) {
      const bytes = yield { read: length, offset };
      if (bytes === undefined) throw new BaoVerifyError(`the encoding ends early, in the content at byte ${offset}`, offset);
      if (!sameBytes(leafValue(bytes, offset, isRoot, hashing), expected))
        throw new BaoVerifyError(`the content at byte ${offset} does not match the hash`, offset);
      yield { piece: { offset, bytes } };
      continue;
    }
    const node = yield { read: PARENT_LEN, offset };
    if (node === undefined) throw new BaoVerifyError(`the encoding ends early, at the node for byte ${offset}`, offset);
    if (!sameBytes(parentChainingValue(node, isRoot, hashing), expected))
      throw new BaoVerifyError(`the tree node above byte ${offset} does not match the hash`, offset);
    nodes[walk.depth] = node;
  }
}
