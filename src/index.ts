// Types for both entry points (node.ts and browser.ts export the same API).
export * from './api.js';
export { init, hashParallel, hashBlob, hashStream, configureParallel, terminateWorkers, parallelStatus } from './node.js';
