// Node's default backend when the addon loads: wasm for small inputs, native
// for large ones. A napi call costs more than in-process wasm hashing of a
// small input, and the official assembly (AVX-512/AVX2/SSE4.1/NEON) wins
// once the input is large enough to pay for the call.

import type { Blake3Functions } from '../api.js';
import { deriveKey, hash, hashModeInto, keyedHash } from '../hash.js';
import type { HashOptions, Input, LengthOption } from '../input.js';
import { nativeDeriveKey, nativeHash, nativeHashInto, nativeKeyedHash } from './hash.js';
import { NativeHasher, NativeXofReader, createNativeHasher, setBatchHash } from './hasher.js';

/**
 * Inputs of at least this many bytes go to native. Set from the crossover
 * measured by bench/native/crossover.mjs (see the README's Performance
 * section for the table).
 */
export const NATIVE_FROM = 4096;

let nativeFrom = NATIVE_FROM;

/** For tests and benchmarks: where routing switches to native. */
export function setNativeFrom(bytes: number): void {
  nativeFrom = bytes;
}

export function nativeThreshold(): number {
  return nativeFrom;
}

// Strings count by UTF-16 units: at least one UTF-8 byte each. A value that
// is not an input has no byteLength, goes to wasm and is rejected there.
function sizeOf(input: Input): number {
  return typeof input === 'string' ? input.length : ((input as { byteLength?: number }).byteLength ?? 0);
}

function routedHash(input: Input, options?: HashOptions): Uint8Array {
  return input != null && sizeOf(input) >= nativeFrom ? nativeHash(input, options) : hash(input, options);
}

function routedKeyedHash(key: ArrayBufferView | ArrayBufferLike, input: Input, options?: LengthOption): Uint8Array {
  return input != null && sizeOf(input) >= nativeFrom ? nativeKeyedHash(key, input, options) : keyedHash(key, input, options);
}

function routedDeriveKey(context: string, keyMaterial: Input, options?: LengthOption): Uint8Array {
  return keyMaterial != null && sizeOf(keyMaterial) >= nativeFrom
    ? nativeDeriveKey(context, keyMaterial, options)
    : deriveKey(context, keyMaterial, options);
}

/** The native API on its own (the `native` backend). */
export const nativeFunctions: Blake3Functions = {
  hash: nativeHash,
  keyedHash: nativeKeyedHash,
  deriveKey: nativeDeriveKey,
  createHasher: createNativeHasher,
  Hasher: NativeHasher,
  XofReader: NativeXofReader,
};

/** Native above the crossover, wasm below it (`native+wasm-*`). Hashers
 * batch small updates in JS and hash a batch that never overflowed in one
 * call, routed by its size. */
export const routedFunctions: Blake3Functions = {
  hash: routedHash,
  keyedHash: routedKeyedHash,
  deriveKey: routedDeriveKey,
  createHasher: createNativeHasher,
  Hasher: NativeHasher,
  XofReader: NativeXofReader,
};

/** Makes small hashers' one-shots follow the routing (or go native). */
export function routeHasherBatches(routed: boolean): void {
  setBatchHash(
    routed
      ? (mode, key, bytes, out) =>
          bytes.length >= nativeFrom ? nativeHashInto(mode, key, bytes, out) : hashModeInto(mode, key, bytes, out)
      : undefined,
  );
}
