// One-shot hashing in the three modes on wasm.

import {
  checkContext,
  checkKey,
  checkOptions,
  copyInto,
  lengthOf,
  outputLength,
  toBytes,
  type HashOptions,
  type Input,
  type LengthOption,
} from '../input.js';
import { MODE_DERIVE_KEY, MODE_HASH, MODE_KEYED, modeOf, notInitialized, type Mode } from '../modes.js';
import { core, digestArea, fail, keyArea, newSlot, staging, stagingLen } from './core.js';
import { fillFromSlot, maxStringUnits, stageString, updateSlotBytes, updateSlotString, wasmContextKeys } from './slot-io.js';

/**
 * BLAKE3 of `input`: 32 bytes by default, or `options.length` bytes of
 * extended output. With `options.key` (32 bytes) it is keyed_hash, with
 * `options.context` derive_key.
 */
export function hash(input: Input, options?: HashOptions): Uint8Array {
  if (core === undefined) notInitialized();
  if (options === undefined) return hashInMode(input, MODE_HASH, 32);
  checkOptions(options, 'options');
  const length = outputLength(options.length, 'options.length');
  const { mode, key } = modeOf(options, 'options', wasmContextKeys);
  if (key !== undefined) keyArea.set(key);
  return hashInMode(input, mode, length);
}

/** keyed_hash: a MAC of `input` under a 32-byte `key`. */
export function keyedHash(key: ArrayBufferView | ArrayBufferLike, input: Input, options?: LengthOption): Uint8Array {
  if (core === undefined) notInitialized();
  checkOptions(options, 'options');
  const length = outputLength(options?.length, 'options.length');
  keyArea.set(checkKey(key, 'key'));
  return hashInMode(input, MODE_KEYED, length);
}

/** derive_key: key material for `context`, a hard-coded, globally unique,
 * application-specific string. */
export function deriveKey(context: string, keyMaterial: Input, options?: LengthOption): Uint8Array {
  if (core === undefined) notInitialized();
  checkOptions(options, 'options');
  const length = outputLength(options?.length, 'options.length');
  keyArea.set(wasmContextKeys(checkContext(context, 'context'), 'context'));
  return hashInMode(keyMaterial, MODE_DERIVE_KEY, length);
}

/** One-shot of `bytes` in `mode` into all of `out`, the key area first
 * loaded with `key` (the key, or derive_key's context key). */
export function hashModeInto(mode: Mode, key: Uint8Array | undefined, bytes: Uint8Array, out: Uint8Array): void {
  if (key !== undefined) keyArea.set(key);
  const length = lengthOf(bytes);
  const outLength = lengthOf(out);
  if (length <= stagingLen && outLength <= stagingLen) {
    staging.set(bytes);
    const code = core!.hash_oneshot(mode, length, outLength);
    if (code < 0) fail(code, 'hash_oneshot');
    copyInto(out, outLength === stagingLen ? staging : staging.subarray(0, outLength));
    return;
  }
  copyInto(out, throughSlot(bytes, mode, outLength));
}

function hashInMode(input: Input, mode: Mode, outLength: number): Uint8Array {
  if (typeof input === 'string') {
    if (input.length <= maxStringUnits() && outLength <= stagingLen) {
      return oneShot(mode, stageString(input), outLength);
    }
    return throughSlot(input, mode, outLength);
  }
  const bytes = toBytes(input, 'input');
  const length = lengthOf(bytes);
  if (length <= stagingLen && outLength <= stagingLen) {
    staging.set(bytes);
    return oneShot(mode, length, outLength);
  }
  return throughSlot(bytes, mode, outLength);
}

function oneShot(mode: Mode, inputLength: number, outLength: number): Uint8Array {
  const code = core!.hash_oneshot(mode, inputLength, outLength);
  if (code < 0) fail(code, 'hash_oneshot');
  return outLength === 32 ? new Uint8Array(digestArea) : staging.slice(0, outLength);
}

/** Inputs or outputs larger than the staging buffer go through a temporary
 * hasher slot (a recycled one: no allocation after the first). */
function throughSlot(input: string | Uint8Array, mode: Mode, outLength: number): Uint8Array {
  const slot = newSlot(mode);
  try {
    if (typeof input === 'string') updateSlotString(slot, input);
    else updateSlotBytes(slot, input);
    const out = new Uint8Array(outLength);
    fillFromSlot(slot, out, 0, 0, 0);
    return out;
  } finally {
    core!.hasher_free(slot);
  }
}
