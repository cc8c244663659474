// wasm/load.ts's loadWasm without a promise, for initBackendSync(): the
// module comes compiled from the platform (Node reads and compiles the file,
// workerd imports it), and the rest is the same: flavour choice, known-answer
// test with the same fallback, attach, block probe. What it does not do:
// record the module for hashing workers (loadedModule() stays undefined, so
// hashParallel hashes on the calling thread until an init() loads one).

import { probeBlocks } from '../wasm/blocks.js';
import { attach } from '../wasm/core.js';
import { instantiate, simdSupported, type Flavour, type WasmBackend } from '../wasm/load.js';
import { selfTestFailure } from '../wasm/self-test.js';
import type { WasmModule } from '../wasm/types.js';

export interface SyncLoaded {
  wasm: WasmBackend;
  /** Why the first module was not used (its self-test failed), if so. */
  fallback: string | undefined;
}

export function loadWasmSync(platform: { compileSync(flavour: Flavour): WasmModule }, requested: Flavour | 'auto'): SyncLoaded {
  const flavour: Flavour = requested === 'auto' ? (simdSupported() ? 'simd' : 'scalar') : requested;
  if (flavour === 'simd' && !simdSupported()) {
    throw new Error('blake3-kit: flavour "simd" was forced, but this engine does not support WebAssembly SIMD');
  }
  let loaded = instantiate(platform.compileSync(flavour));
  let fallback: string | undefined;
  const failure = selfTestFailure(loaded);
  if (failure !== undefined) {
    const built: Flavour = loaded.is_simd() === 1 ? 'simd' : 'scalar';
    const other: Flavour = built === 'simd' ? 'scalar' : 'simd';
    const why = `the wasm-${built} module gave a wrong answer in its self-test at import (${failure})`;
    if (requested !== 'auto' || (other === 'simd' && !simdSupported())) throw new Error(`blake3-kit: ${why}; no other build to use`);
    loaded = instantiate(platform.compileSync(other));
    const second = selfTestFailure(loaded);
    if (second !== undefined) throw new Error(`blake3-kit: ${why}, and so did wasm-${other} (${second})`);
    fallback = `${why}, so wasm-${other} is used`;
    console.warn(`blake3-kit: ${fallback}`);
  }
  attach(loaded);
  probeBlocks(loaded);
  return { wasm: loaded.is_simd() === 1 ? 'wasm-simd' : 'wasm-scalar', fallback };
}
