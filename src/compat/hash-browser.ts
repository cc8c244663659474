// blake3-wasm's browser output type: a Uint8Array with equals() and
// toString(encoding), and its three string encodings.

import { sameBytes } from '../equal.js';
import { toHex } from '../hex.js';

export type BrowserEncoding = 'hex' | 'base64' | 'utf8';

const decoder = new TextDecoder();
/** Bytes per String.fromCharCode call: theirs spreads every byte into one
 * call, which overflows the stack on long outputs. */
const CHARS_PER_CALL = 8192;

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += CHARS_PER_CALL) binary += String.fromCharCode(...bytes.subarray(i, i + CHARS_PER_CALL));
  return btoa(binary);
}

const encoders: Record<BrowserEncoding, (bytes: Uint8Array) => string> = {
  hex: toHex,
  base64,
  utf8: (bytes) => decoder.decode(bytes),
};

/** The encoder for `encoding`; theirs threw a plain Error for an unknown one. */
export function mustGetEncoder(encoding: BrowserEncoding): (bytes: Uint8Array) => string {
  if (Object.hasOwn(encoders, encoding)) return encoders[encoding];
  throw new TypeError(`blake3-kit/compat: unknown encoding ${JSON.stringify(String(encoding))}; the browser build has hex, base64 and utf8`);
}

/** A hash in browsers: a Uint8Array that compares and prints itself. */
export class Hash extends Uint8Array {
  /** Constant-time comparison with another hash or Uint8Array. */
  equals(other: unknown): boolean {
    return other instanceof Uint8Array && sameBytes(this, other);
  }

  override toString(encoding: BrowserEncoding = 'hex'): string {
    return mustGetEncoder(encoding)(this);
  }
}

/** Our output as a Hash over the same bytes. */
// A copy below 64 bytes: V8 keeps such typed arrays on its heap, and
// reading `.buffer` moves one off (~750 ns in Node 20's V8, src/compat/node.ts).
export const asHash = (bytes: Uint8Array): Hash => {
  if (bytes.length > 64) return new Hash(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.length);
  const copy = new Hash(bytes.length);
  copy.set(bytes);
  return copy;
};
