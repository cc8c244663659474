// The platform-neutral public API, a barrel: each name has its home module.
// The entry points (node.ts, browser.ts, ...) add `init`, which needs to
// know where the wasm comes from.

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
export { equal } from './addressing/cid.js';
export { MAX_OUTPUT_LENGTH, type AsyncHashOptions, type HashOptions, type Input, type KeyOption, type LengthOption } from './input.js';
export { memoryStats } from './wasm/core.js';
export { simdSupported, type Backend, type Flavour, type WasmBackend, type WasmSource } from './wasm/load.js';
// Blake3Hasher and Blake3XofReader: the names the one Hasher and XofReader had.
export type { Hasher as Blake3Hasher, XofReader as Blake3XofReader } from './hasher.js';
