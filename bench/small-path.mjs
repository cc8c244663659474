// Where the nanoseconds of a small one-shot go, and which single-block code
// is faster on this host and engine: each step of `hash()` timed alone, in
// one process, steps in alternation, medians of rounds (compare within a run).
//
//   node bench/small-path.mjs [--sizes 64,1024] [--rounds 15]
//   deno run -A bench/small-path.mjs    bun bench/small-path.mjs
//
// Needs the built package (npm run build). Steps, ns per call:
//   call       an export that returns a constant (the JS -> wasm -> JS trip)
//   stage      copying the input into the staging buffer
//   rows/words hash_oneshot alone, with each single-block code
//   scalar     hash_oneshot of the scalar module
//   out        copying the 32-byte digest out (staging.slice)
//   hash()     the public one-shot, all of the above plus argument checks
//   hash-wasm, blake3-jit   the best small-input peers, as their READMEs use
//              them (from bench/node_modules: run `npm run bench` once first)
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { blockProbeEnd, median, sink, timeBatch } from './lib/timing.mjs';

const { values } = parseArgs({ options: { sizes: { type: 'string', default: '64,1024' }, rounds: { type: 'string', default: '15' } } });
const sizes = values.sizes.split(',').map(Number);
const rounds = Number(values.rounds);
const wasmDir = new URL('../wasm/', import.meta.url);

function instantiate(file) {
  const module = new WebAssembly.Module(readFileSync(new URL(file, wasmDir)));
  const imports = {};
  for (const { module: from, name } of WebAssembly.Module.imports(module)) (imports[from] ??= {})[name] = () => {};
  const e = new WebAssembly.Instance(module, imports).exports;
  e.__wbindgen_start?.();
  return { e, staging: new Uint8Array(e.memory.buffer, e.staging_ptr(), e.staging_len()) };
}

const simd = instantiate('blake3-kit-simd.wasm');
const scalar = instantiate('blake3-kit-scalar.wasm');
const b3 = await import('../dist/node.js');
const api = await b3.init({ backend: 'wasm-simd' });
await blockProbeEnd(b3);

const peers = {};
try {
  const { createBLAKE3 } = await import('./node_modules/hash-wasm/dist/index.esm.js');
  const instance = await createBLAKE3();
  peers['hash-wasm'] = (input) => instance.init().update(input).digest('binary');
  const jit = await import('./node_modules/blake3-jit/dist/index.js');
  peers['blake3-jit'] = (input) => jit.hash(input);
} catch {
  console.log('(peers not installed: run `npm run bench` once)');
}

const engine = globalThis.Bun ? `Bun ${Bun.version}` : globalThis.Deno ? `Deno ${Deno.version.deno}` : `Node ${process.version}`;
console.log(`${engine}; ns per call, medians of ${rounds} alternating rounds`);
console.log(
  ['size', 'call', 'stage', 'rows', 'words', 'scalar', 'out', 'hash()', ...Object.keys(peers), 'words÷rows', 'best peer÷hash()'].join('\t'),
);
for (const size of sizes) {
  const input = new Uint8Array(size).map((_, i) => (i * 7) % 251);
  simd.staging.set(input);
  scalar.staging.set(input);
  const oneshot = (m, words) => () => {
    m.e.set_word_blocks(words);
    return m.e.hash_oneshot(0, size, 32);
  };
  const steps = {
    call: () => simd.e.word_blocks(),
    stage: () => simd.staging.set(input),
    rows: oneshot(simd, 0),
    words: oneshot(simd, 1),
    scalar: oneshot(scalar, 1),
    out: () => simd.staging.slice(0, 32),
    'hash()': () => api.hash(input),
    ...Object.fromEntries(Object.entries(peers).map(([name, fn]) => [name, () => fn(input)])),
  };
  // set_word_blocks inside rows/words costs one call; the call column shows it.
  const calls = 2000;
  const samples = Object.fromEntries(Object.keys(steps).map((k) => [k, []]));
  for (let round = 0; round < rounds + 3; round++) {
    for (const [name, fn] of Object.entries(steps)) {
      const ns = (timeBatch(fn, calls) * 1e6) / calls;
      if (round >= 3) samples[name].push(ns);
    }
  }
  const med = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
  const bestPeer = Math.min(...Object.keys(peers).map((name) => med[name]));
  const ratios = [(med.words / med.rows).toFixed(2), Number.isFinite(bestPeer) ? (bestPeer / med['hash()']).toFixed(2) : '-'];
  console.log([size, ...Object.values(med).map((ns) => ns.toFixed(0)), ...ratios].join('\t'));
}
void sink;
