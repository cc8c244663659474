// The worker_threads pool of the Node entry, shared by node.ts and file.ts.

import type { Worker } from 'node:worker_threads';
import { parallelApi } from '../parallel/api.js';
import type { SpawnWorker } from '../parallel/pool.js';
import { os, workerThreads } from './builtins.js';
import { packagedFiles } from './packaged.js';

/** The package's files as the entry whose init() ran finds them (beside
 * dist/, or carried by a bundle entry); workers start after init(). */
function files() {
  const files = packagedFiles();
  if (files === undefined) throw new Error('blake3-kit: call init() before starting hashing workers');
  return files;
}

const spawnThread: SpawnWorker = (url, onMessage, onFailure) => {
  let worker: Worker;
  try {
    worker = new (workerThreads().Worker)(url ?? files().worker());
  } catch (error) {
    // No script to start (a bundle of dist/ without its files, say): a
    // failure like any worker's, after which the pool hashes on this
    // thread and parallelStatus().broken says why.
    queueMicrotask(() => onFailure(error as Error));
    return { post() {}, terminate() {}, ref() {}, unref() {} };
  }
  worker.on('message', onMessage);
  worker.on('error', onFailure);
  worker.on('messageerror', onFailure);
  worker.on('exit', (code) => onFailure(new Error(`worker exited with code ${code}`)));
  return {
    post: (message, transfer) => worker.postMessage(message, transfer as never),
    terminate: () => void worker.terminate(),
    ref: () => worker.ref(),
    unref: () => worker.unref(),
  };
};

// Deno runs worker_threads through a compatibility layer whose postMessage
// took 230-420 ms for a moved 2 MiB piece that the worker hashed in 1.4 ms
// (Deno 2.9.6; hashParallel of 16 MiB: 1.2-3.4 s against 20 ms on one
// thread). Its web Workers take 4-13 ms for the same round trip, so there
// the pool runs the browser's worker script (dist/worker.js), and a
// workerUrl must be a module worker script, as in browsers.
interface WebWorker {
  onmessage: ((event: { data: unknown }) => void) | null;
  onerror: ((event: { message?: string; preventDefault(): void }) => void) | null;
  onmessageerror: (() => void) | null;
  postMessage(message: unknown, transfer: ArrayBuffer[]): void;
  terminate(): void;
}
const WebWorkerClass = (globalThis as { Worker?: new (url: URL | string, options: { type: 'module' }) => WebWorker }).Worker;
const inDeno = typeof (globalThis as { Deno?: unknown }).Deno === 'object' && WebWorkerClass !== undefined;
const browserWorker = () => files().webWorker();

const spawnWebWorker: SpawnWorker = (url, onMessage, onFailure) => {
  const worker = new WebWorkerClass!(url ?? browserWorker(), { type: 'module' });
  worker.onmessage = (event) => onMessage(event.data as never);
  worker.onerror = (event) => {
    event.preventDefault();
    onFailure(new Error(event.message || `${String(url ?? 'worker.js')} did not load`));
  };
  worker.onmessageerror = () => onFailure(new Error('a message from the worker could not be read'));
  return { post: (message, transfer) => worker.postMessage(message, transfer ?? []), terminate: () => worker.terminate() };
};

export const nodeParallel = parallelApi({
  spawn: inDeno ? spawnWebWorker : spawnThread,
  concurrency: () => os().availableParallelism(),
  sharedMemory: () => true,
  workersReadBlobs: false,
});
