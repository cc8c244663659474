// Batch timing for the in-process scripts (bench/native/*, front.mjs,
// parallel/, kernel-ab, rough): a batch of k calls per sample, k fixed first
// so a batch is long enough for the timer, and medians over samples. The
// main bench's per-process cells use tinybench instead (measure.mjs).

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// Results go here so no call can be optimised away.
export let sink;

/** ms for k calls of fn. */
export function timeBatch(fn, k) {
  const t0 = performance.now();
  for (let i = 0; i < k; i++) sink = fn();
  return performance.now() - t0;
}

/** Calls per batch so that one batch takes about `ms` (also warms fn up). */
export function calibrate(fn, ms) {
  let k = 1;
  for (;;) {
    const t = Math.min(timeBatch(fn, k), timeBatch(fn, k));
    if (t >= ms / 2 || k >= 1 << 24) return k;
    k = t < ms / 16 ? k * 8 : Math.max(k + 1, Math.ceil((k * ms) / Math.max(t, 1e-3)));
  }
}

/** Median ms of `runs` calls of an async fn, after one untimed call (warm-up,
 * worker start-up). For calls long enough to time one by one. */
export async function medianMs(fn, runs) {
  await fn();
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

/**
 * Waits for the SIMD module's single-block probe (src/wasm/blocks.ts), which
 * runs on later macrotasks, 20-50 ms after init() in an app whose event loop
 * turns. The cells run with no macrotask between them, so without this wait
 * the probe never ends and every row measures its starting code (rows): on
 * the AMD EPYC host words won, and the Node 20 default hashed 1 KiB at 564
 * MB/s against 1,063 for the scalar module, whose blocks are those words.
 * The first calls after init() are in the cold-start rows.
 */
export async function blockProbeEnd(mod) {
  const deadline = performance.now() + 2000;
  while (mod.backendStatus?.().wasmBlocks?.how === 'probing' && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
