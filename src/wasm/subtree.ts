// BLAKE3 tree pieces, for hashing in parallel: the chaining value of a
// subtree at an input offset, and the merges of two chaining values (upstream
// hazmat's set_input_offset, finalize_non_root, merge_subtrees_*).

import type { Mode } from '../modes.js';
import { core, fail, keyArea, newSlot, staging, stagingLen } from './core.js';
import { updateSlotBytes } from './slot-io.js';
import { BlockSize, CHUNK_LEN, high32, low32 } from '../tree/geometry.js';
import { Tree } from '../tree/tree.js';

/** The non-root chaining value of `bytes`, which start at input `offset` (a
 * multiple of 1024) and form a whole subtree there. */
export function chainingValueAtOffset(mode: Mode, key: Uint8Array | undefined, offset: number, bytes: Uint8Array): Uint8Array {
  return chainingValueAt(mode, key, low32(offset), high32(offset), bytes);
}

/** chainingValueAtOffset at offset `offsetHi * 2^32 + offsetLo` (TreeOps.chainingValueAt). */
export function chainingValueAt(mode: Mode, key: Uint8Array | undefined, offsetLo: number, offsetHi: number, bytes: Uint8Array): Uint8Array {
  const slot = openSubtree(mode, key, offsetLo, offsetHi);
  try {
    updateSlotBytes(slot, bytes);
    return finishSubtree(slot);
  } finally {
    core!.hasher_free(slot);
  }
}

/** A hasher slot for a subtree at input offset `offsetHi * 2^32 +
 * offsetLo`, to be fed with updateSlotBytes as its bytes arrive; the caller
 * frees it. */
export function openSubtree(mode: Mode, key: Uint8Array | undefined, offsetLo: number, offsetHi: number): number {
  if (key !== undefined) keyArea.set(key);
  const slot = newSlot(mode);
  const code = core!.hasher_set_input_offset(slot, offsetLo, offsetHi);
  if (code < 0) {
    core!.hasher_free(slot);
    fail(code, 'hasher_set_input_offset');
  }
  return slot;
}

/** The non-root chaining value of what an openSubtree slot was fed. */
export function finishSubtree(slot: number): Uint8Array {
  const code = core!.hasher_finalize_non_root(slot);
  if (code < 0) fail(code, 'hasher_finalize_non_root');
  return staging.slice(0, 32);
}

function stagePair(left: Uint8Array, right: Uint8Array, key: Uint8Array | undefined): void {
  if (key !== undefined) keyArea.set(key);
  staging.set(left, 0);
  staging.set(right, 32);
}

export function mergeNonRoot(mode: Mode, key: Uint8Array | undefined, left: Uint8Array, right: Uint8Array): Uint8Array {
  stagePair(left, right, key);
  const code = core!.merge_non_root(mode);
  if (code < 0) fail(code, 'merge_non_root');
  return staging.slice(0, 32);
}

/** chunkChainingValues of `bytes` at input byte `offset` (a chunk boundary). */
export function chunkChainingValuesAt(mode: Mode, key: Uint8Array | undefined, offset: number, bytes: Uint8Array): Uint8Array {
  const chunk = offset / CHUNK_LEN;
  return chunkChainingValues(mode, key, low32(chunk), high32(chunk), bytes);
}

/** Chaining values of the chunks of `bytes` from chunk `counterHi * 2^32 +
 * counterLo` (whole chunks but the last), a staging buffer at a time. */
export function chunkChainingValues(mode: Mode, key: Uint8Array | undefined, counterLo: number, counterHi: number, bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(bytes.length / CHUNK_LEN) * 32);
  for (let done = 0; done < bytes.length; ) {
    const count = Math.min(stagingLen, bytes.length - done);
    const chunk = counterLo + done / CHUNK_LEN; // below 2^53: exact
    if (key !== undefined) keyArea.set(key);
    staging.set(bytes.subarray(done, done + count));
    const code = core!.chunk_cvs(mode, count, low32(chunk), counterHi + high32(chunk));
    if (code < 0) fail(code, 'chunk_cvs');
    out.set(staging.subarray(0, 32 * code), (done / CHUNK_LEN) * 32);
    done += count;
  }
  return out;
}

/** Parent chaining values of 64-byte (left, right) records, a staging buffer at a time. */
export function parentChainingValues(mode: Mode, key: Uint8Array | undefined, records: Uint8Array): Uint8Array {
  const out = new Uint8Array(records.length / 2);
  for (let done = 0; done < records.length; ) {
    const count = Math.min(stagingLen, records.length - done);
    if (key !== undefined) keyArea.set(key);
    staging.set(records.subarray(done, done + count));
    const code = core!.parent_cvs(mode, count / 64);
    if (code < 0) fail(code, 'parent_cvs');
    out.set(staging.subarray(0, 32 * code), done / 2);
    done += count;
  }
  return out;
}

/** `length` bytes of root output from the two top-level chaining values. */
export function mergeRoot(mode: Mode, key: Uint8Array | undefined, left: Uint8Array, right: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let done = 0; done < length; ) {
    const count = Math.min(stagingLen, length - done);
    stagePair(left, right, key);
    const code = core!.merge_root(mode, count, low32(done), high32(done));
    if (code < 0) fail(code, 'merge_root');
    out.set(staging.subarray(0, count), done);
    done += count;
  }
  return out;
}

/** Merges the chaining values of consecutive `pieceLength`-byte pieces (a
 * power of two of chunks, the last piece possibly shorter) of a
 * `length`-byte input (more than one piece) into its root output, in the
 * tree's own shape: the pieces are the leaves of a tree walk. */
export function rootFromPieces(
  mode: Mode,
  key: Uint8Array | undefined,
  pieces: Uint8Array[],
  pieceLength: number,
  length: number,
  outLength: number,
): Uint8Array {
  const walk = Tree.of(length, BlockSize.of(Math.log2(pieceLength / CHUNK_LEN))).walk({ exits: true });
  // values[d]: the left child's value of the open parent at depth d.
  const values: Uint8Array[] = [];
  let value: Uint8Array | undefined;
  while (walk.next()) {
    if (!walk.isLeaf && !walk.exit) continue;
    if (walk.exit) {
      const left = values[walk.depth]!;
      value = walk.isRoot ? mergeRoot(mode, key, left, value!, outLength) : mergeNonRoot(mode, key, left, value!);
    } else value = pieces[walk.offset / pieceLength]!;
    // A left child's value waits for its sibling; a right one goes up at its parent's exit.
    if (!walk.isRight && !walk.isRoot) values[walk.depth - 1] = value;
  }
  return value!;
}
