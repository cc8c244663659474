// hashMany through the addon: one napi call for a buffer of equal-sized
// inputs, and one per few MiB of separate inputs, gathered into a scratch
// buffer (crate/native/src/many.rs hashes them across SIMD lanes, on the
// pool's threads from 1 MiB).

import type { ManyInputs, ManyOps } from '../engine.js';
import { lengthOf } from '../input.js';
import { addon } from './addon.js';
import { nativeHashInto, offHeapKey } from './hash.js';

/** Separate inputs are copied together up to this many bytes per call:
 * enough for the pool's threads (from 1 MiB), bounded memory. */
const GATHER = 4 * 1024 * 1024;
/** Inputs this long are hashed where they are: the copy would cost more
 * than the call it saves. */
const ALONE_FROM = 64 * 1024;

let gathered: Uint8Array | undefined;
let ends: Uint32Array | undefined;

function separate(mode: number, key: Uint8Array | undefined, items: readonly Uint8Array[], length: number, out: Uint8Array): void {
  gathered ??= new Uint8Array(GATHER);
  ends ??= new Uint32Array(GATHER / 64);
  for (let i = 0; i < items.length; ) {
    let n = 0;
    let end = 0;
    while (i + n < items.length && n < ends.length) {
      const item = items[i + n]!;
      const itemLength = lengthOf(item);
      if (itemLength >= ALONE_FROM || end + itemLength > GATHER) break;
      gathered.set(item, end);
      end += itemLength;
      ends[n++] = end;
    }
    if (n === 0) {
      nativeHashInto(mode, key, items[i]!, out.subarray(i * length, (i + 1) * length));
      i++;
      continue;
    }
    addon!.hashMany(mode, offHeapKey(key), gathered.subarray(0, end), 0, ends.subarray(0, n), length, out.subarray(i * length, (i + n) * length));
    i += n;
  }
}

export const nativeManyOps: ManyOps = {
  hashMany(mode, key, inputs: ManyInputs, length, out) {
    if ('data' in inputs) addon!.hashMany(mode, offHeapKey(key), inputs.data, inputs.itemLength, undefined, length, out);
    else separate(mode, key, inputs.items, length, out);
  },
};
