// The native backend against the official crate called from Rust (what the
// addon adds on top of it: the napi call, argument checks, the output array),
// and against @napi-rs/blake-hash, the other native BLAKE3 package.
//
//   node bench/native/vs-crate.mjs [--rounds 7] [--batch-ms 10]   (after `node scripts/setup.mjs`)
//
// Builds bench/rayon-ref (binary native-ref: blake3 =1.8.7 with rayon, the
// addon's release profile) and, per round and size, runs it for 3 samples of
// `blake3::hash` (one thread) and `Hasher::update_rayon` (all threads),
// then times in this process, one batch of ~--batch-ms each:
//   kit native 1T   init({ backend: 'native' }) + configureParallel({ workers: 1 }), hash(input)
//   kit native      the same with the addon's default thread count
//   kit default     init() (auto: native+wasm-simd, routed by size), default threads
//   @napi-rs/blake-hash   blake3(input)
// Every JS row must give the crate's digest first. The Rust run goes first
// in even rounds and last in odd ones; the one-thread and default-thread
// blocks swap places the same way. Medians over all rounds.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchDir } from '../lib/build.mjs';
import { makeInput, toHex } from '../lib/data.mjs';
import { fmtRate, fmtRatio, KiB, mdTable, MiB, sizeLabel } from '../lib/format.mjs';
import { loadKit } from '../lib/kit.mjs';
import { infoLines, runInfo, writeNativeResults } from '../lib/record.mjs';
import { calibrate, median, timeBatch } from '../lib/timing.mjs';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    'batch-ms': { type: 'string', default: '10' },
  },
});
const rounds = Number(args.rounds);
const batchMs = Number(args['batch-ms']);
const SIZES = [64, 256, KiB, 4 * KiB, 16 * KiB, 64 * KiB, MiB, 16 * MiB, 64 * MiB];
/** The crate comparison (the target) is about these; smaller ones are shown for the call overhead. */
const CRATE_FROM = 64 * KiB;

const info = runInfo('native/vs-crate.mjs');
const manifest = join(benchDir, 'rayon-ref', 'Cargo.toml');
execFileSync('cargo', ['build', '-q', '--release', '--manifest-path', manifest, '--bin', 'native-ref'], { stdio: 'inherit' });
const refBin = join(benchDir, 'rayon-ref', 'target', 'release', 'native-ref');

const native = await loadKit('native');
const auto = await loadKit('auto');
const status = native.mod.nativeStatus();
const defaultThreads = status.threads;
const { blake3: napiBlake3 } = createRequire(import.meta.url)('@napi-rs/blake-hash');
const setThreads = (n) => native.mod.configureParallel({ workers: n });
console.log(`vs-crate: native addon ${status.path} (cpu features: ${status.cpuFeatures}, default threads: ${defaultThreads}); ${rounds} rounds`);

const ROWS = [
  { id: 'native1', label: 'kit native, 1 thread', threads: 1, fn: (x) => native.b3.hash(x) },
  { id: 'native', label: `kit native, ${defaultThreads} threads (default)`, threads: defaultThreads, fn: (x) => native.b3.hash(x) },
  { id: 'auto', label: `kit default hash() (native+wasm-simd), ${defaultThreads} threads`, threads: defaultThreads, fn: (x) => auto.b3.hash(x) },
  { id: 'napi', label: '@napi-rs/blake-hash', threads: defaultThreads, fn: (x) => napiBlake3(x) },
];

function crate(size, samples) {
  const out = execFileSync(refBin, ['--rounds', String(samples), '--min-ms', String(batchMs), String(size)], { encoding: 'utf8' });
  return JSON.parse(out.trim());
}

const cells = new Map(); // size -> { input, crate: {hash: [], rayon: []}, rows: {id: {k, mbps: []}} }
for (const size of SIZES) {
  const input = makeInput(size);
  const first = crate(size, 1);
  const entry = { input, digest: first.digest, crateThreads: first.threads, crate: { hash: [], rayon: [] }, rows: {} };
  for (const row of ROWS) {
    setThreads(row.threads);
    const op = () => row.fn(input);
    const got = toHex(op());
    if (got !== first.digest) throw new Error(`${row.label} at ${size} B: digest ${got}, the crate's ${first.digest}`);
    entry.rows[row.id] = { op, k: calibrate(op, batchMs), mbps: [] };
  }
  cells.set(size, entry);
}
setThreads(defaultThreads);
console.log(`vs-crate: digests agree with the official crate for ${ROWS.length} rows × ${SIZES.length} sizes; timing`);

for (let r = 0; r < rounds; r++) {
  for (const size of SIZES) {
    const e = cells.get(size);
    const runCrate = () => {
      const c = crate(size, 3);
      e.crate.hash.push(...c.hash);
      e.crate.rayon.push(...c.rayon);
    };
    const block = (threads) => {
      setThreads(threads);
      for (const row of ROWS.filter((x) => x.threads === threads)) {
        const c = e.rows[row.id];
        c.mbps.push((size * c.k) / (timeBatch(c.op, c.k) / 1e3) / 1e6);
      }
    };
    const blocks = defaultThreads === 1 ? [1] : r % 2 ? [defaultThreads, 1] : [1, defaultThreads];
    if (r % 2 === 0) runCrate();
    for (const t of blocks) block(t);
    if (r % 2 === 1) runCrate();
  }
  process.stdout.write(`\r  round ${r + 1}/${rounds}`);
}
setThreads(defaultThreads);
process.stdout.write('\n');

const results = SIZES.map((size) => {
  const e = cells.get(size);
  const m = Object.fromEntries(Object.entries(e.rows).map(([id, c]) => [id, median(c.mbps)]));
  return { size, crateHash: median(e.crate.hash), crateRayon: median(e.crate.rayon), ...m, k: Object.fromEntries(Object.entries(e.rows).map(([id, c]) => [id, c.k])) };
});

const big = results.filter((x) => x.size >= CRATE_FROM);
const crateTable = mdTable(
  ['size', 'crate `hash` 1T', 'kit native 1T', '**1T ÷ crate**', `crate \`update_rayon\` ${cells.get(SIZES[0]).crateThreads}T`, `kit native ${defaultThreads}T`, `**${defaultThreads}T ÷ crate rayon**`, `${defaultThreads}T ÷ best crate`],
  big.map((x) => [
    sizeLabel(x.size),
    fmtRate(x.crateHash),
    fmtRate(x.native1),
    fmtRatio(x.native1 / x.crateHash),
    fmtRate(x.crateRayon),
    fmtRate(x.native),
    fmtRatio(x.native / x.crateRayon),
    fmtRatio(x.native / Math.max(x.crateHash, x.crateRayon)),
  ]),
);
const allTable = mdTable(
  ['row', ...SIZES.map(sizeLabel)],
  [
    ['crate `blake3::hash`, 1 thread (Rust)', ...results.map((x) => fmtRate(x.crateHash))],
    [`crate \`update_rayon\`, ${cells.get(SIZES[0]).crateThreads} threads (Rust)`, ...results.map((x) => fmtRate(x.crateRayon))],
    ...ROWS.map((row) => [row.label, ...results.map((x) => fmtRate(x[row.id]))]),
  ],
);
const napiTable = mdTable(
  ['ratio', ...SIZES.map(sizeLabel)],
  [
    ['kit native 1T ÷ @napi-rs/blake-hash', ...results.map((x) => fmtRatio(x.native1 / x.napi))],
    [`kit native ${defaultThreads}T ÷ @napi-rs/blake-hash`, ...results.map((x) => fmtRatio(x.native / x.napi))],
    ['kit default hash() ÷ @napi-rs/blake-hash', ...results.map((x) => fmtRatio(x.auto / x.napi))],
    ['kit native 1T ÷ crate `hash`', ...results.map((x) => fmtRatio(x.native1 / x.crateHash))],
    ['@napi-rs/blake-hash ÷ crate `hash`', ...results.map((x) => fmtRatio(x.napi / x.crateHash))],
  ],
);

const md = [
  '# Native backend vs the official crate (Rust) and @napi-rs/blake-hash',
  '',
  infoLines(info, [
    '',
    `Native addon: ${status.path}; cpu features ${status.cpuFeatures}; default ${defaultThreads} threads. ` +
      `MB/s = 10^6 bytes/s, medians of ${rounds} rounds (Rust: 3 samples per round) of ~${batchMs} ms batches. ` +
      'Rust: bench/rayon-ref `native-ref` (blake3 =1.8.7, features rayon, lto, codegen-units = 1), one process per round and size; its samples exclude process start and input set-up.',
  ]),
  '',
  '## Against the crate, 64 KiB and up (target: ≥ 0.95×)',
  '',
  crateTable,
  '',
  '## Every row, MB/s',
  '',
  allTable,
  '',
  '## Ratios (target: kit native ≥ 1.0× @napi-rs/blake-hash from 4 KiB)',
  '',
  napiTable,
  '',
].join('\n');
console.log(`\n${md}`);
console.log(`vs-crate: wrote ${writeNativeResults('vs-crate', md, { ...info, nativeStatus: { ...status, error: status.error?.message }, rounds, batchMs, results, samples: SIZES.map((size) => { const e = cells.get(size); return { size, crate: e.crate, rows: Object.fromEntries(Object.entries(e.rows).map(([id, c]) => [id, { k: c.k, mbps: c.mbps }])) }; }) })}`);
