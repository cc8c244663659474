// kernel-ab.mjs's A/B in Debian Chromium: each wasm module's `hash()` path
// (copy into staging, one hash_oneshot, copy the digest out) timed in
// alternating rounds in one page, medians in MB/s and ratios to the first.
//
//   node bench/kernel-ab-chromium.mjs A.wasm B.wasm [C.wasm ...] [--rounds N] [--sizes 64,1024,...]
//
// Inputs up to the staging buffer only (64 KiB): the single-block and
// single-chunk paths are where Chromium and Node differ. Two more rows read
// 1 MiB of extended output (hasher_finalize in 64 KiB pieces, copied out),
// into one reused buffer and into a fresh one per read, which shows what
// the first touch of new pages costs here (see wasm_simd.rs on xof4).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../scripts/chromium.mjs';
import { sizeLabel } from './lib/format.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '15' }, sizes: { type: 'string', default: '64,256,1024,4096,65536' } },
});
if (positionals.length < 1) {
  console.error('usage: node bench/kernel-ab-chromium.mjs A.wasm B.wasm ... [--rounds N] [--sizes a,b,c]');
  process.exit(2);
}
const sizes = values.sizes.split(',').map(Number);
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
const page = await browser.newPage();
const modules = positionals.map((path) => Array.from(readFileSync(path)));

const rows = await page.evaluate(
  ({ modules, sizes, rounds }) => {
    const hashers = modules.map((bytes) => {
      const module = new WebAssembly.Module(new Uint8Array(bytes));
      const imports = {};
      for (const { module: from, name } of WebAssembly.Module.imports(module)) (imports[from] ??= {})[name] = () => {};
      const e = new WebAssembly.Instance(module, imports).exports;
      e.__wbindgen_start?.();
      const slot = e.hasher_new(0);
      const staging = new Uint8Array(e.memory.buffer, e.staging_ptr(), e.staging_len());
      staging.fill(7, 0, 32);
      e.hasher_update(slot, 32);
      const xof = (out) => {
        for (let at = 0; at < out.length; at += staging.length) {
          if (e.hasher_finalize(slot, staging.length, at, 0) < 0) throw new Error('hasher_finalize failed');
          out.set(staging, at);
        }
        return out;
      };
      const hash = (input) => {
        staging.set(input);
        if (e.hash_oneshot(0, input.length, 32) < 0) throw new Error('hash_oneshot failed');
        return staging.slice(0, 32);
      };
      return { hash, xof };
    });
    const median = (list) => list.sort((a, b) => a - b)[list.length >> 1];
    /** Medians in MB/s of `run(variant)` over `bytes` bytes, alternating. */
    const time = (bytes, run) => {
      const rates = hashers.map(() => []);
      for (let round = 0; round < rounds; round++) {
        hashers.forEach((variant, k) => {
          const start = performance.now();
          run(variant);
          rates[k].push(bytes / (performance.now() - start) / 1000);
        });
      }
      return rates.map(median);
    };
    const rows = sizes.map((size) => {
      const input = new Uint8Array(size).map((_, i) => (i * 7 + 3) & 0xff);
      const digests = hashers.map(({ hash }) => hash(input).join());
      if (new Set(digests).size !== 1) throw new Error(`digests differ at ${size} bytes`);
      // About 4 MB a round: ~2-10 ms here, long enough for the clock.
      const calls = Math.ceil(4e6 / size);
      return [
        size,
        ...time(calls * size, ({ hash }) => {
          for (let i = 0; i < calls; i++) hash(input);
        }),
      ];
    });
    const reused = new Uint8Array(1 << 20);
    const outputs = hashers.map(({ xof }) => xof(reused).join());
    if (new Set(outputs).size !== 1) throw new Error('extended outputs differ');
    rows.push([
      'xof 1 MiB, reused',
      ...time(8 << 20, ({ xof }) => {
        for (let i = 0; i < 8; i++) xof(reused);
      }),
    ]);
    rows.push([
      'xof 1 MiB, fresh',
      ...time(8 << 20, ({ xof }) => {
        for (let i = 0; i < 8; i++) xof(new Uint8Array(1 << 20));
      }),
    ]);
    return rows;
  },
  { modules, sizes, rounds: Number(values.rounds) },
);
console.log(`Chromium ${browser.version()}, one page, ${values.rounds} alternating rounds per size; MB/s medians`);
for (const [k, path] of positionals.entries()) console.log(`  ${String.fromCharCode(65 + k)}: ${basename(path)}`);
for (const [size, ...rates] of rows) {
  const ratios = rates.slice(1).map((rate) => (rate / rates[0]).toFixed(2));
  const label = typeof size === 'number' ? sizeLabel(size) : size;
  console.log([label.padEnd(18), ...rates.map((rate) => rate.toFixed(0).padStart(6)), ...ratios.map((r) => r.padStart(6))].join(' '));
}
await browser.close();
