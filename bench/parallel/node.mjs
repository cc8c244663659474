// Parallel hashing in Node: worker speedups over single-thread wasm-simd at
// 16 and 256 MiB (input in a plain buffer, copied into shared pieces, and in
// a SharedArrayBuffer, not copied), the threshold sweep, hashStream from a
// 256 MiB file with peak memory, and the native update_rayon speedup of the
// same machine in the same run.
//
//   node --expose-gc bench/parallel/node.mjs [--quick]   (after `node scripts/setup.mjs`)
import { execFileSync } from 'node:child_process';
import { createReadStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoDir } from '../lib/build.mjs';
import { makeInput } from '../lib/data.mjs';
import { MiB } from '../lib/format.mjs';
import { resultsDir } from '../lib/record.mjs';
import { medianMs } from '../lib/timing.mjs';

const quick = process.argv.includes('--quick');
const b3 = await import(join(repoDir, 'dist/node.js'));
// wasm-simd forced: the worker speedups are over single-thread wasm, and with
// the addon loaded the default backend would send hashParallel to native.
await b3.init({ backend: 'wasm-simd' });
const runs = quick ? 3 : 7;
const cores = availableParallelism();
const time = (fn) => medianMs(fn, runs);

const rate = (bytes, ms) => bytes / MiB / (ms / 1000);
const report = { machine: { cpu: cpus()[0]?.model, cores, node: process.version, date: new Date().toISOString(), command: `node --expose-gc bench/parallel/node.mjs${quick ? ' --quick' : ''}` }, speedups: [], threshold: [], stream: undefined, rayon: [] };

// Native reference: what multithreading gives on this machine right now.
const manifest = join(repoDir, 'bench/rayon-ref/Cargo.toml');
execFileSync('cargo', ['build', '-q', '--release', '--manifest-path', manifest], { stdio: 'inherit' });
const rayonOut = execFileSync(join(repoDir, 'bench/rayon-ref/target/release/blake3-kit-rayon-ref'), quick ? ['16'] : ['16', '256'], { encoding: 'utf8' });
report.rayon = rayonOut.trim().split('\n').map((line) => JSON.parse(line));

const workerCounts = [...new Set([1, 2, cores])];
for (const mib of quick ? [16] : [16, 256]) {
  for (const [shared, transport, label] of [
    [false, 'transfer', 'ArrayBuffer, pieces copied and transferred (default)'],
    [false, 'shared', 'ArrayBuffer, pieces copied into SharedArrayBuffers'],
    [true, 'transfer', 'SharedArrayBuffer, not copied'],
  ]) {
    const input = makeInput(mib * MiB, shared);
    const serial = await time(() => b3.hash(input));
    const row = { mib, input: label, serialMBs: rate(input.length, serial), workers: {} };
    for (const workers of workerCounts) {
      b3.configureParallel({ workers, threshold: 0, transport });
      const parallel = await time(() => b3.hashParallel(input));
      row.workers[workers] = { MBs: rate(input.length, parallel), speedup: serial / parallel };
    }
    report.speedups.push(row);
    console.log(JSON.stringify(row));
  }
}

// Where workers start to pay: serial against all workers, per size.
b3.configureParallel({ workers: 0, threshold: 0, transport: 'transfer' });
for (const kib of quick ? [256, 1024, 4096] : [128, 256, 512, 1024, 2048, 4096, 8192]) {
  const input = makeInput(kib * 1024, false);
  const serial = await time(() => b3.hash(input));
  const parallel = await time(() => b3.hashParallel(input));
  const row = { kib, serialMs: serial, parallelMs: parallel, ratio: serial / parallel };
  report.threshold.push(row);
  console.log(JSON.stringify(row));
}

// hashStream from a file, with peak memory, against the in-memory rate.
const dir = mkdtempSync(join(tmpdir(), 'blake3-kit-pbench-'));
try {
  const mib = quick ? 64 : 256;
  const path = join(dir, 'stream.bin');
  writeFileSync(path, makeInput(mib * MiB, false));
  b3.configureParallel({ workers: 0, threshold: 1 << 20 });
  globalThis.gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const streamMs = await time(() => b3.hashStream(createReadStream(path, { highWaterMark: MiB })));
  clearInterval(sampler);
  const input = makeInput(mib * MiB, false);
  const inMemory = await time(() => b3.hashParallel(input));
  report.stream = { mib, MBs: rate(mib * MiB, streamMs), inMemoryMBs: rate(mib * MiB, inMemory), ratio: inMemory / streamMs, peakRssGrowthMiB: (peak - base) / MiB };
  console.log(JSON.stringify(report.stream));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, 'parallel-node.json'), JSON.stringify(report, null, 2));
const fmt = (x) => x.toFixed(0);
console.log(`\n| size | input | 1 thread MB/s | ${workerCounts.map((w) => `${w} worker${w > 1 ? 's' : ''}`).join(' | ')} |`);
console.log(`|---|---|---:|${workerCounts.map(() => '---:').join('|')}|`);
for (const r of report.speedups) {
  console.log(`| ${r.mib} MiB | ${r.input} | ${fmt(r.serialMBs)} | ${workerCounts.map((w) => `${fmt(r.workers[w].MBs)} (${r.workers[w].speedup.toFixed(2)}x)`).join(' | ')} |`);
}
for (const r of report.rayon) console.log(`native update_rayon, ${r.mib} MiB, ${r.threads} threads: ${r.rayon} MB/s vs ${r.single} single (${r.speedup}x)`);
process.exit(0);
