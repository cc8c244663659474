// blake3-wasm's Node API: results are Buffers, strings take any Buffer
// encoding, and the hash object is a Transform stream whose output is the
// digest, as theirs is.

import { Buffer } from 'node:buffer';
import { Transform, type TransformCallback } from 'node:stream';
import { BaseHash, digestArguments, type IHasher, type IHasherDigestOptions } from './hasher.js';
import { defaultHashLength, type HashInput } from './input.js';
import { getWasm, HashRaw, rawHash, type WasmModule } from './internals.js';
import { oneShots } from './one-shots.js';
import { BaseHashReader, type IInternalReader } from './reader.js';

export { BaseHash, type IHasher, type IHasherDigestOptions, type IInternalHash } from './hasher.js';
export { defaultHashLength, inputToArray, type BaseHashInput, type HashInput, type IBaseHashOptions } from './input.js';
export { getWasm, HashRaw, hashOneShot, MAX_SCRATCH_SIZE, scratch, setWasm, WasmHasher, type WasmModule } from './internals.js';
export { BaseHashReader, type IHashReader, type IInternalReader } from './reader.js';
export { maxHashBytes, using, type IDisposable } from './using.js';

const allocBuffer = (length: number) => Buffer.alloc(length);
// V8 keeps typed arrays of up to 64 bytes on its heap, and reading
// `.buffer` of one moves it off: Buffer.from(bytes.buffer) of a 32-byte
// digest cost ~750 ns of a 1,100 ns hash(64 B), against ~45 ns for a copy
// (Node 20; bench/compat.mjs measures the call). Larger outputs are viewed.
const ON_HEAP_MAX = 64;
const asBuffer = (bytes: Uint8Array): Buffer => {
  if (bytes.length > ON_HEAP_MAX) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const copy = Buffer.alloc(bytes.length);
  copy.set(bytes);
  return copy;
};

/** The Node reader: toString() and toBuffer() give the first 32 bytes. */
export class NodeHashReader extends BaseHashReader<Buffer> {
  /** The first 32 output bytes, encoded; moves the position to 32. */
  override toString(encoding: BufferEncoding = 'hex'): string {
    return this.toBuffer().toString(encoding);
  }

  /** The first 32 output bytes; moves the position to 32. */
  toBuffer(): Buffer {
    this.position = 0n;
    return this.read(defaultHashLength);
  }

  protected alloc(bytes: number): Buffer {
    return Buffer.alloc(bytes);
  }
}

/** The hash object's type, as 2.x declared it. */
export interface INodeHash extends IHasher<Buffer> {
  update(data: HashInput, encoding?: BufferEncoding): this;
  digest(options?: IHasherDigestOptions): Buffer;
  digest(encoding: undefined, options: IHasherDigestOptions): Buffer;
  digest(encoding: BufferEncoding, options?: IHasherDigestOptions): string;
}

const newReader = (internal: IInternalReader) => new NodeHashReader(internal);

/** The hash object: a Transform stream (write input, read the digest) with
 * update, digest, reader and dispose, over a BaseHash as theirs. Not a
 * BaseHash itself: in 2.x and 3.x, Node's hash object is not one either. */
export class NodeHash extends Transform implements INodeHash {
  readonly #core: BaseHash<Buffer, IInternalReader, NodeHashReader>;

  /** As 3.x: `new NodeHash(getWasm(), HashRaw.default())` (what createHash()
   * does; `wasmModule` is unused). */
  constructor(wasmModule: WasmModule, hash: HashRaw) {
    void wasmModule;
    const core = new BaseHash<Buffer, IInternalReader, NodeHashReader>(rawHash(hash), allocBuffer, newReader);
    super();
    this.#core = core;
  }

  /** Adds input; a string is decoded with `encoding` (UTF-8 by default). */
  update(data: HashInput, encoding?: BufferEncoding): this {
    this.#core.update(typeof data === 'string' && encoding !== undefined ? Buffer.from(data, encoding) : data);
    return this;
  }

  digest(options?: IHasherDigestOptions): Buffer;
  digest(encoding: undefined, options: IHasherDigestOptions): Buffer;
  digest(encoding: BufferEncoding, options?: IHasherDigestOptions): string;
  digest(encoding?: IHasherDigestOptions | BufferEncoding, options?: IHasherDigestOptions): string | Buffer {
    const [resolvedEncoding, resolvedOptions] = digestArguments(encoding, options);
    // An unknown encoding throws before the hasher is disposed, as in browsers.
    if (resolvedEncoding !== undefined && !Buffer.isEncoding(resolvedEncoding)) {
      throw new TypeError(`blake3-kit/compat: unknown encoding ${JSON.stringify(String(resolvedEncoding))}`);
    }
    const result = this.#core.digest(resolvedOptions);
    return resolvedEncoding === undefined ? result : result.toString(resolvedEncoding);
  }

  reader(options?: { dispose?: boolean }): NodeHashReader {
    return this.#core.reader(options);
  }

  dispose(): void {
    this.#core.dispose();
  }

  /** @internal */
  override _transform(chunk: Buffer | string, encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      this.update(chunk, typeof chunk === 'string' ? encoding : undefined);
    } catch (error) {
      callback(error as Error);
      return;
    }
    callback();
  }

  /** @internal */
  override _flush(callback: TransformCallback): void {
    let digest: Buffer;
    try {
      digest = this.digest();
    } catch (error) {
      callback(error as Error);
      return;
    }
    callback(null, digest);
  }
}

export const { hash, keyedHash, deriveKey } = oneShots(asBuffer);

/** A hasher, as Node's crypto.createHash(). */
export const createHash = (): NodeHash => new NodeHash(getWasm(), HashRaw.default());
/** A keyed_hash hasher under a 32-byte key. */
export const createKeyed = (key: HashInput): NodeHash => new NodeHash(getWasm(), HashRaw.keyed(key));
/** A derive_key hasher for a context string. */
export const createDeriveKey = (context: HashInput): NodeHash => new NodeHash(getWasm(), HashRaw.derive(context));
