// Where the native addon starts beating wasm-simd: the size for
// NATIVE_FROM (src/native/routing.ts), from which `hash()` in the default
// backend (native+wasm-simd) sends inputs to native.
//
//   node bench/native/crossover.mjs [--rounds 21] [--batch-ms 3]   (after `node scripts/setup.mjs`)
//
// One process, two blake3-kit instances (`init({ backend: 'native' })` and
// `init({ backend: 'wasm-simd' })`, see bench/lib/kit.mjs loadKit). For each size and
// each row: a digest check against @noble/hashes, then a batch size k so a
// batch takes about --batch-ms. Then --rounds rounds; in each, every size
// times one batch of every row, the instance that goes first rotating from
// round to round, so drift in the machine's load hits all alike. The table gives
// medians over the rounds; "native faster" counts the rounds in which the
// native batch beat the wasm batch of the same round.
//
// Rows: one-shot `hash(input)`, and a hasher's life cycle: createHasher(),
// one update(input), digest(), dispose(). A third instance, the default
// `init()` (native+wasm-simd, routed at the current nativeThreshold()), is
// timed alongside for reference: it shows what the routing costs and does.
import { parseArgs } from 'node:util';
import { blake3 as noble } from '@noble/hashes/blake3.js';
import { makeInput, toHex } from '../lib/data.mjs';
import { fmtRate, fmtRatio, KiB, mdTable, sizeLabel } from '../lib/format.mjs';
import { loadKit } from '../lib/kit.mjs';
import { infoLines, runInfo, writeNativeResults } from '../lib/record.mjs';
import { calibrate, median, timeBatch } from '../lib/timing.mjs';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '21' },
    'batch-ms': { type: 'string', default: '3' },
  },
});
const rounds = Number(args.rounds);
const batchMs = Number(args['batch-ms']);

// Powers of two with midpoints, and every whole KiB from 4 to 16 KiB plus
// the sizes just below 4, 8, 16 and 32 KiB. The official crate hashes up to
// 16 chunks (KiB) at once in groups of 16, 8 and 4 (AVX-512, AVX2, SSE4.1)
// and the rest one chunk at a time, so 3, 7 or 15 whole chunks and a partial
// one are its slowest sizes per byte: a threshold that only looked at powers
// of two could send those to native where wasm is faster.
const SIZES = [
  32, 64, 128, 256, 384, 512, 768, KiB, 1536, 2 * KiB, 3 * KiB,
  ...Array.from({ length: 13 }, (_, i) => (4 + i) * KiB).flatMap((s) => (s === 4 * KiB || s === 8 * KiB || s === 16 * KiB ? [s - 1, s] : [s])),
  24 * KiB, 32 * KiB - 1, 32 * KiB, 64 * KiB,
];

const info = runInfo('native/crossover.mjs');
const native = await loadKit('native');
const wasm = await loadKit('wasm-simd');
const auto = await loadKit('auto');
const threshold = auto.mod.nativeThreshold();
const status = native.mod.nativeStatus();
console.log(`crossover: native addon ${status.path} (cpu features: ${status.cpuFeatures}, threads: ${status.threads}); default routing from ${threshold} B; ${rounds} rounds, ~${batchMs} ms batches`);

const oneshot = (b3) => (input) => b3.hash(input);
const lifeCycle = (b3) => (input) => {
  const h = b3.createHasher();
  h.update(input);
  const d = h.digest();
  h.dispose();
  return d;
};
const ROWS = [
  { id: 'wasm-oneshot', side: 'wasm', kind: 'oneshot', fn: oneshot(wasm.b3) },
  { id: 'native-oneshot', side: 'native', kind: 'oneshot', fn: oneshot(native.b3) },
  { id: 'auto-oneshot', side: 'auto', kind: 'oneshot', fn: oneshot(auto.b3) },
  { id: 'wasm-hasher', side: 'wasm', kind: 'hasher', fn: lifeCycle(wasm.b3) },
  { id: 'native-hasher', side: 'native', kind: 'hasher', fn: lifeCycle(native.b3) },
  { id: 'auto-hasher', side: 'auto', kind: 'hasher', fn: lifeCycle(auto.b3) },
];

const SIDES = ['wasm', 'native', 'auto'];

// Same digest first, then the batch sizes.
const cells = [];
for (const size of SIZES) {
  const input = makeInput(size);
  const want = toHex(noble(input));
  for (const row of ROWS) {
    const op = () => row.fn(input);
    const got = toHex(op());
    if (got !== want) throw new Error(`${row.id} at ${size} B: digest ${got}, expected ${want}`);
    cells.push({ size, row, op, k: calibrate(op, batchMs), ns: [] });
  }
}
console.log(`crossover: digests agree with @noble/hashes for ${ROWS.length} rows × ${SIZES.length} sizes; timing`);

for (let r = 0; r < rounds; r++) {
  for (const size of SIZES) {
    const here = cells.filter((c) => c.size === size);
    const sides = SIDES.slice(r % SIDES.length).concat(SIDES.slice(0, r % SIDES.length));
    const order = sides.flatMap((side) => here.filter((c) => c.row.side === side));
    for (const c of order) c.ns.push((timeBatch(c.op, c.k) * 1e6) / c.k);
  }
  process.stdout.write(`\r  round ${r + 1}/${rounds}`);
}
process.stdout.write('\n');

const cell = (size, id) => cells.find((c) => c.size === size && c.row.id === id);
const results = {};
const tables = [];
for (const kind of ['oneshot', 'hasher']) {
  const rows = SIZES.map((size) => {
    const w = cell(size, `wasm-${kind}`);
    const n = cell(size, `native-${kind}`);
    const a = cell(size, `auto-${kind}`);
    const wns = median(w.ns);
    const nns = median(n.ns);
    const ans = median(a.ns);
    const wins = n.ns.filter((x, i) => x < w.ns[i]).length;
    return { size, wasmNs: wns, nativeNs: nns, defaultNs: ans, wasmMBs: (size / wns) * 1e3, nativeMBs: (size / nns) * 1e3, ratio: nns / wns, nativeWins: wins, rounds, kWasm: w.k, kNative: n.k };
  });
  // The first size from which native is faster at that size and every larger one.
  let crossover;
  for (let i = rows.length - 1; i >= 0 && rows[i].ratio < 1; i--) crossover = rows[i].size;
  // The same, requiring native to win in most rounds (the paired comparison).
  let crossoverPaired;
  for (let i = rows.length - 1; i >= 0 && rows[i].nativeWins > rounds / 2; i--) crossoverPaired = rows[i].size;
  results[kind] = { rows, crossover, crossoverPaired };
  const title = kind === 'oneshot' ? '### One-shot `hash(input)`' : '### Hasher life cycle: createHasher(), one update(input), digest(), dispose()';
  tables.push(
    title,
    '',
    mdTable(
      ['size', 'wasm-simd ns/op', 'native ns/op', 'wasm-simd MB/s', 'native MB/s', '**native ÷ wasm time**', 'native faster', `default ns/op (native from ${threshold} B)`],
      rows.map((x) => [
        sizeLabel(x.size),
        x.wasmNs.toFixed(0),
        x.nativeNs.toFixed(0),
        fmtRate(x.wasmMBs),
        fmtRate(x.nativeMBs),
        `${x.ratio < 1 ? '**' : ''}${fmtRatio(x.ratio)}${x.ratio < 1 ? '**' : ''}`,
        `${x.nativeWins}/${rounds}`,
        x.defaultNs.toFixed(0),
      ]),
    ),
    '',
    `Native faster (median) at every size from: **${crossover === undefined ? 'none' : sizeLabel(crossover)}**` +
      ` · native faster in most rounds at every size from: **${crossoverPaired === undefined ? 'none' : sizeLabel(crossoverPaired)}**`,
    '',
  );
}

const md = [
  '# Routing crossover: native addon vs wasm-simd',
  '',
  infoLines(info, [
    '',
    `Native addon: ${status.path}; cpu features ${status.cpuFeatures}; ${status.threads} threads. The default instance routes to native from ${threshold} B. ` +
      `Medians of ${rounds} interleaved rounds, each one batch of ~${batchMs} ms per row and size; ns/op = batch time ÷ calls. MB/s = 10^6 bytes/s.`,
  ]),
  '',
  ...tables,
].join('\n');
console.log(`\n${md}`);
console.log(`\ncrossover: wrote ${writeNativeResults('crossover', md, { ...info, nativeStatus: { ...status, error: status.error?.message }, rounds, batchMs, sizes: SIZES, nativeThreshold: threshold, results, samplesNs: cells.map((c) => ({ size: c.size, row: c.row.id, k: c.k, ns: c.ns })) })}`);
