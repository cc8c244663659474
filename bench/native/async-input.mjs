// What memory safety costs hashParallel on the native backend. Input in a
// plain ArrayBuffer is copied into staging buffers (src/native/absorb.ts)
// while earlier pieces hash; input in a SharedArrayBuffer is hashed in
// place. Each row's speed-up is over synchronous hash() on one thread (no
// copy, the JS thread blocked) of the same input, in the same run.
//
//   node --expose-gc bench/native/async-input.mjs [--rounds 15] [--repo DIR]
//
// --repo runs another checkout's dist/ (with its own native/ addon), for a
// before/after table. Rounds interleave the rows, so drift in the machine's
// load hits all alike; the table gives medians.
import { cpus, availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { repoDir } from '../lib/build.mjs';
import { makeInput } from '../lib/data.mjs';
import { MiB } from '../lib/format.mjs';
import { loadKit } from '../lib/kit.mjs';
import { median } from '../lib/timing.mjs';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '15' }, repo: { type: 'string' } } });
const rounds = Number(args.rounds);
const repo = resolve(args.repo ?? repoDir);
const { mod: b3mod, b3 } = await loadKit('native', { repo: args.repo });
const threads = availableParallelism();

const rows = [];
for (const mib of [16, 64]) {
  for (const shared of [false, true]) {
    const input = makeInput(mib * MiB, shared);
    const expected = b3.toHex(b3.hash(input));
    rows.push({ mib, shared, workers: 1, sync: true, input, expected, samples: [] });
    for (const workers of [1, threads]) {
      rows.push({ mib, shared, workers, sync: false, input, expected, samples: [] });
    }
  }
}

for (let round = 0; round < rounds + 1; round++) {
  for (const row of rows) {
    b3mod.configureParallel({ workers: row.workers });
    const run = row.sync ? async () => b3.hash(row.input) : () => b3mod.hashParallel(row.input);
    await run(); // after a thread-count change
    const start = performance.now();
    const digest = await run();
    const ms = performance.now() - start;
    if (b3.toHex(digest) !== row.expected) throw new Error(`wrong digest: ${row.mib} MiB shared=${row.shared}`);
    if (round > 0) row.samples.push(ms);
  }
  globalThis.gc?.();
}

console.log(`node ${process.version}, ${cpus()[0]?.model}, ${threads} threads, ${rounds} rounds, ${repo}`);
console.log('| input | size | call | threads | MB/s | speed-up over hash() on 1 thread |');
console.log('|---|---|---|---|---|---|');
for (const row of rows) {
  const ms = median(row.samples);
  const one = rows.find((r) => r.mib === row.mib && r.shared === row.shared && r.sync);
  const rate = (row.mib * MiB) / 1e6 / (ms / 1000);
  const call = row.sync ? 'hash()' : 'hashParallel()';
  console.log(`| ${row.shared ? 'SharedArrayBuffer' : 'ArrayBuffer'} | ${row.mib} MiB | ${call} | ${row.workers} | ${rate.toFixed(0)} | ${(median(one.samples) / ms).toFixed(2)}x |`);
}
