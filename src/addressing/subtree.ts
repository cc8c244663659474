// Subtrees of the BLAKE3 tree, the official crate's `hazmat` model: the
// chaining value of input that starts at a chunk boundary, and the merge of
// two chaining values into their parent, so that parts hashed apart (other
// threads, processes or machines) combine into the exact BLAKE3 of the whole.
// Every rule the crate asserts is checked here, as a RangeError.

import { activeEngine } from '../engine.js';
import { treeOps } from '../tree-ops.js';
import { checkOptions, lengthOf, outputLength, toBytes, toPosition, type HashOptions, type Input, type KeyOption, inputBytes } from '../input.js';
import { modeOf } from '../modes.js';
import { CHUNK_LEN, CV_LEN, leftSubtreeLengthBig } from '../tree/geometry.js';

export interface SubtreeOptions extends KeyOption {
  /** Where the subtree starts in the whole input: a multiple of 1024. */
  offset?: number | bigint;
}

const CHUNK = BigInt(CHUNK_LEN);
/** The most bytes the subtree starting at `offset` (a multiple of 1024,
 * greater than 0) can hold: 1024 times the largest power of two dividing
 * its chunk index. At offset 0 there is no limit (undefined). */
export function maxSubtreeLength(offset: number | bigint): bigint | undefined {
  const at = chunkAligned(toPosition(offset, 'offset'), 'offset');
  if (at === 0n) return undefined;
  const index = at / CHUNK;
  return (index & -index) * CHUNK;
}

/** Where the tree splits an input of `length` bytes (more than 1024): the
 * largest power-of-two number of whole chunks below it. */
export function leftSubtreeLength(length: number): number;
export function leftSubtreeLength(length: bigint): bigint;
export function leftSubtreeLength(length: number | bigint): number | bigint {
  const total = toPosition(length, 'length');
  if (total <= CHUNK) throw new RangeError(`blake3-kit: length must be more than ${CHUNK_LEN} bytes (one chunk) to have subtrees; got ${total}`);
  const left = leftSubtreeLengthBig(total);
  return typeof length === 'number' ? Number(left) : left;
}

/**
 * The non-root chaining value of `input`, which starts at byte
 * `options.offset` of the whole input. Every subtree but the last must hold
 * exactly `maxSubtreeLength(offset)` bytes, or the left part of the tree
 * (a power-of-two number of chunks); the last may be shorter.
 */
export function subtreeChainingValue(input: Input, options?: SubtreeOptions): Uint8Array {
  const engine = activeEngine();
  // Every option read before the key is checked: a getter run later could
  // shrink or detach the key's buffer, and the key would be read short.
  const offsetOption = options?.offset;
  const { mode, key } = modeOf(options, 'options', engine.contextKey);
  const offset = chunkAligned(toPosition(offsetOption ?? 0, 'options.offset'), 'options.offset');
  const bytes = inputBytes(input, 'input');
  const length = lengthOf(bytes);
  if (length === 0) throw new RangeError('blake3-kit: input of a subtree must hold at least one byte');
  const max = maxSubtreeLength(offset);
  if (max !== undefined && BigInt(length) > max) {
    throw new RangeError(`blake3-kit: the subtree at offset ${offset} holds at most ${max} bytes; input has ${length}`);
  }
  toPosition(offset + BigInt(length), 'options.offset + input length');
  return treeOps().chainingValueAt(mode, key, Number(BigInt.asUintN(32, offset)), Number(offset >> 32n), bytes);
}

/** The chaining value of the parent of two subtrees (`left` first). */
export function mergeSubtrees(left: Uint8Array, right: Uint8Array, options?: KeyOption): Uint8Array {
  const engine = activeEngine();
  const { mode, key } = modeOf(options, 'options', engine.contextKey);
  return treeOps().mergeSubtrees(mode, key, chainingValue(left, 'left'), chainingValue(right, 'right'), false, CV_LEN);
}

/** The root output of the whole input from the two subtrees under the root
 * (32 bytes, or `options.length`): the same as `hash()` of the whole. */
export function mergeSubtreesRoot(left: Uint8Array, right: Uint8Array, options?: HashOptions): Uint8Array {
  const engine = activeEngine();
  checkOptions(options, 'options');
  // options.length read before the key is checked: its getter could shrink
  // or detach the key's buffer (wasm then read 16 bytes of key and 16 left
  // in its key area by an earlier call).
  const length = outputLength(options?.length, 'options.length');
  const { mode, key } = modeOf(options, 'options', engine.contextKey);
  return treeOps().mergeSubtrees(mode, key, chainingValue(left, 'left'), chainingValue(right, 'right'), true, length);
}

function chunkAligned(offset: bigint, name: string): bigint {
  if (offset % CHUNK !== 0n) throw new RangeError(`blake3-kit: ${name} must be a multiple of ${CHUNK_LEN} (a chunk boundary); got ${offset}`);
  return offset;
}

/** `value` as a 32-byte chaining value, its length read through lengthOf: a
 * Uint8Array's own `length` can lie (a 16-byte one that said 32 was staged
 * with 16 bytes of the previous call's). Checked after every option is
 * read, and no caller code runs between the check and the merge. */
function chainingValue(value: unknown, name: string): Uint8Array {
  const bytes = toBytes(value, name);
  const length = lengthOf(bytes);
  if (length !== CV_LEN) throw new RangeError(`blake3-kit: ${name} must be a ${CV_LEN}-byte chaining value; got ${length} bytes`);
  return bytes;
}
