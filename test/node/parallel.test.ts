import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { parallelSuite } from '../shared/parallel-cases.js';
import { flavour } from '../shared/setup.js';

// The built package: workers run dist/worker-node.js.
const lib = await import('../../dist/node.js');
await lib.init({ flavour });
parallelSuite(lib as never, {
  dyingWorker: new URL('./workers/dying-worker.mjs', import.meta.url),
  brokenWorker: new URL('./workers/broken-worker.mjs', import.meta.url),
  shared: true,
});

it('never keeps the process alive once hashing is done', () => {
  const entry = fileURLToPath(new URL('../../dist/node.js', import.meta.url));
  const code = `const b3 = await import(${JSON.stringify(entry)}); await b3.init();
    b3.configureParallel({ threshold: 0 }); const d = await b3.hashParallel(new Uint8Array(4 << 20));
    console.log(b3.toHex(d).length);`;
  const started = performance.now();
  expect(execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 20_000 }).trim()).toBe('64');
  expect(performance.now() - started).toBeLessThan(10_000);
});
