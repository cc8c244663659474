// Which positions the Bao corruption sweeps change. Every one in a single
// project (Node's wasm-simd), where a sweep is quadratic (each position one
// whole decode); elsewhere the two spines of the tree (the nodes over its
// first and its last byte: where a walk starts, ends and meets the
// content's length) and a sample drawn from a fixed seed, the same in every
// run, so a failure there reproduces.
import { BlockSize } from '../../src/tree/geometry.js';
import { NodeWalk } from '../../src/tree/walk.js';
import { backend, random } from './setup.js';

/** Whether this project changes every position. */
export const everyPosition = typeof window === 'undefined' && backend === 'wasm-simd';

const SAMPLE = 12;
const SAMPLE_SEED = 0xba0;

/** `all` in the exhaustive project; else the ones `keep` names and
 * SAMPLE more drawn with a fixed seed, in order. */
export function sampled(all: readonly number[], keep: (value: number, index: number) => boolean): number[] {
  if (everyPosition || all.length <= SAMPLE * 2) return [...all];
  const chosen = new Set<number>();
  for (const [i, value] of all.entries()) if (keep(value, i)) chosen.add(i);
  const rng = random(SAMPLE_SEED + all.length);
  for (let n = 0; n < SAMPLE; n++) chosen.add(rng.int(all.length));
  return [...chosen].sort((a, b) => a - b).map((i) => all[i]!);
}

/** Byte positions in the outboard of a tree over `length` bytes (leaves of
 * 2^chunkLog chunks, parents in `order`) to change: one per parent. */
export function outboardPositions(length: number, chunkLog: number, order: 'pre' | 'post'): number[] {
  const walk = new NodeWalk(BlockSize.of(chunkLog), { exits: order === 'post', parentsOnly: true }).start(length);
  const positions: number[] = [];
  const spine: boolean[] = [];
  while (walk.next()) {
    if (walk.exit !== (order === 'post')) continue;
    spine.push(walk.offset === 0 || walk.offset + walk.size === length);
    // The last byte of the node: its right child's value.
    positions.push(positions.length * 64 + 63);
  }
  return sampled(positions, (_, i) => spine[i]!);
}

/** Content positions to change: the first byte of each leaf of `block` bytes. */
export function leafPositions(length: number, block: number): number[] {
  const all: number[] = [];
  for (let at = 0; at < length; at += block) all.push(at);
  return sampled(all, (_, i) => i === 0 || i === all.length - 1);
}

/** Byte positions of an encoding to change: all of them, or both ends'
 * `ends` bytes (the root's nodes at the start, the last leaf at the end)
 * and a sample. */
export function bytePositions(length: number, ends = 200): number[] {
  const all = Array.from({ length }, (_, i) => i);
  return sampled(all, (i) => i < ends || i >= length - ends);
}

/** In a combined Bao encoding of `length` bytes (8-byte header, chunk
 * leaves): one byte inside each parent and each leaf, every node in the
 * exhaustive project, else the spines and a sample. */
export function combinedNodePositions(length: number): number[] {
  const walk = new NodeWalk(BlockSize.of(0)).start(length);
  const positions: number[] = [];
  const spine: boolean[] = [];
  let parents = 0;
  while (walk.next()) {
    if (walk.isLeaf && walk.size === 0) continue;
    const at = 8 + walk.offset + parents * 64;
    positions.push(walk.isLeaf ? at + (walk.size >> 1) : at + 40);
    spine.push(walk.offset === 0 || walk.offset + walk.size === length);
    if (!walk.isLeaf) parents++;
  }
  return sampled(positions, (_, i) => spine[i]!);
}
