// Compares digests in time that depends only on their length: a MAC check
// must not tell an attacker how many leading bytes were right.

import { toBytes } from './input.js';

/**
 * Whether `a` and `b` hold the same bytes: each an ArrayBufferView (its
 * bytes as laid out in memory, whatever its element type), an ArrayBuffer or
 * a SharedArrayBuffer. False if the byte lengths differ; for equal lengths
 * every byte is compared, so the time says nothing about where they differ.
 * Throws a TypeError naming `a` or `b` for anything else (a string, a number,
 * a plain object): compared element by element, those called different MACs
 * equal.
 */
export function equal(a: ArrayBufferView | ArrayBufferLike, b: ArrayBufferView | ArrayBufferLike): boolean {
  return sameBytes(toBytes(a, 'a'), toBytes(b, 'b'));
}

/** equal() for two Uint8Arrays already checked (the decoders' chaining
 * values): no conversion. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}
