// Runs one implementation's cells: check the digest, then time it with
// tinybench. Platform-neutral: the Node child (bench/node/child.mjs) and the
// browser page (bench/browser/harness.mjs) both call runCells().
//
// One tinybench sample is one *batch* of k calls, k chosen so a batch takes
// about `batchMs` (thousands of calls for 64-byte inputs, one call for
// 16 MiB). Timing single 64-byte calls would measure the timer (5-100 us
// resolution in browsers), not the hash. The reported rate is
// size * k / median(batch time).
import { Bench } from 'tinybench';
import { expectationKey, fingerprint, KEY, makeInput, XOF_INPUT_SIZE } from './data.mjs';
import { MODES } from './config.mjs';
import { MiB } from './format.mjs';

const MODE = Object.fromEntries(MODES.map((m) => [m.id, m]));

// Results are stored here so no call's work can be optimised away.
export let sink;

const inputs = new Map();
function inputOf(size) {
  let input = inputs.get(size);
  if (input === undefined) inputs.set(size, (input = makeInput(size)));
  return input;
}

/** Builds the timed operation for a cell, or undefined if the API has no such
 * mode. Everything that is not hashing (input, chunk views, wrapping, fixed
 * objects) is prepared here, outside the timing. */
async function makeOp(api, cell) {
  const mode = MODE[cell.mode];
  const prep = api.prepare ?? ((x) => x);
  switch (mode.kind) {
    case 'oneshot': {
      if (!api.oneshot) return undefined;
      const input = prep(inputOf(cell.size));
      return () => api.oneshot(input);
    }
    case 'keyed': {
      if (!api.keyed) return undefined;
      const input = prep(inputOf(cell.size));
      return () => api.keyed(KEY, input);
    }
    case 'stream': {
      if (!api.stream) return undefined;
      const input = prep(inputOf(cell.size));
      const chunks = [];
      for (let at = 0; at < input.length; at += mode.chunk) chunks.push(input.subarray(at, at + mode.chunk));
      return () => api.stream(chunks);
    }
    case 'xof': {
      const input = prep(inputOf(XOF_INPUT_SIZE));
      if (api.xofSetup) {
        const read = await api.xofSetup(cell.size);
        return () => read(input);
      }
      if (!api.xof) return undefined;
      return () => api.xof(input, cell.size);
    }
  }
  throw new Error(`unknown mode ${cell.mode}`);
}

const now = () => performance.now();

/** Runs cells in order and reports each through `report(index, result)`.
 * Stops after the first cell that throws (returns its index): the process or
 * page may be broken now (an emscripten abort, say), so the caller starts a
 * fresh one for the cells after it. */
export async function runCells({ impl, api, cells, expected, profile, report, start = 0 }) {
  for (let index = start; index < cells.length; index++) {
    const cell = cells[index];
    const result = await runCell(impl, api, cell, expected[expectationKey(impl.algo, MODE[cell.mode].kind, cell.size)], profile);
    report(index, result);
    if (result.status === 'failed') return index;
  }
  return -1;
}

async function runCell(impl, api, cell, expected, profile) {
  let op;
  try {
    op = await makeOp(api, cell);
  } catch (error) {
    return { status: 'failed', error: errorText(error) };
  }
  if (op === undefined) return { status: 'n/a' };
  const isAsync = api.async === true;

  // 1. Correctness first: a wrong digest is reported and never timed.
  let got;
  try {
    got = fingerprint(isAsync ? await op() : op());
  } catch (error) {
    return { status: 'failed', error: errorText(error) };
  }
  if (expected === undefined) return { status: 'failed', error: 'no expected digest for this cell' };
  if (got !== expected) return { status: 'wrong', got, expected };

  try {
    // 2. Batch size: grow k until one batch takes batchMs (this also warms up).
    // A batch long enough to stop at (half of batchMs) is timed once more:
    // the first calls can be slow (compilation, GC), and a k sized by that
    // fluke would give batches too short for the timer. (Re-timing only from
    // batchMs let one 1-2 ms pause fix k = 1 for a 64-byte cell in Firefox,
    // whose batches then all read 0 ms.)
    let k = 1;
    const timeBatch = async () => {
      const t0 = now();
      if (isAsync) for (let i = 0; i < k; i++) sink = await op();
      else for (let i = 0; i < k; i++) sink = op();
      return now() - t0;
    };
    for (;;) {
      let t = await timeBatch();
      if (t >= profile.batchMs / 2) t = Math.min(t, await timeBatch());
      if (t >= profile.batchMs / 2 || k >= 1 << 24) break;
      k = t < profile.batchMs / 16 ? k * 8 : Math.ceil((k * profile.batchMs * 1.2) / Math.max(t, 1e-3));
    }

    // 3. Timed batches with tinybench (which warms up again first).
    const huge = cell.size >= 16 * MiB;
    const bench = new Bench({
      time: profile.time,
      warmupTime: profile.warmupTime,
      warmupIterations: huge ? 1 : 4,
      iterations: huge ? profile.minBatchesHuge : profile.minBatches,
      throws: true,
    });
    const batch = isAsync
      ? async () => {
          for (let i = 0; i < k; i++) sink = await op();
        }
      : () => {
          for (let i = 0; i < k; i++) sink = op();
        };
    bench.add(`${impl.name} ${cell.mode} ${cell.size}`, batch);
    const [task] = await bench.run();
    const r = task.result;
    if (r.state !== 'completed') throw r.error ?? new Error(`tinybench: ${r.state}`);
    // A median of 0 would mean the timer can't see a batch: never report that
    // as an infinite rate.
    if (!(r.latency.p50 > 0)) throw new Error(`median batch time ${r.latency.p50} ms with ${k} calls per batch`);
    const rate = (ms) => (cell.size * k) / (ms / 1000) / 1e6;
    return {
      status: 'ok',
      mbps: rate(r.latency.p50),
      minMbps: rate(r.latency.max),
      maxMbps: rate(r.latency.min),
      rme: r.latency.rme,
      batch: k,
      samples: task.runs,
      medianBatchMs: r.latency.p50,
    };
  } catch (error) {
    return { status: 'failed', error: errorText(error) };
  }
}

export function errorText(error) {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
