// blake3-wasm's browser API (2.x `blake3-wasm/browser`, 3.x's browser
// build): results are Hash objects, strings encode as hex, base64 or utf8.
// Shared by the browser and workerd entries, which differ in how the wasm
// arrives (compat-browser.ts, compat-workerd.ts).

import { digestArguments, HasherCore, newHasher, type HasherMode, type IHasher, type IHasherDigestOptions } from './hasher.js';
import { asHash, Hash, mustGetEncoder, type BrowserEncoding } from './hash-browser.js';
import type { HashInput } from './input.js';
import { oneShots } from './one-shots.js';
import { HashReader } from './reader.js';
import { defaultHashLength } from './input.js';

export { Hash, type BrowserEncoding } from './hash-browser.js';
export { defaultHashLength, inputToArray, type BaseHashInput, type HashInput, type IBaseHashOptions } from './input.js';
export type { IHasher, IHasherDigestOptions } from './hasher.js';
export type { IHashReader } from './reader.js';
export { maxHashBytes, using, type IDisposable } from './using.js';

const allocHash = (length: number) => new Hash(length);

/** The browser reader: toString() and toArray() give the first 32 bytes. */
export class BrowserHashReader extends HashReader<Hash> {
  /** The first 32 output bytes, encoded; moves the position to 32. */
  override toString(encoding: BrowserEncoding = 'hex'): string {
    return this.toArray().toString(encoding);
  }

  /** The first 32 output bytes; moves the position to 32. */
  toArray(): Hash {
    this.position = 0n;
    return this.read(defaultHashLength);
  }
}

/** The hash object of createHash(), createKeyed() and createDeriveKey(). */
export class BrowserHasher implements IHasher<Hash> {
  readonly #core: HasherCore<Hash>;

  /** @internal */
  constructor(mode: HasherMode) {
    this.#core = new HasherCore(newHasher(mode), allocHash);
  }

  update(data: HashInput): this {
    this.#core.update(data);
    return this;
  }

  digest(options?: IHasherDigestOptions): Hash;
  digest(encoding: undefined, options: IHasherDigestOptions): Hash;
  digest(encoding: BrowserEncoding, options?: IHasherDigestOptions): string;
  digest(encoding?: IHasherDigestOptions | BrowserEncoding, options?: IHasherDigestOptions): string | Hash {
    const [resolvedEncoding, resolvedOptions] = digestArguments(encoding, options);
    // The encoder first: an unknown encoding throws before the hasher is disposed.
    const encode = resolvedEncoding === undefined ? undefined : mustGetEncoder(resolvedEncoding);
    const result = this.#core.digest(resolvedOptions);
    return encode === undefined ? result : encode(result);
  }

  reader(options?: { dispose?: boolean }): BrowserHashReader {
    return new BrowserHashReader(this.#core.xof(options), allocHash);
  }

  dispose(): void {
    this.#core.dispose();
  }
}

export const { hash, keyedHash, deriveKey } = oneShots(asHash);

/** A hasher, as Node's crypto.createHash(). */
export const createHash = (): BrowserHasher => new BrowserHasher(undefined);
/** A keyed_hash hasher under a 32-byte key. */
export const createKeyed = (key: HashInput): BrowserHasher => new BrowserHasher({ key });
/** A derive_key hasher for a context string. */
export const createDeriveKey = (context: HashInput): BrowserHasher => new BrowserHasher({ context });
