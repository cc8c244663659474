// hash, keyedHash and deriveKey as blake3-wasm has them, returning the
// platform's binary type (Buffer in Node, Hash in browsers) around our
// one-shot output without copying it.

import { deriveKey as ourDeriveKey, hash as ourHash, keyedHash as ourKeyedHash } from '../backend.js';
import { checkOptions } from '../input.js';
import { contextString, hashable, inputToArray, type HashInput, type IBaseHashOptions } from './input.js';
import { ensureReady } from './ready.js';

/** Our output as the platform's type: a view of the same bytes. */
export type Wrap<T> = (bytes: Uint8Array) => T;

function lengthOnly(options: IBaseHashOptions | undefined): IBaseHashOptions | undefined {
  checkOptions(options, 'options');
  // Only the length: our options also take key and context.
  return options === undefined || options.length === undefined ? undefined : { length: options.length };
}

export function oneShots<T>(wrap: Wrap<T>) {
  return {
    /** BLAKE3 of the input: 32 bytes, or `length`. */
    hash(input: HashInput, options?: IBaseHashOptions): T {
      ensureReady();
      return wrap(ourHash(hashable(input, 'input'), lengthOnly(options)));
    },
    /** keyed_hash under a 32-byte key. */
    keyedHash(key: HashInput, input: HashInput, options?: IBaseHashOptions): T {
      ensureReady();
      return wrap(ourKeyedHash(inputToArray(key, 'key'), hashable(input, 'input'), lengthOnly(options)));
    },
    /** derive_key: key material for a hard-coded context string. */
    deriveKey(context: HashInput, material: HashInput, options?: IBaseHashOptions): T {
      ensureReady();
      return wrap(ourDeriveKey(contextString(context), hashable(material, 'material'), lengthOnly(options)));
    },
  };
}
