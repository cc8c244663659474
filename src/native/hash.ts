// One-shot hashing through the native addon, with the same argument checks
// and errors as the wasm functions (input.ts).

import {
  checkContext,
  checkKey,
  checkOptions,
  copyInto,
  inputBytes,
  lengthOf,
  outputLength,
  type HashOptions,
  type Input,
  type LengthOption,
} from '../input.js';
import { HASH_MODE, MODE_DERIVE_KEY, MODE_KEYED, contextKeyCache, modeOf, notInitialized, type ModeKey } from '../modes.js';
import { addon } from './addon.js';

/** derive_key's context keys on the addon. */
export const nativeContextKeys = contextKeyCache((context) => addon!.contextKey(context));

/**
 * V8 keeps typed arrays of up to 64 bytes inside the JS heap, and napi must
 * move such an array's bytes out of the heap before native code can see
 * them: that cost ~400 ns per call, more than hashing 64 bytes. So small
 * inputs, keys and outputs pass through these buffers, which live outside
 * the heap (1 KiB: larger than any array V8 keeps inside). Measured with a
 * 64-byte input (Node 20, 2-core EPYC): 721 -> 297 ns per hashInto call.
 */
const SCRATCH = 1024;
const ON_HEAP_MAX = 64;
const scratchIn = new Uint8Array(SCRATCH);
const scratchKey = new Uint8Array(SCRATCH).subarray(0, 32);
const scratchOut = new Uint8Array(SCRATCH);
const scratchOut32 = scratchOut.subarray(0, 32);

/** `bytes` as native code can borrow it without a copy out of the V8 heap. */
function offHeap(bytes: Uint8Array, scratch: Uint8Array): Uint8Array {
  const length = lengthOf(bytes);
  if (length > ON_HEAP_MAX) return bytes;
  scratch.set(bytes);
  return scratch.length === length ? scratch : scratch.subarray(0, length);
}

/** A key or context key, off the heap for the duration of one native call. */
export function offHeapKey(key: Uint8Array | undefined): Uint8Array | undefined {
  return key === undefined ? undefined : offHeap(key, scratchKey);
}

/** Where a native call should write `out`: `out` itself, or an off-heap
 * scratch view when `out` is small enough to live in the V8 heap (the
 * caller then copies it back: `if (into !== out) copyInto(out, into)`). */
export function outputTarget(out: Uint8Array): Uint8Array {
  const length = lengthOf(out);
  if (length > ON_HEAP_MAX) return out;
  return length === 32 ? scratchOut32 : scratchOut.subarray(0, length);
}

/** Fills `out` (any length) with a one-shot hash. */
export function nativeHashInto(mode: number, key: Uint8Array | undefined, input: Uint8Array, out: Uint8Array): void {
  const into = outputTarget(out);
  addon!.hashInto(mode, offHeapKey(key), offHeap(input, scratchIn), into);
  if (into !== out) copyInto(out, into);
}

function oneShot(input: Input, { mode, key }: ModeKey, length: number): Uint8Array {
  const bytes = inputBytes(input, 'input');
  const out = new Uint8Array(length);
  nativeHashInto(mode, key, bytes, out);
  return out;
}

export function nativeHash(input: Input, options?: HashOptions): Uint8Array {
  if (addon === undefined) notInitialized();
  if (options === undefined) return oneShot(input, HASH_MODE, 32);
  checkOptions(options, 'options');
  const length = outputLength(options.length, 'options.length');
  return oneShot(input, modeOf(options, 'options', nativeContextKeys), length);
}

export function nativeKeyedHash(key: ArrayBufferView | ArrayBufferLike, input: Input, options?: LengthOption): Uint8Array {
  if (addon === undefined) notInitialized();
  checkOptions(options, 'options');
  const length = outputLength(options?.length, 'options.length');
  return oneShot(input, { mode: MODE_KEYED, key: checkKey(key, 'key') }, length);
}

export function nativeDeriveKey(context: string, keyMaterial: Input, options?: LengthOption): Uint8Array {
  if (addon === undefined) notInitialized();
  checkOptions(options, 'options');
  const length = outputLength(options?.length, 'options.length');
  const key = nativeContextKeys(checkContext(context, 'context'), 'context');
  return oneShot(keyMaterial, { mode: MODE_DERIVE_KEY, key }, length);
}
