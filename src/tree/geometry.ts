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
  let left = CHUNK_LEN; // integer doubling: Math.log2 rounds up just below 2^50
  while (left * 2 < length) left *= 2;
  return left;
}

/** leftSubtreeLength for lengths up to 2^64. */
export function leftSubtreeLengthBig(length: bigint): bigint {
  let left = BigInt(CHUNK_LEN);
  while (left * 2n < length) left *= 2n;
  return left;
}
