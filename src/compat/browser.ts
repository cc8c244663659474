// blake3-wasm's browser API (2.x `blake3-wasm/browser`, 3.x's browser
// build): results are Hash objects, strings encode as hex, base64 or utf8.
// Shared by the browser and workerd entries, which differ in how the wasm
// arrives (compat-browser.ts, compat-workerd.ts).

import { digestArguments, type IHasherDigestOptions } from './hasher.js';
import { asHash, Hash, mustGetEncoder, type BrowserEncoding } from './hash-browser.js';
import { defaultHashLength, type HashInput } from './input.js';
import { getWasm, HashRaw, WasmHasher, type WasmModule } from './internals.js';
import { oneShots } from './one-shots.js';
import { BaseHashReader, type IInternalReader } from './reader.js';

export { Hash, type BrowserEncoding } from './hash-browser.js';
export { BaseHash, type IHasher, type IHasherDigestOptions, type IInternalHash } from './hasher.js';
export { defaultHashLength, inputToArray, type BaseHashInput, type HashInput, type IBaseHashOptions } from './input.js';
export { getWasm, HashRaw, hashOneShot, MAX_SCRATCH_SIZE, scratch, setWasm, WasmHasher, type WasmModule } from './internals.js';
export { BaseHashReader, type IHashReader, type IInternalReader } from './reader.js';
export { maxHashBytes, using, type IDisposable } from './using.js';

/** The browser reader: toString() and toArray() give the first 32 bytes. */
export class BrowserHashReader extends BaseHashReader<Hash> {
  /** The first 32 output bytes, encoded; moves the position to 32. */
  override toString(encoding: BrowserEncoding = 'hex'): string {
    return this.toArray().toString(encoding);
  }

  /** The first 32 output bytes; moves the position to 32. */
  toArray(): Hash {
    this.position = 0n;
    return this.read(defaultHashLength);
  }

  protected alloc(bytes: number): Hash {
    return new Hash(bytes);
  }
}

const newReader = (internal: IInternalReader) => new BrowserHashReader(internal);

/** The hash object of createHash(), createKeyed() and createDeriveKey():
 * a WasmHasher (3.x) and so a BaseHash (2.x), as theirs was each. */
export class BrowserHasher extends WasmHasher<Hash, BrowserHashReader> {
  /** As 3.x: `new BrowserHasher(getWasm(), HashRaw.default())` (what
   * createHash() does; `wasmModule` is unused). */
  constructor(wasmModule: WasmModule, hash: HashRaw) {
    super(wasmModule, hash, newReader);
  }

  protected alloc(n: number): Hash {
    return new Hash(n);
  }

  override digest(options?: IHasherDigestOptions): Hash;
  override digest(encoding: undefined, options: IHasherDigestOptions): Hash;
  override digest(encoding: BrowserEncoding, options?: IHasherDigestOptions): string;
  override digest(encoding?: IHasherDigestOptions | BrowserEncoding, options?: IHasherDigestOptions): string | Hash {
    const [resolvedEncoding, resolvedOptions] = digestArguments(encoding, options);
    // The encoder first: an unknown encoding throws before the hasher is disposed.
    const encode = resolvedEncoding === undefined ? undefined : mustGetEncoder(resolvedEncoding);
    const result = super.digest(resolvedOptions);
    return encode === undefined ? result : encode(result);
  }
}

export const { hash, keyedHash, deriveKey } = oneShots(asHash);

/** A hasher, as Node's crypto.createHash(). */
export const createHash = (): BrowserHasher => new BrowserHasher(getWasm(), HashRaw.default());
/** A keyed_hash hasher under a 32-byte key. */
export const createKeyed = (key: HashInput): BrowserHasher => new BrowserHasher(getWasm(), HashRaw.keyed(key));
/** A derive_key hasher for a context string. */
export const createDeriveKey = (context: HashInput): BrowserHasher => new BrowserHasher(getWasm(), HashRaw.derive(context));
