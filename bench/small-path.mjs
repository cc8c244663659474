// Where the nanoseconds of a small one-shot go, and which single-block code
// is faster on this host and engine: each step of `hash()` timed alone, in
// one process or page, steps in alternation, medians of rounds (compare
// within a run).
//
//   node bench/small-path.mjs [--sizes 64,1024] [--rounds 15] [--calls 2000]
//   deno run -A bench/small-path.mjs    bun bench/small-path.mjs
//   node bench/small-path.mjs --browser chromium|firefox|webkit|all
//                                       the same steps in a cross-origin isolated
//                                       page (bench/small-path-page.html), whose
//                                       clock is fine; 20000 calls a batch there
//
// Needs the built package (npm run build). Steps, ns per call:
//   call       an export that returns a constant (the JS -> wasm -> JS trip)
//   stage      copying the input into the staging buffer
//   rows/words hash_oneshot alone, with each single-block code
//   scalar     hash_oneshot of the scalar module
//   out        copying the 32-byte digest out (staging.slice)
//   hash()     the public one-shot, all of the above plus argument checks
//   hash-wasm, blake3-jit   the best small-input peers, as their READMEs use
//              them (from bench/node_modules: run `npm run bench` once first)
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { instantiateRaw, measureSmallSteps, smallStepsTable } from './lib/small-steps.mjs';
import { blockProbeEnd } from './lib/timing.mjs';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '64,1024' },
    rounds: { type: 'string', default: '15' },
    calls: { type: 'string' },
    browser: { type: 'string' },
  },
});
const job = { sizes: values.sizes.split(',').map(Number), rounds: Number(values.rounds) };

if (values.browser) {
  const { inIsolatedPages } = await import('./lib/browser-runner.mjs');
  const browsers = values.browser === 'all' ? ['chromium', 'firefox', 'webkit'] : [values.browser];
  await inIsolatedPages(browsers, '/bench/small-path-page.html', async (page, driver) => {
    const { rows, peerNames, missing } = await page.call('run', { ...job, calls: Number(values.calls ?? 20000) });
    console.log(`\n${driver.name} ${driver.version}; ns per call, medians of ${job.rounds} alternating rounds`);
    if (missing) console.log(`(peers not loaded: ${missing}; run \`npm run bench\` once)`);
    for (const line of smallStepsTable(rows, peerNames)) console.log(line);
  });
} else {
  const wasm = (file) => readFileSync(new URL(`../wasm/${file}`, import.meta.url));
  const b3 = await import('../dist/node.js');
  const api = await b3.init({ backend: 'wasm-simd' });
  await blockProbeEnd(b3);
  const peers = {};
  try {
    const { createBLAKE3 } = await import('./node_modules/hash-wasm/dist/index.esm.js');
    const instance = await createBLAKE3();
    peers['hash-wasm'] = (input) => instance.init().update(input).digest('binary');
    const jit = await import('./node_modules/blake3-jit/dist/index.js');
    peers['blake3-jit'] = (input) => jit.hash(input);
  } catch {
    console.log('(peers not installed: run `npm run bench` once)');
  }
  const rows = measureSmallSteps({
    simd: instantiateRaw(wasm('blake3-kit-simd.wasm')),
    scalar: instantiateRaw(wasm('blake3-kit-scalar.wasm')),
    hash: api.hash,
    peers,
    ...job,
    calls: Number(values.calls ?? 2000),
  });
  const engine = globalThis.Bun ? `Bun ${Bun.version}` : globalThis.Deno ? `Deno ${Deno.version.deno}` : `Node ${process.version}`;
  console.log(`${engine}; ns per call, medians of ${job.rounds} alternating rounds`);
  for (const line of smallStepsTable(rows, Object.keys(peers))) console.log(line);
}
