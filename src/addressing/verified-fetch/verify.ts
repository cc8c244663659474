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
import { MODE_HASH } from '../../modes.js';
import { treeOps } from '../../tree-ops.js';
import { BaoVerifyError } from '../bao/decode.js';
import { levelsAbove } from '../bao/levels.js';
import { concat, leafValue, parentChainingValue } from '../bao/nodes.js';
import { CHUNK_LEN, CV_LEN, high32, low32, PARENT_LEN } from '../../tree/geometry.js';
import { expectedValue, NodeWalk } from '../../tree/walk.js';
import type { Tree } from './outboard.js';
import { type ContentSource, MemorySource, type Span } from './source.js';

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

/**
 * The verified bytes of `span` of a content of `size` bytes (its size
 * already proven, or about to be by the last group), read from `source`, in
 * order, cut to [start, end). Throws BaoVerifyError at the first group or
 * node that does not match, after passing on every verified byte before it.
 */
export async function* verifiedRange(tree: Tree, size: number, source: ContentSource, span: Span, batch = BATCH): AsyncGenerator<Uint8Array, void> {
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
      let parts: Uint8Array[];
      try {
        parts = await source.take(length, offset);
      } catch (error) {
        // A body that ends or fails here: what was verified before it first.
        yield* source.finish(offset);
        throw error;
      }
      if (!sameBytes(partsValue(parts, offset, walk.isRoot), expected)) {
        yield* source.finish(offset);
        if (walk.isLeaf) throw mismatch(`the content at byte ${offset} does not match the hash`, offset);
        // Which group: the subtree walked again node by node, from a copy of it.
        yield* verifiedRange(tree, size, new MemorySource(joined(parts), offset, span), { ...span, from: offset, to: offset + length }, 0);
        // Every group matched where the whole did not: the tree is not this content's.
        throw mismatch(`the content at byte ${offset} does not match the hash`, offset);
      }
      yield* source.verified(offset + length);
      walk.skip();
      continue;
    }
    // The walk numbers the parents as the outboard stores them.
    const index = post ? walk.postIndex : walk.preIndex;
    const node = parents.subarray(index * PARENT_LEN, (index + 1) * PARENT_LEN);
    if (!sameBytes(parentChainingValue(node, walk.isRoot), expected)) {
      yield* source.finish(offset);
      throw mismatch(`the outboard's node above byte ${offset} does not match the hash`, offset);
    }
    nodes[depth] = node;
  }
  yield* source.finish(span.to);
}

/** The value of the subtree (or the whole tree, `isRoot`) whose content is
 * `parts` from content byte `offset`: one call where the parts are one;
 * else each part's whole chunks where they lie, a chunk split between two
 * parts joined in a scratch array, and the levels above their values. */
function partsValue(parts: Uint8Array[], offset: number, isRoot: boolean): Uint8Array {
  if (parts.length === 1) return leafValue(parts[0]!, offset, isRoot);
  let length = 0;
  for (const part of parts) length += part.length;
  if (length <= CHUNK_LEN) return leafValue(joined(parts), offset, isRoot);
  const ops = treeOps();
  const values = new Uint8Array(Math.ceil(length / CHUNK_LEN) * CV_LEN);
  const scratch = new Uint8Array(CHUNK_LEN);
  let filled = 0;
  let chunk = offset / CHUNK_LEN;
  let written = 0;
  const chunks = (bytes: Uint8Array) => {
    values.set(ops.chunkChainingValues(MODE_HASH, undefined, low32(chunk), high32(chunk), bytes), written);
    const count = Math.ceil(bytes.length / CHUNK_LEN);
    chunk += count;
    written += count * CV_LEN;
  };
  for (const part of parts) {
    let at = 0;
    if (filled > 0) {
      at = Math.min(CHUNK_LEN - filled, part.length);
      scratch.set(part.subarray(0, at), filled);
      filled += at;
      if (filled < CHUNK_LEN) continue;
      chunks(scratch);
      filled = 0;
    }
    const whole = Math.floor((part.length - at) / CHUNK_LEN) * CHUNK_LEN;
    if (whole > 0) chunks(part.subarray(at, at + whole));
    scratch.set(part.subarray(at + whole), 0);
    filled = part.length - at - whole;
  }
  if (filled > 0) chunks(scratch.subarray(0, filled));
  return levelsAbove(values, isRoot).top;
}

/** `parts` in one array of our own. */
function joined(parts: Uint8Array[]): Uint8Array {
  return parts.length === 1 ? parts[0]!.slice() : concat(parts);
}
