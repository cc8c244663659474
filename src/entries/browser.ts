// Entry point for browsers and bundlers. Each flavour is a separate .wasm
// file referenced by a literal `new URL(..., import.meta.url)`, which
// bundlers recognise, and compiled with compileStreaming: no eval, no inlined
// base64, so a CSP without 'unsafe-eval' works ('wasm-unsafe-eval' is needed
// for WebAssembly itself).

import type { Blake3 } from '../api.js';
import { initBackend, type InitOptions } from '../backend.js';
import type { Platform } from '../wasm/load.js';
import type { ParallelApi } from '../parallel/api.js';
import { browserParallel } from '../parallel/browser.js';

export * from '../api.js';
export type { ParallelOptions, ParallelSettings } from '../parallel/api.js';

// The one module of each flavour, which 'blake3-kit/bao' uses too (it
// re-exports this init): an app that imports both entries ships one .wasm.
// A hashing-only module without content addressing's exports saved 3.1 KB
// gzip (SIMD: 17.1 against 20.2 KB), but an app importing both entries
// shipped both, 37.3 KB, and a later init() from 'blake3-kit/bao' had to
// swap modules, which it could not do while hashers held state.
const browserPlatform: Platform = {
  defaultSource: (flavour) =>
    flavour === 'simd' ? new URL('../wasm/blake3-kit-simd.wasm', import.meta.url) : new URL('../wasm/blake3-kit-scalar.wasm', import.meta.url),
  load: (location) => fetch(location),
};

/** BLAKE3 of a large in-memory input, hashed across Web Workers. */
export function hashParallel(...args: Parameters<ParallelApi['hashParallel']>) {
  return browserParallel().hashParallel(...args);
}
/** BLAKE3 of a Blob or File, read in slices while workers hash. */
export function hashBlob(...args: Parameters<ParallelApi['hashBlob']>) {
  return browserParallel().hashBlob(...args);
}
/** BLAKE3 of a stream, read in pieces while workers hash. */
export function hashStream(...args: Parameters<ParallelApi['hashStream']>) {
  return browserParallel().hashStream(...args);
}
/** Pool size, threshold, piece length, worker URL, transport, watchdog. */
export function configureParallel(...args: Parameters<ParallelApi['configureParallel']>) {
  return browserParallel().configureParallel(...args);
}
/** Starts the workers now (a page can do it while the user picks a file);
 * resolves once each has hashed a warm-up piece. */
export function startWorkers() {
  return browserParallel().startWorkers();
}
/** Stops the workers now; the next parallel hash starts new ones. */
export function terminateWorkers() {
  return browserParallel().terminateWorkers();
}
/** Workers started and lost, jobs done, and why workers were given up on
 * (also said once with console.warn when it happens). */
export function parallelStatus() {
  return browserParallel().parallelStatus();
}

/** Loads the wasm core once (later calls return the same result) and
 * resolves to the synchronous API. */
export function init(options?: InitOptions): Promise<Blake3> {
  return initBackend(browserPlatform, options);
}
