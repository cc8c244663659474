// hashMany against a loop of hash() over the same inputs, as ratios within
// one run (issue #13's targets: native 10^4 x 4 KiB >= 2x the loop and
// >= 0.8x hash() of one 64 KiB input; wasm-simd 10^4 x 1 KiB >= 1.7x;
// 10^5 x 64 B >= 3x on the default backend).
//
//   node bench/many.mjs [--backend auto|native|wasm-simd|wasm-scalar]
//
// tinybench, medians of each task's samples; one process per backend. The
// peer row is @noble/hashes in a loop; @awasm/noble (whose `.chunks()` would
// be the other peer) is not in the registry this machine reaches.
import { blake3 as noble } from '@noble/hashes/blake3.js';
import { parseArgs } from 'node:util';
import { Bench } from 'tinybench';
import { repoDir } from './lib/build.mjs';
import { fmtRatio, mdTable } from './lib/format.mjs';
import { median as medianOf } from './lib/timing.mjs';

const { values } = parseArgs({ options: { backend: { type: 'string', default: 'auto' } } });
const b3 = await import(`${repoDir}/dist/bao-node.js`);
const api = await b3.init({ backend: values.backend });

const WORKLOADS = [
  { name: '10^4 x 4 KiB', itemLength: 4096, count: 10_000 },
  { name: '10^4 x 1 KiB', itemLength: 1024, count: 10_000 },
  { name: '10^5 x 64 B', itemLength: 64, count: 100_000 },
];

const rows = [];
for (const { name, itemLength, count } of WORKLOADS) {
  const data = new Uint8Array(itemLength * count).map((_, i) => (i * 31) % 251);
  const items = Array.from({ length: count }, (_, i) => data.subarray(i * itemLength, (i + 1) * itemLength));
  const into = new Uint8Array(32 * count);
  const whole = data.subarray(0, 64 * 1024);
  const bench = new Bench({ time: 1500, warmup: true });
  bench
    .add('loop of hash()', () => {
      for (const item of items) b3.hash(item);
    })
    .add('hashMany(buffer, { itemLength })', () => b3.hashMany(data, { itemLength, into }))
    .add('hashMany(array)', () => b3.hashMany(items, { into }))
    .add('@noble/hashes in a loop', () => {
      for (const item of items) noble(item);
    })
    // The same bytes as one input of 64 KiB at a time: the rate hashing
    // whole chunks 16 wide reaches.
    .add('hash() of 64 KiB inputs', () => {
      for (let at = 0; at < data.length; at += whole.length) b3.hash(data.subarray(at, at + whole.length));
    });
  await bench.run();
  // tinybench 6 (bench/'s own) gives the median as latency.p50; 2 (the
  // root's, when bench/ has no node_modules) keeps the samples.
  const median = (task) => task.result.latency?.p50 ?? medianOf(task.result.samples);
  const base = median(bench.tasks[0]);
  for (const task of bench.tasks) {
    rows.push([name, task.name, `${(data.length / 1e6 / (median(task) / 1e3)).toFixed(0)} MB/s`, fmtRatio(base / median(task))]);
  }
}
console.log(`backend ${api.backend}, Node ${process.version}\n`);
console.log(mdTable(['inputs', 'task', 'median rate', 'vs loop of hash()'], rows, ['---', '---', '---:', '---:']));
