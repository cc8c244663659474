// The worker_threads pool of the Node entry, shared by node.ts and file.ts.

import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { parallelApi } from '../parallel/api.js';
import type { SpawnWorker } from '../parallel/pool.js';

// Run from sources (the test suite imports src/), the built worker is used.
const ownWorker = () => new URL(import.meta.url.endsWith('.ts') ? '../../dist/worker-node.js' : './worker-node.js', import.meta.url);

const spawnThread: SpawnWorker = (url, onMessage, onFailure) => {
  const worker = new Worker(url ?? ownWorker());
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

export const nodeParallel = parallelApi({
  spawn: spawnThread,
  concurrency: availableParallelism,
  sharedMemory: () => true,
  workersReadBlobs: false,
});
