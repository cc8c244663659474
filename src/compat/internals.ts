// The names blake3-wasm 3.x exports from its internal package
// (@c4312/blake3-internal, re-exported by every 3.x entry): its emscripten
// glue. They exist here so that an import of any of them links, with the
// meaning each can keep over our backend (docs/migrating.md):
// - WasmHasher, 3.x's base of the browser hasher: ours extends 2.x's
//   BaseHash, so our BrowserHasher is an instance of both; a subclass
//   gives alloc() and is constructed over a HashRaw, as in 3.x;
// - HashRaw: a hasher handle from default(), keyed() or derive(), over our
//   Hasher; clone() and dispose() work, and update()/read(), which take
//   addresses in their wasm memory, throw: there is no such memory;
// - hashOneShot: BLAKE3 of bytes, a copy where theirs was a view;
// - getWasm: a stand-in module (a WasmHasher takes one) whose members
//   throw; setWasm and scratch.grow() throw; MAX_SCRATCH_SIZE is 3.x's value.

import { hash as ourHash } from '../backend.js';
import { Hasher } from '../hasher.js';
import { outputLength } from '../input.js';
import { BaseHash, newHasher, ownHash, type IInternalHash } from './hasher.js';
import { hashable, type HashInput } from './input.js';
import { BaseHashReader, type IHashReader, type IInternalReader } from './reader.js';
import { ensureReady } from './ready.js';

/** 3.x's emscripten module: its memory, allocator and calls. */
export interface WasmModule {
  HEAPU8: Uint8Array;
  _free(addr: number): void;
  _malloc(bytes: number): number;
  ccall<T extends number | boolean>(...args: unknown[]): T;
}

function noWasmMemory(what: string): never {
  throw new Error(
    `blake3-kit/compat: ${what} is blake3-wasm 3.x's emscripten memory, which blake3-kit does not have; hash with createHash() or hash()`,
  );
}

// Pure: a bundle that never calls getWasm() drops it.
const standIn: WasmModule = /* @__PURE__ */ Object.freeze({
  get HEAPU8(): Uint8Array {
    return noWasmMemory('getWasm().HEAPU8');
  },
  _free: () => noWasmMemory('getWasm()._free()'),
  _malloc: () => noWasmMemory('getWasm()._malloc()'),
  ccall: () => noWasmMemory('getWasm().ccall()'),
});

/** 3.x: the loaded emscripten module. Here, once the backend is loaded, a
 * stand-in to pass to a WasmHasher's constructor; its members throw. */
export const getWasm = (): WasmModule => {
  ensureReady();
  return standIn;
};

/** 3.x: installs an emscripten module of theirs, which ours cannot use. */
export const setWasm = (_module: WasmModule): WasmModule => {
  throw new TypeError("blake3-kit/compat: setWasm() installs blake3-wasm 3.x's emscripten module, which blake3-kit cannot use; call load()");
};

/** 3.x's most scratch memory, in bytes (nothing here uses it). */
export const MAX_SCRATCH_SIZE = 1024 * 1024;

/** 3.x's scratch buffer in wasm memory: ours has none to grow. */
export const scratch = /* @__PURE__ */ Object.freeze({
  get size(): number {
    return 0;
  },
  grow: (_bytes: number): number => noWasmMemory('scratch.grow()'),
});

/** Each HashRaw's hasher (a WeakMap: a static block reading a private
 * field would be a side effect, which bundlers keep). */
const hashers = new WeakMap<HashRaw, Hasher>();

/** A HashRaw's hasher, for BaseHash: what Node's and the browser's hash
 * objects are made over. */
export const rawHash = (raw: HashRaw): IInternalHash<IInternalReader> => {
  const hasher = hashers.get(raw);
  if (hasher === undefined)
    throw new TypeError('blake3-kit/compat: a hash object needs a HashRaw (HashRaw.default(), keyed(key) or derive(context))');
  return ownHash(hasher);
};

/** 3.x's hasher handle, over our Hasher. */
export class HashRaw {
  readonly scratch = scratch;

  /** @internal 3.x took a pointer into its wasm memory; ours come from
   * default(), keyed() and derive(). */
  constructor(hasher: Hasher) {
    if (!(hasher instanceof Hasher)) {
      throw new TypeError('blake3-kit/compat: a HashRaw comes from HashRaw.default(), keyed(key) or derive(context)');
    }
    hashers.set(this, hasher);
  }

  static default(): HashRaw {
    return new HashRaw(newHasher(undefined));
  }

  /** keyed_hash under a 32-byte key (3.x: bytes; a string too, as UTF-8). */
  static keyed(key: HashInput): HashRaw {
    return new HashRaw(newHasher({ key }));
  }

  /** derive_key for a context (3.x: its UTF-8 bytes; a string too). */
  static derive(context: HashInput): HashRaw {
    return new HashRaw(newHasher({ context }));
  }

  update(_address: number, _length: number): void {
    noWasmMemory('HashRaw.update(address, length)');
  }

  read(_seek: bigint, _address: number, _length: number): void {
    noWasmMemory('HashRaw.read(seek, address, length)');
  }

  clone(): HashRaw {
    return new HashRaw(hashers.get(this)!.clone());
  }

  dispose(): void {
    hashers.get(this)!.dispose();
  }
}

/** 3.x's one-shot hash of bytes: `hashLength` bytes (a copy; theirs was a
 * view into wasm memory). */
export function hashOneShot(input: Uint8Array, hashLength: number): Uint8Array {
  ensureReady();
  return ourHash(hashable(input, 'input'), { length: outputLength(hashLength, 'hashLength') });
}

/** 3.x's plain reader: read() allocates with its hasher's alloc(). */
class AllocReader<T extends Uint8Array> extends BaseHashReader<T> {
  readonly #alloc: (bytes: number) => T;

  constructor(reader: IInternalReader, alloc: (bytes: number) => T) {
    super(reader);
    this.#alloc = alloc;
  }

  protected alloc(bytes: number): T {
    return this.#alloc(bytes);
  }
}

/** 3.x's base hasher (the browser's BrowserHasher extends it): update,
 * digest, reader and dispose over a HashRaw; a subclass gives alloc(). */
export abstract class WasmHasher<Binary extends Uint8Array, Reader extends IHashReader<Binary> = IHashReader<Binary>> extends BaseHash<
  Binary,
  IInternalReader,
  Reader
> {
  /** `wasmModule` is unused (getWasm() gives a stand-in). `getReader`, if
   * given, makes the readers (our BrowserHasher's: BrowserHashReader). */
  constructor(wasmModule: WasmModule, hash: HashRaw, getReader?: (internal: IInternalReader) => Reader) {
    void wasmModule;
    const alloc = (length: number): Binary => this.alloc(length);
    super(rawHash(hash), alloc, getReader ?? ((internal) => new AllocReader(internal, alloc) as unknown as Reader));
  }

  /** A new output array of `n` bytes. */
  protected abstract alloc(n: number): Binary;
}
