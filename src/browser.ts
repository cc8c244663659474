// Entry point for browsers and bundlers. Each flavour is a separate .wasm
// file referenced by a literal `new URL(..., import.meta.url)`, which
// bundlers recognise, and compiled with compileStreaming: no eval, no inlined
// base64, so a CSP without 'unsafe-eval' works ('wasm-unsafe-eval' is needed
// for WebAssembly itself).

import { apiFor, type Blake3 } from './api.js';
import { initWith, type InitOptions, type Platform } from './load.js';

export * from './api.js';

const browserPlatform: Platform = {
  defaultSource: (flavour) =>
    flavour === 'simd'
      ? new URL('../wasm/blake3-kit-simd.wasm', import.meta.url)
      : new URL('../wasm/blake3-kit-scalar.wasm', import.meta.url),
  load: (location) => fetch(location),
};

/** Loads the wasm core once (later calls return the same result) and
 * resolves to the synchronous API. */
export function init(options?: InitOptions): Promise<Blake3> {
  return initWith(browserPlatform, options).then(apiFor);
}
