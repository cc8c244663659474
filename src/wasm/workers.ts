// The one door between the hashing workers (src/parallel/) and the wasm
// backend: the pool side loads and shares the module and merges pieces;
// the worker side instantiates it and hashes pieces into subtrees. Nothing
// else in src/parallel/ imports from src/wasm/ (.dependency-cruiser.cjs).

export { applyKernelCode, holdProbe, kernelCode } from './blocks.js';
export { attach, core, type CoreExports } from './core.js';
export { hash } from './hash.js';
export { instantiate, loadedModule } from './load.js';
export { updateSlotBytes, wasmContextKeys } from './slot-io.js';
export { chainingValueAtOffset, chunkChainingValuesAt, finishSubtree, openSubtree, rootFromPieces } from './subtree.js';
export type { WasmModule } from './types.js';
