// Bao trees in pre-order on wasm (TreeOps.preOrder): the tree walk
// (src/tree/walk.ts) covers the top of the tree, and each whole subtree of
// up to 64 chunks (one staging buffer) is one subtree_parents call, which
// returns its chaining value and its parents already in pre-order. Built
// from chunk_cvs and parent_cvs with every node walked in JS instead, a
// 16 MiB outboard ran at 0.84x of hash().

import { activeEngine } from '../engine.js';
import type { TreeOps } from '../engine.js';
import { core, fail, keyArea, staging, stagingLen } from './core.js';
import { BlockSize, CHUNK_LEN, CV_LEN, high32, low32, PARENT_LEN } from '../tree/geometry.js';
import { Tree } from '../tree/tree.js';
import { parentsInPreOrder } from '../tree/walk.js';
import { mergeNonRoot, mergeRoot, chainingValueAtOffset } from './subtree.js';

/** Where each open parent's node is in `out`, by depth (at most 44 deep). */
const nodeAt = new Float64Array(64);
/** The parents of one subtree_parents call (at most 64 chunks). */
const batchOffsets = new Float64Array(64);

/**
 * Writes the pre-order tree of `content` (the leaves' bytes in place when
 * `combined`) into all of `out`; returns the root hash (`root`), else the
 * chaining value of `content` as the subtree from chunk `firstChunk`.
 */
export const preOrder: TreeOps['preOrder'] = (mode, key, content, out, { firstChunk, chunkLog, combined, root }) => {
  const block = BlockSize.of(chunkLog);
  if (out.length !== block.parentsLength(content.length) + (combined ? content.length : 0)) {
    throw new RangeError('blake3-kit: out does not fit the tree');
  }
  if (root && content.length <= block.bytes) {
    if (combined) out.set(content);
    const hash = new Uint8Array(32);
    activeEngine().hashInto(mode, key, content, hash);
    return hash;
  }
  // stagingLen is set by init(): read it here, not at module load.
  const batchChunks = stagingLen / CHUNK_LEN;
  const walk = Tree.of(content.length, block).walk({ exits: true });

  let cursor = 0;
  let top: Uint8Array | undefined;
  /** A node's value goes into its parent's node, or is the walk's result. */
  const place = (value: Uint8Array, depth: number, isRight: boolean): void => {
    if (depth === 0) top = value;
    else out.set(value, nodeAt[depth - 1]! + (isRight ? CV_LEN : 0));
  };

  while (walk.next()) {
    const { offset: at, size: len, depth } = walk;
    if (walk.exit) {
      const node = nodeAt[depth]!;
      const left = out.subarray(node, node + CV_LEN);
      const right = out.subarray(node + CV_LEN, node + PARENT_LEN);
      place(depth === 0 && root ? mergeRoot(mode, key, left, right, 32) : mergeNonRoot(mode, key, left, right), depth, walk.isRight);
      continue;
    }
    const chunks = Math.ceil(len / CHUNK_LEN);
    const chunk = firstChunk + at / CHUNK_LEN;
    if (chunks <= batchChunks && (chunks & (chunks - 1)) === 0 && !(depth === 0 && root)) {
      walk.skip();
      if (key !== undefined) keyArea.set(key);
      staging.set(content.subarray(at, at + len));
      const count = core!.subtree_parents(mode, len, low32(chunk), high32(chunk), chunkLog);
      if (count < 0) fail(count, 'subtree_parents');
      if (!combined) {
        out.set(staging.subarray(CV_LEN, CV_LEN + count * PARENT_LEN), cursor);
        cursor += count * PARENT_LEN;
      } else cursor = interleave(block, content.subarray(at, at + len), out, cursor);
      place(staging.slice(0, CV_LEN), depth, walk.isRight);
    } else if (walk.isLeaf) {
      // A leaf of more chunks than a batch, or not a power of two of them.
      if (combined) {
        out.set(content.subarray(at, at + len), cursor);
        cursor += len;
      }
      place(chainingValueAtOffset(mode, key, chunk * CHUNK_LEN, content.subarray(at, at + len)), depth, walk.isRight);
    } else {
      nodeAt[depth] = cursor;
      cursor += PARENT_LEN;
    }
  }
  return top!;
};

/** Writes one subtree_parents call's parents (in the staging buffer after
 * its chaining value, in pre-order) with the leaves of `content` between
 * them into `out` from `cursor`; returns where that ends. */
function interleave(block: BlockSize, content: Uint8Array, out: Uint8Array, cursor: number): number {
  // The k-th parent (from 0) at content byte `offset` goes after `offset`
  // content bytes and k parents; the leaves fill the gaps.
  const parents = parentsInPreOrder(block, content.length, batchOffsets);
  let copied = 0;
  for (let k = 0; k < parents; k++) {
    const offset = batchOffsets[k]!;
    if (offset > copied) out.set(content.subarray(copied, offset), cursor + copied + k * PARENT_LEN);
    copied = offset;
    const from = CV_LEN + k * PARENT_LEN;
    out.set(staging.subarray(from, from + PARENT_LEN), cursor + offset + k * PARENT_LEN);
  }
  if (content.length > copied) out.set(content.subarray(copied), cursor + copied + parents * PARENT_LEN);
  return cursor + content.length + parents * PARENT_LEN;
}
