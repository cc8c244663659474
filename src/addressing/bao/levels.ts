// Every chaining value of a tree at once, level by level: the chunks' from
// one batched call per 64 KiB, then each level's parents from one call per
// 1024 pairs. Pairing neighbours and carrying an odd last node up builds
// exactly BLAKE3's tree (left subtrees a power of two of chunks). Encoders
// and whole-buffer decoders read the values they need from here instead of
// hashing node by node.

import { HASH_MODE, type ModeKey } from '../../modes.js';
import { treeOps } from '../../tree-ops.js';
import { leafRootHash } from './nodes.js';
import { CHUNK_LEN, heightOf, high32, low32 } from '../../tree/geometry.js';

export interface TreeLevels {
  /** levels[k]: the chaining values (32 bytes each) of the subtrees of
   * 2^k chunks, the last one possibly smaller; up to the top's children. */
  levels: Uint8Array[];
  /** The root hash of the whole tree, or the subtree's chaining value. */
  top: Uint8Array;
}

/** The tree over `content`: the whole input (`firstChunk` 0, `isRoot`), or
 * a subtree starting at chunk `firstChunk` (non-empty). */
export function treeLevels(content: Uint8Array, firstChunk = 0, isRoot = true, hashing: ModeKey = HASH_MODE): TreeLevels {
  if (isRoot && content.length <= CHUNK_LEN) return { levels: [], top: leafRootHash(content, hashing) };
  const chunks = treeOps().chunkChainingValues(hashing.mode, hashing.key, low32(firstChunk), high32(firstChunk), content);
  return levelsAbove(chunks, isRoot, hashing);
}

/** The levels above the chunks' chaining values (more than one chunk, or a
 * non-root subtree of one). */
export function levelsAbove(chunks: Uint8Array, isRoot: boolean, hashing: ModeKey = HASH_MODE): TreeLevels {
  const tree = treeOps();
  let level = chunks;
  const levels = [level];
  while (level.length > 64) {
    const pairs = Math.floor(level.length / 64);
    const parents = tree.parentChainingValues(hashing.mode, hashing.key, level.subarray(0, pairs * 64));
    if (level.length % 64 === 0) level = parents;
    else {
      level = new Uint8Array(parents.length + 32);
      level.set(parents);
      level.set(levels.at(-1)!.subarray(pairs * 64), parents.length);
    }
    levels.push(level);
  }
  if (level.length === 32) return { levels, top: level };
  return { levels, top: tree.mergeSubtrees(hashing.mode, hashing.key, level.subarray(0, 32), level.subarray(32, 64), isRoot, 32) };
}

/** Where the chaining value of the subtree of `size` bytes at byte
 * `offset` is: its level, and its byte position in that level. */
function locate(offset: number, size: number): [height: number, at: number] {
  const chunks = Math.ceil(size / CHUNK_LEN);
  const height = heightOf(chunks);
  return [height, 32 * Math.floor(offset / CHUNK_LEN / 2 ** height)];
}

/** The chaining value of the subtree of `size` bytes at byte `offset` of
 * the tree `levels` was computed for. */
export function subtreeValue(levels: Uint8Array[], offset: number, size: number): Uint8Array {
  const [height, at] = locate(offset, size);
  return levels[height]!.subarray(at, at + 32);
}

/** Writes the 64 bytes of a parent node (its children's chaining values)
 * into `out` at `at`. Byte loops rather than a view and a set per value:
 * on 16 MiB (bench/bao.mjs, wasm-simd, 2 runs each) outboard encode went
 * from 1,305-1,350 to 1,398-1,406 MB/s, whole decode from 724-757 to
 * 871-883, streaming decode from 768-777 to 891-909. */
export function writeParent(levels: Uint8Array[], { offset, size, left }: ParentSpan, out: Uint8Array, at: number): void {
  copy32(levels, offset, left, out, at);
  copy32(levels, offset + left, size - left, out, at + 32);
}

/** Whether the 64 bytes at `at` in `bytes` are that parent node. */
export function isParent(levels: Uint8Array[], { offset, size, left }: ParentSpan, bytes: Uint8Array, at: number): boolean {
  return same32(levels, offset, left, bytes, at) && same32(levels, offset + left, size - left, bytes, at + 32);
}

/** A parent as a walk describes it: its subtree's content bytes from
 * `offset`, and where they split. */
interface ParentSpan {
  offset: number;
  size: number;
  left: number;
}

function copy32(levels: Uint8Array[], offset: number, size: number, out: Uint8Array, at: number): void {
  const [height, from] = locate(offset, size);
  const level = levels[height]!;
  for (let i = 0; i < 32; i++) out[at + i] = level[from + i]!;
}

function same32(levels: Uint8Array[], offset: number, size: number, bytes: Uint8Array, at: number): boolean {
  const [height, from] = locate(offset, size);
  const level = levels[height]!;
  let difference = 0;
  for (let i = 0; i < 32; i++) difference |= level[from + i]! ^ bytes[at + i]!;
  return difference === 0;
}
