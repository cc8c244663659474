// Moving bytes between JS and a hasher slot through the staging buffer, in
// staging-sized pieces. Shared by one-shot hashing of large inputs, Hasher and
// XofReader.

import { core, fail, staging, stagingLen } from './core.js';
import { forEachStringPiece, toBytes } from './input.js';

const TWO_32 = 2 ** 32;

export function updateSlot(slot: number, input: unknown): void {
  if (typeof input === 'string') {
    forEachStringPiece(input, (byteCount) => {
      const code = core!.hasher_update(slot, byteCount);
      if (code < 0) fail(code, 'hasher_update');
    });
    return;
  }
  updateSlotBytes(slot, toBytes(input, 'input'));
}

export function updateSlotBytes(slot: number, bytes: Uint8Array): void {
  const length = bytes.length;
  if (length <= stagingLen) {
    staging.set(bytes);
    const code = core!.hasher_update(slot, length);
    if (code < 0) fail(code, 'hasher_update');
    return;
  }
  for (let offset = 0; offset < length; offset += stagingLen) {
    const piece = bytes.subarray(offset, offset + stagingLen);
    staging.set(piece);
    const code = core!.hasher_update(slot, piece.length);
    if (code < 0) fail(code, 'hasher_update');
  }
}

/** Fills `out` with root output starting at byte `positionHi * 2^32 +
 * positionLo`. The caller has checked that the range ends by 2^64 - 1. */
export function fillFromSlot(slot: number, out: Uint8Array, positionLo: number, positionHi: number): void {
  const total = out.length;
  for (let done = 0; done < total; ) {
    const count = Math.min(stagingLen, total - done);
    const code = core!.hasher_finalize(slot, count, positionLo, positionHi);
    if (code < 0) fail(code, 'hasher_finalize');
    out.set(count === stagingLen ? staging : staging.subarray(0, count), done);
    done += count;
    positionLo += count;
    if (positionLo >= TWO_32) {
      positionLo -= TWO_32;
      positionHi += 1;
    }
  }
}
