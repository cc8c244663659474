// The one walk over a BLAKE3 / Bao tree (bao-tree's TreeNode iterators, as
// a cursor): every encoder, decoder, slice, range walk and outboard visits
// nodes through it, so the tree's shape is decided here and nowhere else.
//
// Pre-order: a parent, then its left subtree, then its right. A parent can
// also be visited on the way back up (`exits`), after its subtrees, which is
// post-order for the parents and where values computed bottom up are merged.
// A query (chunk ranges) prunes the walk: a subtree the ranges miss is
// visited as a leaf with `wanted` false.
//
// A cursor, not a generator or a callback: next() moves it and its fields
// describe the node, so a walk allocates nothing per node (it keeps only
// the path from the root, in typed arrays) and serves sync, generator and
// async callers alike. Where
// the walk replaced recursive closures (wasm/pre-order.ts, decode.ts),
// baoEncode and baoDecode kept their speed: numbers in the commit that made
// this file (test-results/tree-bench.mjs).

import { type BlockSize, CHUNK_LEN, heightOf, leftSubtreeLength } from './geometry.js';
import { type Boundaries, isAll, splitInner } from './ranges.js';

// What next() does: visit the current parent's left child, or move on
// from the current node (its subtree done, or skipped), or nothing.
const DESCEND = 0;
const FINISH = 1;
const DONE = 2;

export interface WalkOptions {
  /** Visit each parent once more after its subtrees (`exit` true). */
  exits?: boolean;
  /** With a query: a leaf the ranges cover only in part is opened down to
   * its chunks, as bao-tree's range encoding sends it. */
  openPartial?: boolean;
  /** Visit parents only (no query): for walks that place leaves by
   * arithmetic. A 1 MiB tree of chunks walked in 86 us with its leaves,
   * against 57 us for the recursion it replaced; parents alone, half. */
  parentsOnly?: boolean;
}

export class NodeWalk {
  /** The node's first content byte, from the start of the walk. */
  offset = 0;
  /** Content bytes under the node. */
  size = 0;
  /** A parent's left subtree, in bytes (where it splits). */
  left = 0;
  /** 0 at the root. */
  depth = 0;
  isRoot = true;
  /** Whether the node is its parent's right child. */
  isRight = false;
  /** A leaf: a block (or less), or, with a query, a subtree not opened. */
  isLeaf = true;
  /** A parent visited after its subtrees (only with `exits`). */
  exit = false;
  /** With a query: whether the ranges meet the node. */
  wanted = true;
  /** With a query: whether the ranges cover the node whole. */
  covered = true;
  /** With a query: the ranges that reach the node. */
  query: Boundaries = [];
  /** The parents before the node in pre-order: a parent's index among
   * them, and for a leaf, how many precede it (so a combined encoding holds
   * the node at preIndex x 64 + offset). */
  preIndex = 0;
  /** The parents before the node's subtree in post-order; a parent's own
   * index is this plus its subtree's parents, minus one (postIndex). */
  postFirst = 0;

  readonly #block: number;
  readonly #exits: boolean;
  readonly #openPartial: boolean;
  readonly #parentsOnly: boolean;
  #queried = false;
  #firstChunk = 0;
  #state = DONE;
  /** The depth of the node next() moves on from. */
  #at = 0;
  // The path from the root to the current node, by depth: no stack of
  // pending siblings, as a right sibling follows from its parent. Plain
  // arrays: four typed arrays made each walk cost ~17 us more to start
  // (--cpu-prof of 1 MiB baoDecode: 1% of it).
  readonly #offsets: number[] = [];
  readonly #sizes: number[] = [];
  readonly #lefts: number[] = [];
  readonly #right: number[] = [];
  readonly #pre: number[] = [];
  readonly #postFirst: number[] = [];
  /** The ranges of each open parent's right child. */
  readonly #rightQueries: Boundaries[] = [];

  constructor(block: BlockSize, options?: WalkOptions) {
    this.#block = block.bytes;
    this.#exits = options?.exits === true;
    this.#openPartial = options?.openPartial === true;
    this.#parentsOnly = options?.parentsOnly === true;
  }

  /** Starts a walk over `length` bytes, pruned by `query` when given
   * (chunk ranges, in which the walk starts at chunk `firstChunk`); next()
   * visits the root. Offsets stay from the walk's start. */
  start(length: number, query?: Boundaries, firstChunk = 0): this {
    this.#queried = query !== undefined;
    this.#firstChunk = firstChunk;
    this.#enter(0, length, 0, false, query, 0, 0);
    // The root comes out of the first next().
    this.#state = -1;
    return this;
  }

  /** Moves to the next node; false when the walk is over. */
  next(): boolean {
    for (;;) {
      const state = this.#state;
      if (state === DESCEND) {
        const d = this.#at;
        const offset = this.#offsets[d]!;
        let leftQuery: Boundaries | undefined;
        if (this.#queried) {
          const left = this.#offsets[d]! + this.#lefts[d]!;
          const first = this.#firstChunk;
          [leftQuery, this.#rightQueries[d]] = splitInner(this.query, first + offset / CHUNK_LEN, first + left / CHUNK_LEN);
        }
        this.#enter(offset, this.#lefts[d]!, d + 1, false, leftQuery, this.#pre[d]! + 1, this.#postFirst[d]!);
      } else if (state === FINISH) {
        const d = this.#at;
        if (d === 0) {
          this.#state = DONE;
          return false;
        }
        const p = d - 1;
        if (this.#right[d] === 0) {
          // The right subtree's parents follow the left's in either order.
          // A left subtree is a power of two of chunks: its leaves, less one.
          const leftParents = Math.ceil(this.#lefts[p]! / this.#block) - 1;
          this.#enter(
            this.#offsets[p]! + this.#lefts[p]!,
            this.#sizes[p]! - this.#lefts[p]!,
            d,
            true,
            this.#rightQueries[p],
            this.#pre[p]! + 1 + leftParents,
            this.#postFirst[p]! + leftParents,
          );
        } else {
          // A right child done: so is its parent.
          this.#at = p;
          if (!this.#exits) continue;
          this.offset = this.#offsets[p]!;
          this.size = this.#sizes[p]!;
          this.left = this.#lefts[p]!;
          this.depth = p;
          this.isRoot = p === 0;
          this.isRight = this.#right[p] === 1;
          this.isLeaf = false;
          this.exit = true;
          this.preIndex = this.#pre[p]!;
          this.postFirst = this.#postFirst[p]!;
          return true;
        }
      } else if (state === DONE) return false;
      // A node was just entered (or the root is due).
      if (this.isLeaf) {
        this.#state = FINISH;
        if (this.#parentsOnly) continue;
      } else this.#state = DESCEND;
      return true;
    }
  }

  /** Leaves the current parent's subtrees (and its exit) unvisited. */
  skip(): void {
    if (this.#state === DESCEND) this.#state = FINISH;
  }

  /** A parent's index among the tree's parents in post-order. */
  get postIndex(): number {
    return this.postFirst + Math.ceil(this.size / this.#block) - 2;
  }

  /** ceil(log2) of the node's chunks: the level of its chaining value. */
  get height(): number {
    return heightOf(Math.max(1, Math.ceil(this.size / CHUNK_LEN)));
  }

  #enter(offset: number, size: number, depth: number, isRight: boolean, query: Boundaries | undefined, pre: number, postFirst: number): void {
    this.offset = offset;
    this.preIndex = pre;
    this.postFirst = postFirst;
    this.size = size;
    this.depth = depth;
    this.isRoot = depth === 0;
    this.isRight = isRight;
    this.exit = false;
    this.#at = depth;
    this.#offsets[depth] = offset;
    this.#sizes[depth] = size;
    this.#right[depth] = isRight ? 1 : 0;
    let leaf: boolean;
    if (this.#queried) {
      this.query = query!;
      this.wanted = query!.length > 0;
      this.covered = isAll(query!);
      leaf = !this.wanted || size <= CHUNK_LEN || (size <= this.#block && (this.covered || !this.#openPartial));
    } else leaf = size <= this.#block;
    this.isLeaf = leaf;
    if (!leaf) {
      this.#lefts[depth] = this.left = leftSubtreeLength(size);
      // Only a parent's places are asked for again, by its children.
      this.#pre[depth] = pre;
      this.#postFirst[depth] = postFirst;
    }
  }
}

/** The value a node is checked against, in a walk from the root: `root`
 * at the root, else its half of its parent's node, which the walker keeps
 * in `nodes` by depth. */
export function expectedValue(walk: NodeWalk, nodes: Uint8Array[], root: Uint8Array): Uint8Array {
  if (walk.isRoot) return root;
  const at = walk.isRight ? 32 : 0;
  return nodes[walk.depth - 1]!.subarray(at, at + 32);
}

/**
 * The parents of a tree over `length` bytes in pre-order, for the loops
 * that place nodes by arithmetic (decode.ts, pre-order.ts, encode.ts): each
 * one's content offset into `offsets` (and its size into `sizes`), from
 * index 0; returns how many. Both must hold leaves(length) - 1 entries.
 * NodeWalk's fields cost ~50 ns a parent, which a 1 MiB baoDecode felt
 * (+4%); in local variables this walk is faster than the recursion it
 * replaced (a 1 MiB leaf copy: 107-111 us against 120, /tmp script).
 */
export function parentsInPreOrder(block: BlockSize, length: number, offsets: Float64Array, sizes?: Float64Array): number {
  const leaf = block.bytes;
  let count = 0;
  let offset = 0;
  let size = length;
  for (;;) {
    if (size > leaf) {
      offsets[count] = offset;
      if (sizes !== undefined) sizes[count] = size;
      count++;
      size = leftSubtreeLength(size);
      continue;
    }
    // A subtree ending at `end` is the last of a left child of lowestBit(end)
    // chunks (left subtrees are whole powers of two): the right child of
    // its parent comes next.
    const end = offset + size;
    if (end >= length) return count;
    offset = end;
    size = Math.min(lowestBit(end / CHUNK_LEN) * CHUNK_LEN, length - end);
  }
}

/** The lowest set bit of a safe integer > 0. */
function lowestBit(value: number): number {
  const low = value % 2 ** 32;
  if (low !== 0) return (low & -low) >>> 0;
  let bit = 2 ** 32;
  while ((value / bit) % 2 === 0) bit *= 2;
  return bit;
}
