// Entry point for browsers and bundlers. Each flavour is a separate .wasm
// file referenced by a literal `new URL(..., import.meta.url)`, which
// bundlers recognise, and compiled with compileStreaming: no eval, no inlined
// base64, so a CSP without 'unsafe-eval' works ('wasm-unsafe-eval' is needed
// for WebAssembly itself).

import type { Blake3 } from './api.js';
import { initBackend, type InitOptions } from './backend.js';
import type { Platform } from './wasm/load.js';
import { parallelApi, type ParallelApi } from './parallel/api.js';
import type { SpawnWorker } from './parallel/pool.js';
import { baoEncodeOn, type BaoEncodeParallelOptions } from './bao/encode-parallel.js';
import type { BaoEncoding } from './bao/encode.js';
import type { Input } from './input.js';
import type { StreamSource } from './stream-source.js';

export * from './api.js';
export type { ParallelOptions, ParallelSettings } from './parallel/api.js';
export type { BaoEncodeParallelOptions } from './bao/encode-parallel.js';

const browserPlatform: Platform = {
  defaultSource: (flavour) =>
    flavour === 'simd' ? new URL('../wasm/blake3-kit-simd.wasm', import.meta.url) : new URL('../wasm/blake3-kit-scalar.wasm', import.meta.url),
  load: (location) => fetch(location),
};

const spawnWorker: SpawnWorker = (url, onMessage, onFailure) => {
  // One expression, exactly as bundlers look for it (Vite, webpack, Parcel,
  // Rollup's import-meta-assets): they emit worker.js and rewrite the URL.
  const worker = url === undefined ? new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }) : new Worker(url, { type: 'module' });
  const script = url === undefined ? "blake3-kit's worker.js" : String(url);
  worker.onmessage = (event) => onMessage(event.data);
  worker.onerror = (event) => {
    event.preventDefault();
    // A 404 or a Content-Security-Policy gives a bare Event with no message.
    onFailure(new Error(event.message || `${script} did not load (missing, blocked by a Content-Security-Policy, or not a module script)`));
  };
  worker.onmessageerror = () => onFailure(new Error('a message from the worker could not be read'));
  return { post: (message, transfer) => worker.postMessage(message, transfer ?? []), terminate: () => worker.terminate() };
};

// Created on first use, so that bundles which never hash in parallel can
// drop all of it (`export { init }` alone bundles to 5.3 KB gzip).
let parallel: ReturnType<typeof parallelApi> | undefined;
const browserParallel = () =>
  (parallel ??= parallelApi({
    spawn: typeof Worker === 'function' ? spawnWorker : undefined,
    concurrency: () => globalThis.navigator?.hardwareConcurrency ?? 1,
    // WebKitGTK 2.50 is cross-origin isolated yet has no SharedArrayBuffer
    // constructor (only shared wasm memories): both are needed here.
    sharedMemory: () => globalThis.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function',
    workersReadBlobs: true,
  }));

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
/** The Bao encoding of a large input, its chunks hashed across Web Workers. */
export function baoEncodeParallel(input: Input | Blob | StreamSource, options?: BaoEncodeParallelOptions): Promise<BaoEncoding> {
  return baoEncodeOn(browserParallel(), input, options);
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
