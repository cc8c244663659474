// Four-lane chunks against one chunk at a time in the SIMD module, and the
// two single-block codes under each: one process, the variants in
// alternation, MB/s medians (compare within a run). Why the module has
// set_lanes, and why Bun turns the lanes off (src/wasm/blocks.ts).
//
//   node bench/lanes.mjs [--rounds 15]    bun bench/lanes.mjs    deno run -A bench/lanes.mjs
//
// Needs the built module (npm run build:wasm). Rows: hash_oneshot of N
// bytes (through the staging buffer, as hash() does), and N bytes through a
// hasher slot (hasher_new, hasher_update, hasher_finalize), at 16 KiB.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { median } from './lib/timing.mjs';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '15' } } });
const rounds = Number(values.rounds);
const module = new WebAssembly.Module(readFileSync(new URL('../wasm/blake3-kit-simd.wasm', import.meta.url)));
const imports = {};
for (const { module: from, name } of WebAssembly.Module.imports(module)) (imports[from] ??= {})[name] = () => {};
const e = new WebAssembly.Instance(module, imports).exports;
e.__wbindgen_start?.();
const staging = new Uint8Array(e.memory.buffer, e.staging_ptr(), e.staging_len());
for (let i = 0; i < staging.length; i++) staging[i] = i % 251;

const oneShot = (n) => () => e.hash_oneshot(0, n, 32);
const viaHasher = (n) => () => {
  const slot = e.hasher_new(0);
  e.hasher_update(slot, n);
  e.hasher_finalize(slot, 32, 0, 0);
  e.hasher_free(slot);
};
const rows = [
  ...[1024, 2048, 4096, 16384, 65536].map((n) => ({ label: `hash_oneshot ${n / 1024} KiB`, n, run: oneShot(n) })),
  { label: 'hasher 16 KiB', n: 16384, run: viaHasher(16384) },
];
// [words, lanes]
const codes = [
  ['rows, lanes', 0, 1],
  ['rows, single', 0, 0],
  ['words, lanes', 1, 1],
  ['words, single', 1, 0],
];
const set = ([, words, lanes]) => {
  e.set_word_blocks(words);
  e.set_lanes(lanes);
};
const digest = () => Array.from(staging.subarray(0, 32), (b) => b.toString(16).padStart(2, '0')).join('');
for (const { label, n } of rows.slice(0, -1)) {
  const digests = codes.map((code) => {
    set(code);
    e.hash_oneshot(0, n, 32);
    const hex = digest();
    for (let i = 0; i < n; i++) staging[i] = i % 251;
    return hex;
  });
  if (new Set(digests).size !== 1) throw new Error(`${label}: the codes disagree: ${digests.join(' ')}`);
}

const rates = rows.map(() => codes.map(() => []));
for (let round = 0; round < rounds; round++) {
  rows.forEach(({ n, run }, r) => {
    codes.forEach((code, c) => {
      set(code);
      let calls = 0;
      const start = performance.now();
      let now = start;
      while (now - start < 20) {
        run();
        calls++;
        now = performance.now();
      }
      rates[r][c].push((n * calls) / ((now - start) * 1000));
    });
  });
}
const runtime =
  typeof Bun !== 'undefined' ? `Bun ${Bun.version}` : typeof Deno !== 'undefined' ? `Deno ${Deno.version.deno}` : `Node ${process.version}`;
console.log(`${runtime}; MB/s medians of ${rounds} alternating rounds`);
console.log(['row', ...codes.map(([name]) => name)].join('\t'));
for (const [r, { label }] of rows.entries()) console.log([label, ...rates[r].map((v) => median(v).toFixed(0))].join('\t'));
