// Node's default backend when the addon loads: wasm for small inputs, native
// for large ones. A napi call costs more than in-process wasm hashing of a
// small input, and the official assembly (AVX-512/AVX2/SSE4.1/NEON) wins
// once the input is large enough to pay for the call.

import type { HasherEngine, ManyOps, TreeOps } from '../engine.js';
import { lengthOf, type HashOptions, type Input, type LengthOption } from '../input.js';
import { nativeEngine, nativeTreeOps } from '../native/engine.js';
import { nativeDeriveKey, nativeHash, nativeHashInto, nativeKeyedHash } from '../native/hash.js';
import type { NativeState } from '../native/states.js';
import { nativeManyOps } from '../native/many.js';
import { wasmManyOps } from '../wasm/many.js';
import { wasmTreeOps } from '../wasm/tree-ops.js';
import { deriveKey, hash, hashModeInto, keyedHash } from '../wasm/hash.js';

/**
 * Inputs of at least this many bytes go to native: from 8 KiB on native was
 * faster at every size measured, and below it wasm won at most sizes
 * (`node bench/native/crossover.mjs`, one-shot, ns/op, medians of 21
 * interleaved rounds; Node 20, 2-core EPYC with AVX-512):
 *
 * | size        | 1 KiB | 2 KiB | 3 KiB | 4 KiB-1 | 4 KiB | 7 KiB | 8 KiB-1 | 8 KiB | 9 KiB | 16 KiB-1 | 64 KiB |
 * |-------------|------:|------:|------:|--------:|------:|------:|--------:|------:|------:|---------:|-------:|
 * | wasm-simd   |  1059 |  2080 |  2434 |    3479 |  2497 |  4815 |    5756 |  4776 |  5782 |    10166 |  36476 |
 * | native      |  1635 |  1722 |  3135 |    4674 |  1833 |  4860 |    6296 |  2106 |  3556 |     8121 |   7294 |
 *
 * The official crate hashes whole chunks several at a time, but a lone
 * chunk, and a partial last chunk, with its one-block code, where our wasm
 * kernel still works four lanes wide. So below 8 KiB native wins only on an
 * even number of whole chunks: 2 KiB 1646 vs 2024 ns, 4 KiB 1755 vs 2402,
 * 6 KiB 3215 vs 4405 (native faster in 20-21 of 21 rounds each), while 3 KiB
 * (3048 vs 2351), 5 KiB (3151 vs 3388, a near tie) and 7 KiB (a tie) are
 * not worth the rule. Those sizes (EVEN_CHUNKS) go native too.
 */
export const NATIVE_FROM = 8 * 1024;
const EVEN_CHUNKS = 2 * 1024;

/** From where routing sends every size to native. */
export function nativeThreshold(): number {
  return NATIVE_FROM;
}

// Strings count by UTF-16 units: at least one UTF-8 byte each. A value that
// is not an input has no byteLength, goes to wasm and is rejected there.
function sizeOf(input: Input): number {
  return typeof input === 'string' ? input.length : ((input as { byteLength?: number }).byteLength ?? 0);
}

function goesNative(size: number): boolean {
  return size >= NATIVE_FROM || (size >= EVEN_CHUNKS && size % EVEN_CHUNKS === 0);
}

function routedHash(input: Input, options?: HashOptions): Uint8Array {
  return input != null && goesNative(sizeOf(input)) ? nativeHash(input, options) : hash(input, options);
}

function routedKeyedHash(key: ArrayBufferView | ArrayBufferLike, input: Input, options?: LengthOption): Uint8Array {
  return input != null && goesNative(sizeOf(input)) ? nativeKeyedHash(key, input, options) : keyedHash(key, input, options);
}

function routedDeriveKey(context: string, keyMaterial: Input, options?: LengthOption): Uint8Array {
  return keyMaterial != null && goesNative(sizeOf(keyMaterial))
    ? nativeDeriveKey(context, keyMaterial, options)
    : deriveKey(context, keyMaterial, options);
}

/** The one-shots of the routed backend (`native+wasm-*`). */
export const routedOneShots = { hash: routedHash, keyedHash: routedKeyedHash, deriveKey: routedDeriveKey };

/** Native hasher state, with the one-shot of a hasher whose input never
 * outgrew its batch routed by size like `hash()`. */
export const routedEngine: HasherEngine<NativeState> = {
  ...nativeEngine,
  hashInto: (mode, key, bytes, out) => (goesNative(bytes.length) ? nativeHashInto(mode, key, bytes, out) : hashModeInto(mode, key, bytes, out)),
};

/** Subtree chaining values and whole pre-order trees routed by size like
 * hash(); merges and the small batches on wasm: one compression (or four
 * lanes of chunks) at a time, where a napi call costs more. */
export const routedTreeOps: TreeOps = {
  ...wasmTreeOps,
  chainingValueAt: (mode, key, offsetLo, offsetHi, bytes) =>
    (goesNative(bytes.length) ? nativeTreeOps : wasmTreeOps).chainingValueAt(mode, key, offsetLo, offsetHi, bytes),
  preOrder: (mode, key, content, out, options) =>
    (goesNative(content.length) ? nativeTreeOps : wasmTreeOps).preOrder(mode, key, content, out, options),
};

/** Batches of up to this many bytes stay on wasm: one napi call costs
 * ~350 ns, about what wasm takes to hash 256 bytes. MANY_NATIVE_FROM. */
const MANY_NATIVE_FROM = 2 * 1024;

/** hashMany on native once the batch pays for the call. */
export const routedManyOps: ManyOps = {
  hashMany(mode, key, inputs, length, out) {
    const bytes = lengthOf(inputs.data);
    (bytes >= MANY_NATIVE_FROM ? nativeManyOps : wasmManyOps).hashMany(mode, key, inputs, length, out);
  },
};
