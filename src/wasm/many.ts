// hashMany on wasm: as many inputs as fit the staging buffer per call, with
// their digests (crate/wasm/src/many.rs hashes them four lanes wide).

import type { ManyInputs, ManyOps } from '../engine.js';
import { lengthOf, rangeOf } from '../input.js';
import type { Mode } from '../modes.js';
import { core, fail, keyArea, staging, stagingLen } from './core.js';
import { hashModeInto } from './hash.js';

/** crate/wasm's `hash_many` takes its inputs' ends from the staging
 * buffer when the item length is this. */
const ENDS = 0xffffffff;
/** Longer outputs are each a one-shot: a batch of them would hardly fit. */
const MAX_BATCHED_OUTPUT = 1024;

function run(mode: Mode, count: number, itemLength: number, endsAt: number, outAt: number, length: number, out: Uint8Array, done: number): void {
  const code = core!.hash_many(mode, count, itemLength, endsAt, outAt, length);
  if (code < 0) fail(code, 'hash_many');
  out.set(staging.subarray(outAt, outAt + count * length), done * length);
}

function equalLengths(mode: Mode, key: Uint8Array | undefined, data: Uint8Array, itemLength: number, length: number, out: Uint8Array): void {
  const count = lengthOf(data) / itemLength;
  const perCall = Math.floor(stagingLen / (itemLength + length));
  for (let i = 0; i < count; ) {
    if (perCall === 0 || length > MAX_BATCHED_OUTPUT) {
      hashModeInto(mode, key, rangeOf(data, i * itemLength, (i + 1) * itemLength), out.subarray(i * length, (i + 1) * length));
      i++;
      continue;
    }
    const n = Math.min(perCall, count - i);
    if (key !== undefined) keyArea.set(key);
    staging.set(rangeOf(data, i * itemLength, (i + n) * itemLength));
    run(mode, n, itemLength, 0, n * itemLength, length, out, i);
    i += n;
  }
}

/** A batch of separate inputs (hashMany's copy of them, input j ending at
 * `ends[j]`): as many per call as fit the staging buffer with their ends
 * (4 bytes each) and digests, their bytes staged with one set(). */
function separate(mode: Mode, key: Uint8Array | undefined, data: Uint8Array, ends: Uint32Array, length: number, out: Uint8Array): void {
  const count = ends.length;
  for (let i = 0; i < count; ) {
    const base = i === 0 ? 0 : ends[i - 1]!;
    let n = 0;
    while (i + n < count && length <= MAX_BATCHED_OUTPUT && ends[i + n]! - base + (n + 1) * (4 + length) + 3 <= stagingLen) n++;
    if (n === 0) {
      hashModeInto(mode, key, data.subarray(base, ends[i]!), out.subarray(i * length, (i + 1) * length));
      i++;
      continue;
    }
    if (key !== undefined) keyArea.set(key);
    const bytes = ends[i + n - 1]! - base;
    staging.set(data.subarray(base, base + bytes));
    const view = new DataView(staging.buffer, staging.byteOffset, stagingLen);
    const endsAt = (bytes + 3) & ~3;
    for (let j = 0; j < n; j++) view.setUint32(endsAt + 4 * j, ends[i + j]! - base, true);
    run(mode, n, ENDS, endsAt, endsAt + 4 * n, length, out, i);
    i += n;
  }
}

export const wasmManyOps: ManyOps = {
  hashMany(mode, key, inputs: ManyInputs, length, out) {
    if ('itemLength' in inputs) equalLengths(mode, key, inputs.data, inputs.itemLength, length, out);
    else separate(mode, key, inputs.data, inputs.ends, length, out);
  },
};
