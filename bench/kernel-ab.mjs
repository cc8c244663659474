// A/B throughput of two (or more) wasm core modules in one process, for kernel
// work: the machine is shared and noisy, so variants are timed in alternation
// (A, B, A, B, ...) and compared as ratios of medians from the same run.
//
//   node bench/kernel-ab.mjs A.wasm B.wasm [C.wasm ...] [--peer DIR] [--rounds N] [--sizes 64,1024,...]
//                            [--processes N]
//
// With --processes N, each variant is also measured in N fresh child
// processes (A, B, A, B, ...), and the table shows the median over them of
// each child's median: V8 places code differently in every process, which
// moves small-input numbers by up to ~10%.
//
// Each module is instantiated directly and driven exactly as src/wasm/hash.ts
// drives it: copy the input into the staging buffer, one `hash_oneshot` call,
// copy the 32-byte digest out; inputs over the staging buffer go through a
// slot (hasher_new, hasher_update per staging-sized piece, hasher_finalize,
// hasher_free). `--peer DIR` adds blake3-wasm 3's emscripten build (the C
// SSE4.1 kernel): DIR holds its dist/wasm/blake3.js and blake3.wasm.
// Every variant must give the same digest for every size before timing.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { toHex } from './lib/data.mjs';
import { sizeLabel } from './lib/format.mjs';
import { median } from './lib/timing.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const [value] = args.splice(i, 2).slice(1);
  return value;
};
const rounds = Number(option('--rounds', 15));
const peerDir = option('--peer', undefined);
const sizes = option('--sizes', '64,256,1024,4096,16384,65536,1048576').split(',').map(Number);
const BATCH_MS = Number(option('--batch-ms', 40));
const processes = Number(option('--processes', 0));
const child = option('--child', undefined);
if (args.length < 1) {
  console.error('usage: node bench/kernel-ab.mjs A.wasm B.wasm ... [--peer DIR] [--rounds N] [--sizes a,b,c]');
  process.exit(2);
}

function ours(path) {
  const module = new WebAssembly.Module(readFileSync(path));
  const imports = {};
  for (const { module: from, name } of WebAssembly.Module.imports(module)) (imports[from] ??= {})[name] = () => {};
  const e = new WebAssembly.Instance(module, imports).exports;
  e.__wbindgen_start?.();
  const stagingLen = e.staging_len();
  let staging = new Uint8Array(e.memory.buffer, e.staging_ptr(), stagingLen);
  const views = () => {
    if (staging.buffer !== e.memory.buffer) staging = new Uint8Array(e.memory.buffer, e.staging_ptr(), stagingLen);
  };
  const check = (code, what) => {
    if (code < 0) throw new Error(`${path}: ${what} returned ${code}`);
  };
  return {
    name: basename(path),
    hash(bytes) {
      if (bytes.length <= stagingLen) {
        staging.set(bytes);
        check(e.hash_oneshot(0, bytes.length, 32), 'hash_oneshot');
        return staging.slice(0, 32);
      }
      const slot = e.hasher_new(0);
      check(slot, 'hasher_new');
      views();
      for (let offset = 0; offset < bytes.length; offset += stagingLen) {
        const piece = bytes.subarray(offset, offset + stagingLen);
        staging.set(piece);
        check(e.hasher_update(slot, piece.length), 'hasher_update');
      }
      check(e.hasher_finalize(slot, 32, 0, 0), 'hasher_finalize');
      const out = staging.slice(0, 32);
      e.hasher_free(slot);
      return out;
    },
  };
}

async function peer(dir) {
  const require = createRequire(import.meta.url);
  const factory = require(join(dir, 'dist', 'wasm', 'blake3.js'));
  const m = await factory({ locateFile: (f) => join(dir, 'dist', 'wasm', f) });
  let capacity = 0;
  let input = 0;
  const out = m._malloc(32);
  return {
    name: 'blake3-wasm@3 (C SSE4.1, emscripten)',
    hash(bytes) {
      if (bytes.length > capacity) {
        if (input) m._free(input);
        capacity = bytes.length;
        input = m._malloc(capacity);
      }
      m.HEAPU8.set(bytes, input);
      m._hash_oneshot(input, bytes.length, out, 32);
      return m.HEAPU8.slice(out, out + 32);
    },
  };
}

const allVariants = args.map((path) => () => ours(path));
if (peerDir) allVariants.push(() => peer(peerDir));

/** Medians in MB/s per size, for each of `variants`, alternating in this process. */
function measure(variants) {
  const result = sizes.map(() => []);
  sizes.forEach((size, s) => {
    const input = new Uint8Array(size).map((_, i) => (i * 7 + 3) & 0xff);
    const digests = variants.map((v) => toHex(v.hash(input)));
    if (new Set(digests).size !== 1) throw new Error(`digests differ at ${size}: ${digests.join(' ')}`);
    // Calibrate (and warm up) each variant to a batch of about BATCH_MS.
    const calls = variants.map((v) => {
      let n = 1;
      for (;;) {
        const t0 = performance.now();
        for (let i = 0; i < n; i++) v.hash(input);
        const t = performance.now() - t0;
        if (t > BATCH_MS) return Math.max(1, Math.round((n * BATCH_MS) / t));
        n *= 2;
      }
    });
    const rates = variants.map(() => []);
    for (let r = 0; r < rounds; r++) {
      // Alternate the order too, so neither variant always runs first.
      const order = variants.map((_, i) => i);
      if (r % 2) order.reverse();
      for (const i of order) {
        const v = variants[i];
        const n = calls[i];
        const t0 = performance.now();
        for (let k = 0; k < n; k++) v.hash(input);
        const t = performance.now() - t0;
        rates[i].push((size * n) / (t / 1000) / 1e6);
      }
    }
    result[s] = rates.map(median);
  });
  return result; // [size][variant]
}

if (child !== undefined) {
  const variant = await allVariants[Number(child)]();
  process.stdout.write(JSON.stringify(measure([variant]).map((row) => row[0])));
  process.exit(0);
}

const variants = await Promise.all(allVariants.map((make) => make()));
let meds;
if (processes > 0) {
  const { execFileSync } = await import('node:child_process');
  const perVariant = variants.map(() => sizes.map(() => []));
  for (let p = 0; p < processes; p++) {
    const order = variants.map((_, i) => i);
    if (p % 2) order.reverse();
    for (const i of order) {
      const out = execFileSync(process.execPath, [...process.execArgv, process.argv[1], ...process.argv.slice(2), '--child', String(i)], {
        encoding: 'utf8',
      });
      JSON.parse(out).forEach((rate, s) => {
        perVariant[i][s].push(rate);
      });
    }
  }
  meds = sizes.map((_, s) => variants.map((_, i) => median(perVariant[i][s])));
} else {
  meds = measure(variants);
}

const where = processes > 0 ? `${processes} alternating child processes per variant, each` : 'one process,';
console.log(`node ${process.version}, ${where} ${rounds} alternating rounds of ~${BATCH_MS} ms per size; MB/s medians`);
for (const [i, v] of variants.entries()) console.log(`  ${String.fromCharCode(65 + i)}: ${v.name}`);
const header = [
  'size',
  ...variants.map((_, i) => String.fromCharCode(65 + i)),
  ...variants.slice(1).map((_, i) => `${String.fromCharCode(66 + i)}/A`),
];
const rows = [header];
sizes.forEach((size, s) => {
  const m = meds[s];
  rows.push([sizeLabel(size), ...m.map((x) => x.toFixed(0)), ...m.slice(1).map((x) => (x / m[0]).toFixed(2))]);
});
const widths = header.map((_, c) => Math.max(...rows.map((r) => r[c].length)));
for (const r of rows) console.log(r.map((cell, c) => (c ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join('  '));
