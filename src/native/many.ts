// hashMany through the addon: one napi call for a buffer of equal-sized
// inputs, and one per batch of separate inputs, which hashMany (src/many.ts)
// copies together as it reads them, up to 4 MiB (crate/native/src/many.rs
// hashes them across SIMD lanes, on the pool's threads from 1 MiB).

import type { ManyInputs, ManyOps } from '../engine.js';
import { addon } from './addon.js';
import { offHeapKey } from './hash.js';

export const nativeManyOps: ManyOps = {
  hashMany(mode, key, inputs: ManyInputs, length, out) {
    if ('itemLength' in inputs) addon!.hashMany(mode, offHeapKey(key), inputs.data, inputs.itemLength, undefined, length, out);
    else addon!.hashMany(mode, offHeapKey(key), inputs.data, 0, inputs.ends, length, out);
  },
};
