// Entry point `blake3-kit/compat` for browsers and bundlers: blake3-wasm's
// browser API. As with their browser-async build (2.x) and 3.x's browser
// build, `await load()` comes first (the .wasm is fetched); a call before
// it throws an error saying so. The module is the main entry's, by the
// literal URLs bundlers rewrite, and the state is the main entry's: load()
// after init() from 'blake3-kit' reuses its backend.

import { initBackend } from '../backend.js';
import * as api from '../compat/browser.js';
import type { Platform, WasmSource } from '../wasm/load.js';

export * from '../compat/browser.js';

const platform: Platform = {
  defaultSource: (flavour) =>
    flavour === 'simd' ? new URL('../wasm/blake3-kit-simd.wasm', import.meta.url) : new URL('../wasm/blake3-kit-scalar.wasm', import.meta.url),
  load: (location) => fetch(location),
};

/** Fetches and instantiates the wasm once (later calls share it); resolves
 * to the API, as browser-async's default export did. `source`, if given,
 * must be blake3-kit's module (a URL, Response, bytes or
 * WebAssembly.Module), not blake3-wasm's. */
export function load(source?: WasmSource): Promise<typeof api> {
  return initBackend(platform, source === undefined ? {} : { source }).then(() => api);
}

export default load;
