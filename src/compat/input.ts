import { utf8 } from '../input.js'; // Inputs as blake3-wasm takes them (its inputToArray): a Uint8Array (Buffer
// too) as it is, a string as UTF-8, an ArrayBuffer or SharedArrayBuffer as
// its bytes, and anything else `new Uint8Array(x)` accepts: an array of
// numbers, or another typed array element by element (a Uint16Array's
// elements mod 256, not its bytes), so digests stay the same as theirs.
// Where theirs silently hashes something else (a DataView, a number, null:
// no bytes or zero bytes), a TypeError names the argument (docs/migrating.md).

/** Default output length, in bytes. */
export const defaultHashLength = 32;

/** Options of the hash functions: the output length in bytes (not the length of an encoded string). */
export interface IBaseHashOptions {
  length?: number;
}

/** What blake3-wasm 2.x can hash (3.x: the same, strings included). */
export type BaseHashInput = Uint8Array | ArrayBuffer | SharedArrayBuffer | ArrayLike<number>;
export type HashInput = BaseHashInput | string;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (ArrayBuffer.isView(value)) return value.constructor.name;
  return typeof value;
}

/** The input as bytes, converted as blake3-wasm converts it. */
export function inputToArray(input: HashInput, name = 'input'): Uint8Array {
  if (input instanceof Uint8Array) return input;
  if (typeof input === 'string') return utf8(input);
  if (input instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && input instanceof SharedArrayBuffer)) return new Uint8Array(input);
  if (typeof input === 'object' && input !== null && !(input instanceof DataView) && typeof (input as ArrayLike<number>).length === 'number') {
    return new Uint8Array(input as ArrayLike<number>);
  }
  throw new TypeError(
    `blake3-kit/compat: ${name} must be a string, Uint8Array, ArrayBuffer, SharedArrayBuffer, typed array or array of numbers; got ${describe(input)}`,
  );
}

/** inputToArray, but a string stays a string: the backend encodes it
 * straight into wasm memory. */
export function hashable(input: HashInput, name: string): Uint8Array | string {
  return typeof input === 'string' ? input : inputToArray(input, name);
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A derive_key context: 3.x takes bytes too. BLAKE3 contexts are strings,
 * and ours are taken as such: bytes must be UTF-8. */
export function contextString(context: HashInput): string {
  if (typeof context === 'string') return context;
  const bytes = inputToArray(context, 'context');
  try {
    return decoder.decode(bytes);
  } catch {
    throw new TypeError('blake3-kit/compat: context bytes must be UTF-8 text (a BLAKE3 context is a string)');
  }
}
