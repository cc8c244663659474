import { parallelSuite } from '../shared/parallel-cases.js';
import { flavour } from '../shared/setup.js';

// The Bao cases of parallel.test.ts from the shipped bao entry, whose
// workers get the module with every export.
const lib = await import(/* @vite-ignore */ '/dist/bao-browser.js');
await lib.init({ backend: `wasm-${flavour}` });
parallelSuite(lib, {
  cases: 'bao',
  dyingWorker: new URL('./workers/dying-worker.js', import.meta.url),
  brokenWorker: new URL('./workers/broken-worker.js', import.meta.url),
  shared: globalThis.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function',
});
