// What the compat entries that bring their own wasm share (workerd and
// edge-light, which import it as modules): the browser API and the
// synchronous load at import. One file in dist/ (dist/compat-entry-core.js),
// on the same chunks as the other entries: one wasm state.

import { initBackendSync } from '../backend.js';
import type { Flavour } from '../wasm/load.js';
import type { WasmModule } from '../wasm/types.js';
import * as api from './browser.js';
import { failedAtImport, importError } from './ready.js';

export * from './browser.js';

let loaded: Promise<unknown> | undefined;

/** Instantiates the deploy-time compiled module now (in workerd that is
 * allowed at import; compiling bytes is not). */
export function loadAtImport(modules: (flavour: Flavour) => WasmModule): void {
  try {
    loaded = Promise.resolve(
      initBackendSync({
        compileSync: modules,
        defaultSource: modules,
        load: () => Promise.reject(new TypeError('blake3-kit/compat: this entry imports its wasm; there is no file to fetch')),
      }),
    );
  } catch (error) {
    failedAtImport(error);
  }
}

/** Resolves to the API: at once, as the wasm loaded at import. */
export function load(): Promise<typeof api> {
  return loaded === undefined ? Promise.reject(importError()) : loaded.then(() => api);
}
