// blake3-kit/compat against blake3-wasm 2.1.5 (what wrangler pins), in Node:
// the calls a user of theirs makes, one-shot `hash(data)` and wrangler's
// asset name `hash(base64(contents) + extension).toString('hex')`.
//
//   node bench/compat.mjs [--processes 6] [--time 300]
//   (after `npm run build:ts`; blake3-wasm 2.1.5 is the root devDependency)
//
// Each implementation runs in its own child process (V8 lays out each
// process's code differently), the two alternating, --processes of each;
// every row's digest is checked against the other implementation's first.
// The table gives per row the median over processes of tinybench's median
// throughput, and the ratio compat ÷ blake3-wasm. The compat entry runs on
// its default backend (the addon from the routing threshold up, where it
// is built; BLAKE3_KIT_BACKEND=wasm for wasm alone).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Bench } from 'tinybench';
import { repoDir } from './lib/build.mjs';

const { values: args } = parseArgs({
  options: {
    processes: { type: 'string', default: '6' },
    time: { type: 'string', default: '300' },
    child: { type: 'string' },
  },
});

const SIZES = [64, 1024, 64 * 1024, 1024 * 1024];
const BATCH_BYTES = 64 * 1024;
const sizeName = (n) => (n >= 1 << 20 ? `${n >> 20} MiB` : n >= 1024 ? `${n >> 10} KiB` : `${n} B`);

/** The library under test, from the repository root (bench/node_modules has
 * blake3-wasm 3.0.0 for the main bench). */
async function library(name) {
  const fromRoot = createRequire(join(repoDir, 'package.json'));
  if (name === 'blake3-wasm') return fromRoot('blake3-wasm');
  return import(pathToFileURL(join(repoDir, 'dist', 'compat-node.js')).href);
}

async function child(name) {
  const { hash } = await library(name);
  const rows = [];
  const bench = new Bench({ time: Number(args.time), warmupTime: 100 });
  for (const size of SIZES) {
    const data = Buffer.alloc(size, 7).map((_, i) => (i * 31) & 255);
    const asset = data.toString('base64');
    // Calls in batches of ~64 KiB of input: one timer read per call would
    // weigh on the 64 B rows as much as the call.
    const batch = Math.max(1, Math.floor(BATCH_BYTES / size));
    rows.push({ row: `hash(${sizeName(size)})`, size: size * batch, digest: hash(data).toString('hex') });
    bench.add(`hash(${sizeName(size)})`, () => {
      for (let i = 0; i < batch; i++) hash(data);
    });
    const name = () => hash(`${asset}.js`).toString('hex').slice(0, 32);
    rows.push({ row: `wrangler name(${sizeName(size)})`, size: size * batch, digest: name() });
    bench.add(`wrangler name(${sizeName(size)})`, () => {
      for (let i = 0; i < batch; i++) name();
    });
  }
  await bench.run();
  for (const task of bench.tasks) {
    const row = rows.find((r) => r.row === task.name);
    row.opsPerSecond = 1000 / task.result.latency.p50;
  }
  console.log(JSON.stringify(rows));
}

function run(name) {
  const out = execFileSync(process.execPath, [new URL(import.meta.url).pathname, '--child', name, '--time', args.time], {
    cwd: repoDir,
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').at(-1));
}

if (args.child !== undefined) {
  await child(args.child);
} else {
  const runs = { 'blake3-kit/compat': [], 'blake3-wasm': [] };
  for (let i = 0; i < Number(args.processes); i++) {
    const order = i % 2 === 0 ? ['blake3-wasm', 'blake3-kit/compat'] : ['blake3-kit/compat', 'blake3-wasm'];
    for (const name of order) runs[name].push(run(name === 'blake3-kit/compat' ? 'compat' : name));
  }
  const median = (values) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];
  const ours = runs['blake3-kit/compat'];
  const theirs = runs['blake3-wasm'];
  console.log(`Node ${process.version}, ${args.processes} processes each, tinybench medians (MB/s of the input)`);
  console.log('| row | blake3-wasm 2.1.5 | blake3-kit/compat | compat ÷ blake3-wasm |');
  console.log('|---|---:|---:|---:|');
  for (let r = 0; r < ours[0].length; r++) {
    const { row, size, digest } = ours[0][r];
    if (theirs.some((t) => t[r].digest !== digest)) throw new Error(`${row}: the digests differ`);
    const a = (median(theirs.map((t) => t[r].opsPerSecond)) * size) / 1e6;
    const b = (median(ours.map((t) => t[r].opsPerSecond)) * size) / 1e6;
    console.log(`| ${row} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b / a).toFixed(2)}× |`);
  }
}
