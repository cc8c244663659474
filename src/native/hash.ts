// One-shot hashing through the native addon, with the same argument checks
// and errors as the wasm functions (input.ts).

import { MODE_DERIVE_KEY, MODE_HASH, MODE_KEYED, type Mode } from '../core.js';
import {
  MAX_CONTEXT_BYTES,
  checkContext,
  checkKey,
  checkOptions,
  outputLength,
  toBytes,
  type HashOptions,
  type Input,
  type KeyOption,
  type LengthOption,
} from '../input.js';
import { addon, type NativeAddon } from './addon.js';

/** A mode with its key: the key itself, or derive_key's context key. */
export interface NativeMode {
  mode: Mode;
  key: Uint8Array | undefined;
}

const HASH_MODE: NativeMode = { mode: MODE_HASH, key: undefined };
const encoder = new TextEncoder();

export function nativeNotLoaded(): never {
  throw new Error('blake3-kit: call `await init()` before hashing');
}

/** Context keys by context string, as for wasm (input.ts). */
const contextKeys = new Map<string, Uint8Array>();
const CONTEXT_CACHE_SIZE = 64;

function contextKey(native: NativeAddon, context: string, name: string): Uint8Array {
  const cached = contextKeys.get(context);
  if (cached !== undefined) return cached;
  // The same limit as the wasm backend, so that every backend accepts the
  // same contexts.
  if (context.length > MAX_CONTEXT_BYTES || encoder.encode(context).length > MAX_CONTEXT_BYTES) {
    throw new RangeError(`blake3-kit: ${name} must be at most ${MAX_CONTEXT_BYTES} bytes as UTF-8`);
  }
  const key = native.contextKey(context);
  if (contextKeys.size >= CONTEXT_CACHE_SIZE) contextKeys.clear();
  contextKeys.set(context, key);
  return key;
}

/** Checks `key`/`context` options; the key is copied, so later changes to
 * the caller's array don't reach a hasher. */
export function nativeMode(options: KeyOption | undefined, name: string): NativeMode {
  if (options === undefined) return HASH_MODE;
  checkOptions(options, name);
  const { key, context } = options;
  if (key !== undefined) {
    if (context !== undefined) {
      throw new TypeError(`blake3-kit: ${name}.key and ${name}.context cannot be used together`);
    }
    return { mode: MODE_KEYED, key: checkKey(key, `${name}.key`).slice() };
  }
  if (context !== undefined) {
    return { mode: MODE_DERIVE_KEY, key: contextKey(addon!, checkContext(context, `${name}.context`), `${name}.context`) };
  }
  return HASH_MODE;
}

/** UTF-8 of a string, or the bytes of a buffer or view, without copying the latter. */
export function inputBytes(input: Input, name: string): Uint8Array {
  return typeof input === 'string' ? encoder.encode(input) : toBytes(input, name);
}

function oneShot(input: Input, { mode, key }: NativeMode, length: number): Uint8Array {
  const bytes = inputBytes(input, 'input');
  const out = new Uint8Array(length);
  addon!.hashInto(mode, key, bytes, out);
  return out;
}

export function nativeHash(input: Input, options?: HashOptions): Uint8Array {
  if (addon === undefined) nativeNotLoaded();
  if (options === undefined) return oneShot(input, HASH_MODE, 32);
  checkOptions(options, 'options');
  const length = outputLength(options.length, 'options.length');
  return oneShot(input, nativeMode(options, 'options'), length);
}

export function nativeKeyedHash(key: ArrayBufferView | ArrayBufferLike, input: Input, options?: LengthOption): Uint8Array {
  if (addon === undefined) nativeNotLoaded();
  checkOptions(options, 'options');
  const length = outputLength(options?.length, 'options.length');
  return oneShot(input, { mode: MODE_KEYED, key: checkKey(key, 'key') }, length);
}

export function nativeDeriveKey(context: string, keyMaterial: Input, options?: LengthOption): Uint8Array {
  if (addon === undefined) nativeNotLoaded();
  checkOptions(options, 'options');
  const length = outputLength(options?.length, 'options.length');
  const key = contextKey(addon, checkContext(context, 'context'), 'context');
  return oneShot(keyMaterial, { mode: MODE_DERIVE_KEY, key }, length);
}
