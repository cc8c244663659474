// init() for the blake3-kit/bao entries: their API needs the wasm module
// with content addressing's exports. Where init() from 'blake3-kit' already
// loaded the smaller hashing-only module, it is replaced, while nothing
// holds state in it (workers pick the new one up at their next start:
// parallel/lifecycle.ts). Only those entries import this.

import type { Blake3 } from '../backend.js';
import { hasTreeExports, slotsInUse } from './core.js';
import { loadWasm, type Platform } from './load.js';
import type { InitOptions } from '../backend.js';

let widening: Promise<Blake3> | undefined;

/** `initialised` (the entry's initBackend call), then the full module
 * loaded in place of a hashing-only one, in the same flavour. */
export async function withTreeExports(initialised: Promise<Blake3>, platform: Platform, options: InitOptions | undefined): Promise<Blake3> {
  const api = await initialised;
  if (hasTreeExports()) return api;
  widening ??= (async () => {
    // A hasher or reader in a slot would be left on the old one.
    if (slotsInUse() > 0) {
      throw new Error(
        "blake3-kit: init() from 'blake3-kit' already loaded the hashing-only wasm module, and hashers hold state in it; call init() from 'blake3-kit/bao' first (it serves everything 'blake3-kit' exports as well), or dispose of them",
      );
    }
    await loadWasm(platform, api.backend.endsWith('wasm-simd') ? 'simd' : 'scalar', options?.source);
    return api;
  })().finally(() => {
    widening = undefined;
  });
  return widening;
}
