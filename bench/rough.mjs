// A rough, single-process throughput check of both wasm flavours: where we
// stand before the real benchmark (issue 3: tinybench, peers, one process per
// implementation). Median of 7 timed batches of about 200 ms each, in MB/s.
//
//   node bench/rough.mjs            (after npm run build)
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sizeLabel } from './lib/format.mjs';
import { median } from './lib/timing.mjs';

const SIZES = [64, 1024, 64 * 1024, 1024 * 1024];

async function measure(flavour) {
  const { init } = await import('../dist/node.js');
  const b3 = await init({ backend: `wasm-${flavour}` }); // wasm even where the addon would load
  const rows = {};
  for (const size of SIZES) {
    const input = new Uint8Array(size).map((_, i) => i);
    let calls = 1;
    // Grow the batch until it takes ~200 ms, warming up on the way.
    for (let t = 0; t < 200; calls *= 2) {
      const start = performance.now();
      for (let i = 0; i < calls; i++) b3.hash(input);
      t = performance.now() - start;
      if (t >= 200) break;
    }
    const rates = [];
    for (let run = 0; run < 7; run++) {
      const start = performance.now();
      for (let i = 0; i < calls; i++) b3.hash(input);
      rates.push((size * calls) / ((performance.now() - start) / 1000) / 1e6);
    }
    rows[size] = median(rates);
  }
  return rows;
}

if (process.argv[2] === '--child') {
  process.send(await measure(process.argv[3]));
} else {
  // Each flavour in its own process, so JIT state is not shared.
  const results = {};
  for (const flavour of ['simd', 'scalar']) {
    const child = fork(fileURLToPath(import.meta.url), ['--child', flavour]);
    results[flavour] = await new Promise((resolve) => child.once('message', resolve));
    child.kill();
  }
  console.log('| size | wasm-simd MB/s | wasm-scalar MB/s |\n|---:|---:|---:|');
  for (const size of SIZES) {
    console.log(`| ${sizeLabel(size)} | ${results.simd[size].toFixed(0)} | ${results.scalar[size].toFixed(0)} |`);
  }
}
