// The platform-neutral public API. The entry points (node.ts, browser.ts)
// add `init`, which needs to know how to fetch the wasm file.

import type { Hasher, XofReader } from './hasher.js';
import { core } from './wasm/core.js';

export {
  backend,
  backendStatus,
  deriveKey,
  hash,
  keyedHash,
  type BackendChoice,
  type BackendStatus,
  type Blake3,
  type InitOptions,
  type OneShots,
} from './backend.js';
export type { BlockChoice, BlockCode } from './wasm/blocks.js';

export { Hasher, XofReader, createHasher } from './hasher.js';
export { toHex } from './hex.js';
export { equal } from './cid.js';
export { MAX_OUTPUT_LENGTH, type AsyncHashOptions, type HashOptions, type Input, type KeyOption, type LengthOption } from './input.js';
export { simdSupported, type Backend, type Flavour, type WasmBackend, type WasmSource } from './wasm/load.js';

/** A streaming hasher (kept as a name for the one Hasher class). */
export type Blake3Hasher = Hasher;
/** An extended-output reader (kept as a name for the one XofReader class). */
export type Blake3XofReader = XofReader;

/** Diagnostics for tests and leak hunting: the wasm slots hashers and
 * readers hold (at most 4,096; any more keep their state in JS memory) and
 * the wasm memory size in bytes. */
export function memoryStats(): { liveHashers: number; memoryBytes: number } | undefined {
  if (core === undefined) return undefined;
  return { liveHashers: core.slots_in_use(), memoryBytes: core.memory.buffer.byteLength };
}
