// The platform-neutral public API. The entry points (node.ts, browser.ts)
// add `init`, which needs to know how to fetch the wasm file.

import { core } from './core.js';
import { deriveKey, hash, keyedHash } from './hash.js';
import { Hasher, XofReader, createHasher } from './hasher.js';
import { toHex } from './hex.js';
import type { Backend } from './load.js';

export { deriveKey, hash, keyedHash } from './hash.js';
export { Hasher, XofReader, createHasher } from './hasher.js';
export { toHex } from './hex.js';
export { MAX_OUTPUT_LENGTH, type AsyncHashOptions, type HashOptions, type Input, type KeyOption, type LengthOption } from './input.js';
export { backend, simdSupported, type Backend, type Flavour, type InitOptions, type WasmSource } from './load.js';

/** What `init()` resolves to: the synchronous API and the backend chosen. */
export interface Blake3 {
  readonly backend: Backend;
  readonly hash: typeof hash;
  readonly keyedHash: typeof keyedHash;
  readonly deriveKey: typeof deriveKey;
  readonly createHasher: typeof createHasher;
  readonly Hasher: typeof Hasher;
  readonly XofReader: typeof XofReader;
  readonly toHex: typeof toHex;
}

export function apiFor(active: Backend): Blake3 {
  return Object.freeze({ backend: active, hash, keyedHash, deriveKey, createHasher, Hasher, XofReader, toHex });
}

/** Diagnostics for tests and leak hunting: live wasm hasher slots and the
 * wasm memory size in bytes. */
export function memoryStats(): { liveHashers: number; memoryBytes: number } | undefined {
  if (core === undefined) return undefined;
  return { liveHashers: core.slots_in_use(), memoryBytes: core.memory.buffer.byteLength };
}

