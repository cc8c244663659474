// The BLAKE3 tree's shape, in one place: its node sizes, where an input
// splits into subtrees, and the two 32-bit halves that the wasm and native
// exports take for a 64-bit offset or counter. Pure arithmetic: no wasm, no
// engine, so every format (hashing, the bao crate, iroh's bao-tree) and the
// public subtree API share it.

/** Bytes in a chunk, the tree's leaf. */
export const CHUNK_LEN = 1024;
/** A parent node: the left child's chaining value, then the right's. */
export const PARENT_LEN = 64;
/** A chaining value. */
export const CV_LEN = 32;

const TWO_32 = 2 ** 32;

/** The low 32 bits of a safe integer >= 0. */
export function low32(value: number): number {
  return value % TWO_32;
}

/** The bits of a safe integer >= 0 above the low 32. */
export function high32(value: number): number {
  return Math.floor(value / TWO_32);
}

/** Bytes in the left subtree of an input of `length` bytes (more than one
 * chunk): the largest power-of-two number of chunks below it. */
export function leftSubtreeLength(length: number): number {
  const chunks = Math.ceil(length / CHUNK_LEN);
  // Below 2^32 chunks (4 TiB) from the bit length, else by integer doubling
  // (Math.log2 rounds up just below 2^50). Every tree walk calls this per
  // parent: the doubling loop cost baoDecode 1 MiB ~4% (tree-bench.mjs).
  if (chunks <= TWO_32) return (0x80000000 >>> Math.clz32(chunks - 1)) * CHUNK_LEN;
  let left = CHUNK_LEN;
  while (left * 2 < length) left *= 2;
  return left;
}

/** leftSubtreeLength for lengths up to 2^64. */
export function leftSubtreeLengthBig(length: bigint): bigint {
  let left = BigInt(CHUNK_LEN);
  while (left * 2n < length) left *= 2n;
  return left;
}

/** The height of a subtree of `chunks` chunks (1 to 2^32): ceil(log2), 0
 * for one chunk. Its chaining value sits at that level of a level-by-level
 * tree; bao-tree's level of a parent is this minus one. */
export function heightOf(chunks: number): number {
  return chunks === 1 ? 0 : 32 - Math.clz32(chunks - 1);
}

/**
 * The leaf size of a tree, as a chunk log (bao-tree's BlockSize): 2^chunkLog
 * chunks per leaf. 0 is the bao crate's one-chunk leaf; iroh's chunk groups
 * use 4 (16 KiB). Callers keep the log, never turn bytes back into it.
 */
export class BlockSize {
  /** Bytes in a leaf. */
  readonly bytes: number;
  private constructor(readonly chunkLog: number) {
    this.bytes = CHUNK_LEN * 2 ** chunkLog;
  }

  static #sizes: BlockSize[] = [];
  /** The BlockSize of 2^chunkLog chunks (an integer 0 to 32; one object per log). */
  static of(chunkLog: number): BlockSize {
    const sizes = BlockSize.#sizes;
    return sizes[chunkLog] ?? (sizes[chunkLog] = new BlockSize(chunkLog));
  }

  /** Leaves of `length` bytes: at least one, even when empty. */
  leaves(length: number): number {
    return Math.max(1, Math.ceil(length / this.bytes));
  }

  /** Bytes of the parents of a tree over `length` bytes, 64 each. */
  parentsLength(length: number): number {
    return (this.leaves(length) - 1) * PARENT_LEN;
  }
}

/** The bao crate's leaf: one chunk. */
export const CHUNK_LEAVES = BlockSize.of(0);
