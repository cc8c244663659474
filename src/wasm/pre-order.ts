// Bao trees in pre-order on wasm (TreeOps.preOrder): JS walks the top of the
// tree, and each whole subtree of up to 64 chunks (one staging buffer) is one
// subtree_parents call, which returns its chaining value and its parents
// already in pre-order. Built from chunk_cvs and parent_cvs with every
// node walked in JS instead, a 16 MiB outboard ran at 0.84x of hash().

import { activeEngine } from '../engine.js';
import type { TreeOps } from '../engine.js';
import { core, fail, keyArea, staging, stagingLen } from './core.js';
import { CHUNK_LEN, high32, leftSubtreeLength, low32, PARENT_LEN } from '../tree/geometry.js';
import { mergeNonRoot, mergeRoot, subtreeChainingValue } from './subtree.js';

/**
 * Writes the pre-order tree of `content` over leaves of 2^chunkLog chunks
 * (the leaves' bytes in place when `combined`) into all of `out`; returns
 * the root hash (`root`), else the chaining value of `content` as the
 * subtree from chunk `first`.
 */
export const preOrder: TreeOps['preOrder'] = (mode, key, content, first, chunkLog, combined, root, out) => {
  const block = CHUNK_LEN * 2 ** chunkLog;
  const parents = (Math.max(1, Math.ceil(content.length / block)) - 1) * PARENT_LEN;
  if (out.length !== parents + (combined ? content.length : 0)) throw new RangeError('blake3-kit: out does not fit the tree');
  // stagingLen is set by init(): read it here, not at module load.
  const batchChunks = stagingLen / CHUNK_LEN;
  let cursor = 0;

  /** The leaves and parents of one subtree_parents call, from the staging
   * buffer, in pre-order with the leaves' bytes between them. */
  const interleave = (at: number, len: number, next: number): number => {
    if (len <= block) {
      out.set(content.subarray(at, at + len), cursor);
      cursor += len;
      return next;
    }
    out.set(staging.subarray(next, next + PARENT_LEN), cursor);
    cursor += PARENT_LEN;
    const left = leftSubtreeLength(len);
    return interleave(at + left, len - left, interleave(at, left, next + PARENT_LEN));
  };

  const subtree = (at: number, len: number): Uint8Array => {
    const chunks = Math.ceil(len / CHUNK_LEN);
    const chunk = first + at / CHUNK_LEN;
    if (chunks <= batchChunks && (chunks & (chunks - 1)) === 0) {
      if (key !== undefined) keyArea.set(key);
      staging.set(content.subarray(at, at + len));
      const count = core!.subtree_parents(mode, len, low32(chunk), high32(chunk), chunkLog);
      if (count < 0) fail(count, 'subtree_parents');
      if (combined) interleave(at, len, 32);
      else {
        out.set(staging.subarray(32, 32 + count * PARENT_LEN), cursor);
        cursor += count * PARENT_LEN;
      }
      return staging.slice(0, 32);
    }
    if (len <= block) {
      // A leaf of more chunks than a batch, or not a power of two of them.
      if (combined) {
        out.set(content.subarray(at, at + len), cursor);
        cursor += len;
      }
      return subtreeChainingValue(mode, key, chunk * CHUNK_LEN, content.subarray(at, at + len));
    }
    const [left, right] = children(at, len);
    return mergeNonRoot(mode, key, left, right);
  };

  /** Writes the parent over `len` bytes from `at` and its subtrees; returns its children's values. */
  const children = (at: number, len: number): [Uint8Array, Uint8Array] => {
    const node = cursor;
    cursor += PARENT_LEN;
    const split = leftSubtreeLength(len);
    const left = subtree(at, split);
    const right = subtree(at + split, len - split);
    out.set(left, node);
    out.set(right, node + 32);
    return [left, right];
  };

  if (!root) return subtree(0, content.length);
  if (content.length <= block) {
    if (combined) out.set(content);
    const hash = new Uint8Array(32);
    activeEngine().hashInto(mode, key, content, hash);
    return hash;
  }
  const [left, right] = children(0, content.length);
  return mergeRoot(mode, key, left, right, 32);
};
