// Content bytes checked against a tree as they are read, for a byte range
// that starts and ends on the tree's leaves (chunk groups): the parents on
// the way down come from the outboard, each checked against the value above
// it, and each piece is passed on only once it hashes to the value its
// parent holds. Nothing is passed on before it is verified.
//
// A subtree the range covers whole, up to BATCH bytes, is read at once and
// checked by its own chaining value: one backend call for 16 groups at
// chunkLog 4 (the outboard's nodes below it are not needed). Where that
// value does not match, the subtree is walked again node by node from the
// bytes at hand, so that the groups before the bad one are still passed on
// and the error names the first group (or node) that does not match.

import { sameBytes } from '../../equal.js';
import { BaoVerifyError } from '../bao/decode.js';
import { leafValue, parentChainingValue } from '../bao/nodes.js';
import { CHUNK_LEN, PARENT_LEN } from '../../tree/geometry.js';
import { expectedValue, NodeWalk } from '../../tree/walk.js';
import type { Tree } from './outboard.js';

/** The errors that say content or a node did not hash to its value (not
 * that a body was short or long): a handler remembers where they were. */
export const mismatches = new WeakSet<BaoVerifyError>();

function mismatch(message: string, offset: number): BaoVerifyError {
  const error = new BaoVerifyError(message, offset);
  mismatches.add(error);
  return error;
}

/** The largest subtree checked in one call, as baoDecodeStream batches
 * (its measurements: src/addressing/bao/stream.ts). */
export const BATCH = 256 * 1024;

/** The next `count` content bytes, from content byte `offset`, in an array
 * the verifier owns (it hashes that array and passes it on); a
 * BaoVerifyError where the content ends first. */
export type ReadContent = (count: number, offset: number) => Promise<Uint8Array>;

/** A leaf-aligned range [from, to) to verify, and the part of it [start,
 * end) to pass on. */
export interface Span {
  from: number;
  to: number;
  start: number;
  end: number;
}

/**
 * The verified bytes of `span` of a content of `size` bytes (its size
 * already proven, or about to be by the last group), read with `read`, in
 * order, cut to [start, end). Throws BaoVerifyError at the first group or
 * node that does not match, after passing on every verified byte before it.
 */
export async function* verifiedRange(tree: Tree, size: number, read: ReadContent, span: Span, batch = BATCH): AsyncGenerator<Uint8Array, void> {
  const { root, block, post, parents } = tree;
  // An empty content is one empty leaf: chunk 0 is asked for, which holds it.
  const query = size === 0 ? [0, 1] : [span.from / CHUNK_LEN, Math.ceil(span.to / CHUNK_LEN)];
  const walk = new NodeWalk(block).start(size, query);
  const nodes: Uint8Array[] = [];
  while (walk.next()) {
    if (!walk.wanted) continue;
    const { depth, offset, size: length } = walk;
    const expected = expectedValue(walk, nodes, root);
    if (walk.isLeaf || (walk.covered && length <= batch)) {
      const bytes = await read(length, offset);
      if (!sameBytes(leafValue(bytes, offset, walk.isRoot), expected)) {
        if (walk.isLeaf) throw mismatch(`the content at byte ${offset} does not match the hash`, offset);
        const at = (count: number, from: number) => Promise.resolve(bytes.subarray(from - offset, from - offset + count));
        yield* verifiedRange(tree, size, at, { ...span, from: offset, to: offset + length }, 0);
        // Every group matched where the whole did not: the tree is not this content's.
        throw mismatch(`the content at byte ${offset} does not match the hash`, offset);
      }
      const cut = cutTo(bytes, offset, span);
      if (cut.length > 0) yield cut;
      walk.skip();
      continue;
    }
    // The walk numbers the parents as the outboard stores them.
    const index = post ? walk.postIndex : walk.preIndex;
    const node = parents.subarray(index * PARENT_LEN, (index + 1) * PARENT_LEN);
    if (!sameBytes(parentChainingValue(node, walk.isRoot), expected))
      throw mismatch(`the outboard's node above byte ${offset} does not match the hash`, offset);
    nodes[depth] = node;
  }
}

/** The part of `bytes` (content from `offset`) in [span.start, span.end). */
function cutTo(bytes: Uint8Array, offset: number, span: Span): Uint8Array {
  const from = Math.max(0, span.start - offset);
  const to = Math.min(bytes.length, span.end - offset);
  if (from === 0 && to === bytes.length) return bytes;
  return to > from ? bytes.subarray(from, to) : bytes.subarray(0, 0);
}
