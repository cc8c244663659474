import { expect, it } from 'vitest';
import { parallelSuite } from '../shared/parallel-cases.js';
import { flavour } from '../shared/setup.js';

// The shipped bundle: workers run dist/worker.js. The simd project is
// cross-origin isolated (pieces are shared), the scalar one is not (pieces
// are transferred), so both transports are covered (in Chromium and Firefox).
// The hashing entry here; the Bao cases run
// from the bao entry in parallel-bao.test.ts.
const lib = await import(/* @vite-ignore */ '/dist/browser.js');
await lib.init({ backend: `wasm-${flavour}` });
parallelSuite(lib as never, {
  cases: 'hashing',
  dyingWorker: new URL('./workers/dying-worker.js', import.meta.url),
  brokenWorker: new URL('./workers/broken-worker.js', import.meta.url),
  // The package's own rule (src/entries/browser.ts): WebKitGTK is isolated without a SharedArrayBuffer.
  shared: globalThis.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function',
});

it('hashes a File as picked from an <input>', async () => {
  const bytes = new Uint8Array(3 << 20).map((_, i) => i * 31);
  const file = new File([bytes], 'picked.bin', { type: 'application/octet-stream' });
  lib.configureParallel({ threshold: 0, pieceLength: 0, workerUrl: undefined, helpWhileStarting: false });
  expect(lib.toHex(await lib.hashBlob(file))).toBe(lib.toHex(lib.hash(bytes)));
});

it('hands the workers Blob slices to read, and reads a lost one here', async () => {
  const bytes = new Uint8Array((9 << 20) + 5).map((_, i) => (i * 7) ^ (i >> 11));
  const file = new File([bytes], 'big.bin');
  lib.terminateWorkers();
  lib.configureParallel({ threshold: 0, pieceLength: 1 << 20, workerUrl: undefined, helpWhileStarting: false });
  for (const options of [undefined, { key: new Uint8Array(32).fill(5), length: 50 }]) {
    expect(lib.toHex(await lib.hashBlob(file, options))).toBe(lib.toHex(lib.hash(bytes, options)));
  }
  expect(lib.parallelStatus().jobs).toBeGreaterThanOrEqual(20);
  // A worker that closes itself during its third job: that slice is read
  // and hashed on this thread.
  lib.terminateWorkers();
  lib.configureParallel({ threshold: 0, pieceLength: 1 << 20, workerUrl: new URL('./workers/dying-worker.js', import.meta.url), jobTimeout: 2000 });
  expect(lib.toHex(await lib.hashBlob(file))).toBe(lib.toHex(lib.hash(bytes)));
  expect(lib.parallelStatus().fallbacks).toBeGreaterThanOrEqual(1);
  lib.terminateWorkers();
  lib.configureParallel({ threshold: 0, pieceLength: 0, workerUrl: undefined, jobTimeout: 30_000 });
}, 60_000);
