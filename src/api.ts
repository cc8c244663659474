// The platform-neutral public API. The entry points (node.ts, browser.ts)
// add `init`, which needs to know how to fetch the wasm file.

import { core } from './core.js';
import { deriveKey, hash, keyedHash } from './hash.js';
import { Hasher, XofReader, createHasher } from './hasher.js';
import { toHex } from './hex.js';
import type { KeyOption, LengthOption, Input } from './input.js';
import type { Backend } from './load.js';

export { deriveKey, hash, keyedHash } from './hash.js';
export { Hasher, XofReader, createHasher } from './hasher.js';
export { toHex } from './hex.js';
export { MAX_OUTPUT_LENGTH, type AsyncHashOptions, type HashOptions, type Input, type KeyOption, type LengthOption } from './input.js';
export { backend, simdSupported, type Backend, type Flavour, type InitOptions, type WasmBackend, type WasmSource } from './load.js';

/** A streaming hasher of any backend (wasm `Hasher`, or the native one). */
export interface Blake3Hasher {
  readonly disposed: boolean;
  update(input: Input): this;
  digest(options?: LengthOption): Uint8Array;
  digestInto<T extends Uint8Array>(out: T): T;
  xof(): Blake3XofReader;
  reset(): this;
  clone(): Blake3Hasher;
  dispose(): void;
  [Symbol.dispose](): void;
}

/** An extended-output reader of any backend. */
export interface Blake3XofReader {
  readonly disposed: boolean;
  get position(): bigint;
  set position(position: bigint | number);
  read(length: number): Uint8Array;
  readInto<T extends Uint8Array>(out: T): T;
  dispose(): void;
  [Symbol.dispose](): void;
}

/** The functions a backend provides. */
export interface Blake3Functions {
  readonly hash: typeof hash;
  readonly keyedHash: typeof keyedHash;
  readonly deriveKey: typeof deriveKey;
  readonly createHasher: (options?: KeyOption) => Blake3Hasher;
  readonly Hasher: new (options?: KeyOption) => Blake3Hasher;
  readonly XofReader: abstract new (...args: never[]) => Blake3XofReader;
}

/** What `init()` resolves to: the synchronous API and the backend chosen. */
export interface Blake3 extends Blake3Functions {
  readonly backend: Backend;
  readonly toHex: typeof toHex;
}

export const wasmFunctions: Blake3Functions = { hash, keyedHash, deriveKey, createHasher, Hasher, XofReader };

export function apiFor(active: Backend, functions: Blake3Functions = wasmFunctions): Blake3 {
  return Object.freeze({ backend: active, ...functions, toHex });
}

/** Diagnostics for tests and leak hunting: live wasm hasher slots and the
 * wasm memory size in bytes. */
export function memoryStats(): { liveHashers: number; memoryBytes: number } | undefined {
  if (core === undefined) return undefined;
  return { liveHashers: core.slots_in_use(), memoryBytes: core.memory.buffer.byteLength };
}

