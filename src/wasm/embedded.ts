// Both wasm flavours as base64, put in by scripts/bundle.mjs: what the
// inline entry (browsers and anywhere without files) and the Node bundle
// entries (node/embedded.ts) compile from. One module in dist, so a program
// that reaches both carries the bytes once. Only the flavour asked for is
// decoded.

import type { Flavour } from '../engine.js';

declare const __BLAKE3_KIT_SIMD_WASM__: string;
declare const __BLAKE3_KIT_SCALAR_WASM__: string;

export function embeddedWasm(flavour: Flavour): Uint8Array<ArrayBuffer> {
  const text = atob(flavour === 'simd' ? __BLAKE3_KIT_SIMD_WASM__ : __BLAKE3_KIT_SCALAR_WASM__);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}
