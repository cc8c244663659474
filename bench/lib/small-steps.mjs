// The steps of a small one-shot, for bench/small-path.mjs in Node, Deno and
// Bun and for its page (bench/small-path-page.html) in the three browsers:
// one measuring code, so the engines' columns compare. Import-free but for
// timing.mjs, so a page can load it as it is.
import { median, timeBatch } from './timing.mjs';

/** A raw module's exports and its staging buffer, from its bytes (the
 * wasm-bindgen imports are never called on these paths). */
export function instantiateRaw(bytes) {
  const module = new WebAssembly.Module(bytes);
  const imports = {};
  for (const { module: from, name } of WebAssembly.Module.imports(module)) (imports[from] ??= {})[name] = () => {};
  const e = new WebAssembly.Instance(module, imports).exports;
  e.__wbindgen_start?.();
  return { e, staging: new Uint8Array(e.memory.buffer, e.staging_ptr(), e.staging_len()) };
}

/** The columns, in order, after `size`: each step, then each peer. */
export const STEPS = ['call', 'stage', 'rows', 'words', 'scalar', 'out', 'hash()'];

/**
 * ns per call of every step at each size, medians of `rounds` rounds in
 * which the steps alternate (3 more rounds first, not kept), `calls` calls
 * a batch. `simd` and `scalar` come from instantiateRaw; `hash` is the
 * public one-shot (its single-block probe ended); `peers` maps a name to a
 * one-shot. Rows: [size, ...ns in STEPS then peers' order].
 */
export function measureSmallSteps({ simd, scalar, hash, peers, sizes, rounds, calls }) {
  return sizes.map((size) => {
    const input = new Uint8Array(size).map((_, i) => (i * 7) % 251);
    simd.staging.set(input);
    scalar.staging.set(input);
    // set_word_blocks inside rows/words costs one call; the call column shows it.
    const oneshot = (m, words) => () => {
      m.e.set_word_blocks(words);
      return m.e.hash_oneshot(0, size, 32);
    };
    const steps = [
      () => simd.e.word_blocks(),
      () => simd.staging.set(input),
      oneshot(simd, 0),
      oneshot(simd, 1),
      oneshot(scalar, 1),
      () => simd.staging.slice(0, 32),
      () => hash(input),
      ...Object.values(peers).map((fn) => () => fn(input)),
    ];
    const samples = steps.map(() => []);
    for (let round = 0; round < rounds + 3; round++) {
      steps.forEach((fn, k) => {
        const ns = (timeBatch(fn, calls) * 1e6) / calls;
        if (round >= 3) samples[k].push(ns);
      });
    }
    return [size, ...samples.map(median)];
  });
}

/** The table's lines: a header, then per size the ns and two ratios
 * (words ÷ rows, best peer ÷ hash()). */
export function smallStepsTable(rows, peerNames) {
  const lines = [['size', ...STEPS, ...peerNames, 'words÷rows', 'best peer÷hash()'].join('\t')];
  for (const [size, ...ns] of rows) {
    const at = (name) => ns[STEPS.indexOf(name)];
    const bestPeer = Math.min(...ns.slice(STEPS.length));
    const ratios = [(at('words') / at('rows')).toFixed(2), Number.isFinite(bestPeer) ? (bestPeer / at('hash()')).toFixed(2) : '-'];
    lines.push([size, ...ns.map((x) => x.toFixed(0)), ...ratios].join('\t'));
  }
  return lines;
}
