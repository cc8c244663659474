import { toBytes } from './input.js';

const HEX_PAIRS = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** Lowercase hex of `bytes`, as b3sum prints digests. */
export function toHex(bytes: ArrayBufferView | ArrayBufferLike): string {
  const view = toBytes(bytes, 'bytes');
  let hex = '';
  for (let i = 0; i < view.length; i++) hex += HEX_PAIRS[view[i]!];
  return hex;
}
