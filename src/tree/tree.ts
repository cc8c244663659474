// A BLAKE3 tree as a value, in the shape of bao-tree's BaoTree: a length
// and a leaf size together, so that a caller asks the tree how many parents
// it has, where it splits and where a parent is stored, instead of working
// it out. Its walk (walk.ts) numbers the parents in pre- and post-order as
// it goes; a ParentStore turns those numbers into bytes.

import { type BlockSize, CHUNK_LEAVES, leftSubtreeLength, PARENT_LEN } from './geometry.js';
import type { Boundaries } from './ranges.js';
import { NodeWalk, parentsInPreOrder, type WalkOptions } from './walk.js';

/** Where each parent goes: before its subtrees ('pre', the bao crate's and
 * bao-tree's default) or after them ('post', written as data arrives). */
export type Order = 'pre' | 'post';

export class Tree {
  /** Leaves: at least one, even when empty. */
  readonly leaves: number;

  private constructor(
    /** Content bytes. */
    readonly length: number,
    /** The leaf size. */
    readonly block: BlockSize,
  ) {
    this.leaves = block.leaves(length);
  }

  /** The tree over `length` bytes (a safe integer >= 0) with leaves of
   * `block` (one chunk, the bao crate's, by default). */
  static of(length: number, block: BlockSize = CHUNK_LEAVES): Tree {
    return new Tree(length, block);
  }

  /** Parents: one fewer than the leaves. */
  get parents(): number {
    return this.leaves - 1;
  }

  /** Bytes of its parents, 64 each: an outboard without a header. */
  get parentsLength(): number {
    return (this.leaves - 1) * PARENT_LEN;
  }

  /** Bytes in the root's left subtree: where the content splits (a tree of
   * more than one chunk). */
  get split(): number {
    return leftSubtreeLength(this.length);
  }

  /** A walk over the tree (walk.ts), pruned by `query` (chunk ranges, the
   * tree starting at chunk `firstChunk`) when given. */
  walk(options?: WalkOptions, query?: Boundaries, firstChunk?: number): NodeWalk {
    return new NodeWalk(this.block, options).start(this.length, query, firstChunk);
  }

  /** Each parent's content offset (and size) in pre-order into `offsets`
   * (`sizes`), which hold `parents` entries; returns how many. The fast
   * paths' walk: no per-node object (walk.ts). */
  parentsInPreOrder(offsets: Float64Array, sizes?: Float64Array): number {
    return parentsInPreOrder(this.block, this.length, offsets, sizes);
  }

  /** The content offset of the `index`-th parent in pre-order: for the
   * message of a failed check. */
  parentOffset(index: number): number {
    const walk = this.walk({ parentsOnly: true });
    while (walk.next()) if (walk.preIndex === index) return walk.offset;
    return 0;
  }
}

/**
 * A tree's parents stored one after another, 64 bytes each, in one order:
 * a bao-tree outboard, or a Bao outboard after its header. A node is found
 * from the walk's numbering of it; the caller never counts bytes.
 */
export class ParentStore {
  constructor(
    readonly tree: Tree,
    /** Exactly tree.parentsLength bytes (the caller checks, with its own message). */
    readonly bytes: Uint8Array,
    readonly order: Order,
  ) {}

  /** The root's node: first in pre-order, last in post-order. */
  root(): Uint8Array {
    return this.#node(this.order === 'pre' ? 0 : this.tree.parents - 1);
  }

  /** The node of the parent the walk is at. */
  at(walk: NodeWalk): Uint8Array {
    const at = this.positionOf(walk);
    return this.bytes.subarray(at, at + PARENT_LEN);
  }

  /** Where in `bytes` that node starts: for loops over every parent,
   * which write or compare in place rather than make a view per node. */
  positionOf(walk: NodeWalk): number {
    return (this.order === 'pre' ? walk.preIndex : walk.postIndex) * PARENT_LEN;
  }

  #node(index: number): Uint8Array {
    const at = index * PARENT_LEN;
    return this.bytes.subarray(at, at + PARENT_LEN);
  }
}
