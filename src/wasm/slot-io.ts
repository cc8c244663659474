// Moving bytes between JS and wasm through the staging buffer, in
// staging-sized pieces: into hasher slots (one-shots of large inputs,
// Hasher, XofReader), and strings as UTF-8 without an intermediate copy.

import { copyInto, lengthOf, rangeOf, utf8Into } from '../input.js';
import { contextKeyCache } from '../modes.js';
import { core, fail, keyArea, staging, stagingLen } from './core.js';
import { high32, low32 } from '../tree/geometry.js';

/** UTF-16 units that always fit the staging buffer as UTF-8 (3 bytes each). */
export function maxStringUnits(): number {
  return Math.floor(stagingLen / 3);
}

/** Encodes `text` into the staging buffer; returns the byte count, or -1 if
 * it does not fit. */
export function stageString(text: string): number {
  const { read, written } = utf8Into(text, staging);
  return read === text.length ? written : -1;
}

/** Calls `take(byteCount)` after staging each piece of `text`, never splitting
 * a surrogate pair, so the bytes equal those of encoding the whole string. */
function forEachStringPiece(text: string, take: (byteCount: number) => void): void {
  const maxUnits = maxStringUnits();
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + maxUnits);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    take(utf8Into(text.slice(start, end), staging).written);
    start = end;
  }
}

export function updateSlotString(slot: number, text: string): void {
  forEachStringPiece(text, (byteCount) => {
    const code = core!.hasher_update(slot, byteCount);
    if (code < 0) fail(code, 'hasher_update');
  });
}

/** derive_key's context keys on wasm (the length was checked by the cache:
 * at most MAX_CONTEXT_BYTES, the staging buffer's size). */
export const wasmContextKeys = contextKeyCache((context) => {
  const length = stageString(context);
  if (length < 0) fail(length, 'stageString');
  const code = core!.derive_context_key(length);
  if (code < 0) fail(code, 'derive_context_key');
  return keyArea.slice();
});

export function updateSlotBytes(slot: number, bytes: Uint8Array): void {
  const length = lengthOf(bytes);
  if (length <= stagingLen) {
    staging.set(bytes);
    const code = core!.hasher_update(slot, length);
    if (code < 0) fail(code, 'hasher_update');
    return;
  }
  for (let offset = 0; offset < length; offset += stagingLen) {
    const end = Math.min(length, offset + stagingLen);
    staging.set(rangeOf(bytes, offset, end));
    const code = core!.hasher_update(slot, end - offset);
    if (code < 0) fail(code, 'hasher_update');
  }
}

/** Fills `out` with root output from byte `skip` (below 64) of output
 * block `counterHi * 2^32 + counterLo` on; past 2^64 - 1 bytes the counter
 * goes on, as the official OutputReader's does. */
export function fillFromSlot(slot: number, out: Uint8Array, counterLo: number, counterHi: number, skip: number): void {
  const total = lengthOf(out);
  // The staging buffer holds whole blocks: each piece starts at `skip` too.
  for (let done = 0; done < total; ) {
    const count = Math.min(stagingLen, total - done);
    const code = core!.hasher_finalize(slot, count, counterLo, counterHi, skip);
    if (code < 0) fail(code, 'hasher_finalize');
    copyInto(out, count === stagingLen ? staging : staging.subarray(0, count), done);
    done += count;
    counterLo += count / 64; // stagingLen is a multiple of 64
    counterHi = low32(counterHi + high32(counterLo)); // a carry, and u64's wrap
    counterLo = low32(counterLo);
  }
}
