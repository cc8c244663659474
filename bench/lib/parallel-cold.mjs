// Cold and warm hashParallel, the same in every runtime: the first call
// starts the pool (workers spawned, wasm compiled in each), later calls reuse
// it, so the two are different numbers and are reported apart. Runs in a
// fresh process or page; `mod` is blake3-kit's entry for that runtime.
import { fingerprint, makeInput } from './data.mjs';
import { blockProbeEnd, median } from './timing.mjs';

/** `backend`: init({ backend }) where the entry has a choice (Node's), else
 * undefined for the runtime's default. `expected`: the fingerprint of the
 * input's digest. Every output is checked before its time counts.
 * `probeFirst`: wait for the SIMD module's block probe before the cold call;
 * `settings`: configureParallel() settings for it (bench/parallel/first-call.mjs). */
export async function parallelColdWarm(mod, { size, runs, backend, expected, serialOnly, probeFirst, settings }) {
  const input = makeInput(size);
  const b3 = await mod.init(backend ? { backend } : undefined);
  // The calling thread's first hash happens here, so the cold figure is the
  // pool's start and not this thread's first compile.
  b3.hash(input.subarray(0, 64));
  if (probeFirst) await blockProbeEnd(mod);
  const check = (out, what) => {
    if (fingerprint(out) !== expected) throw new Error(`${what}: wrong digest ${fingerprint(out)}, expected ${expected}`);
  };
  const time = async (fn) => {
    const t0 = performance.now();
    const out = await fn();
    return [performance.now() - t0, out];
  };
  // The yardstick for a first call: hash() alone, also cold, in its own
  // fresh process or page (a page hashing one file once, without workers).
  const hashFirst = async () => {
    const [coldMs, first] = await time(() => b3.hash(input));
    check(first, 'first hash');
    const serial = [];
    for (let i = 0; i < runs; i++) serial.push((await time(() => b3.hash(input)))[0]);
    return { backend: b3.backend, blocks: mod.backendStatus?.().wasmBlocks, size, coldMs, warmMs: median(serial), warmRuns: serial, serialMs: median(serial), workersStarted: 0 };
  };
  if (serialOnly) return hashFirst();
  if (settings) mod.configureParallel(settings);
  try {
    const [coldMs, first] = await time(() => mod.hashParallel(input));
    check(first, 'first hashParallel');
    const afterFirst = mod.parallelStatus();
    const warm = [];
    const serial = [];
    for (let i = 0; i < runs; i++) {
      const [ms, out] = await time(() => mod.hashParallel(input));
      check(out, 'hashParallel');
      warm.push(ms);
      const [sms, sout] = await time(() => b3.hash(input));
      check(sout, 'hash');
      serial.push(sms);
    }
    return {
      backend: b3.backend,
      blocks: mod.backendStatus?.().wasmBlocks,
      size,
      coldMs,
      warmMs: median(warm),
      warmRuns: warm,
      serialMs: median(serial),
      workersStarted: afterFirst.started,
      workers: mod.parallelStatus(),
    };
  } finally {
    mod.terminateWorkers();
  }
}
