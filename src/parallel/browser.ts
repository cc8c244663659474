// Parallel hashing in browsers, shared by the two browser entries (browser.ts
// and bao-browser.ts): Web Workers started from worker.js beside the bundle.

import { parallelApi } from './api.js';
import type { SpawnWorker } from './pool.js';

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
// drop all of it.
let parallel: ReturnType<typeof parallelApi> | undefined;

export const browserParallel = () =>
  (parallel ??= parallelApi({
    spawn: typeof Worker === 'function' ? spawnWorker : undefined,
    concurrency: () => globalThis.navigator?.hardwareConcurrency ?? 1,
    // WebKitGTK 2.50 is cross-origin isolated yet has no SharedArrayBuffer
    // constructor (only shared wasm memories): both are needed here.
    sharedMemory: () => globalThis.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function',
    workersReadBlobs: true,
  }));
