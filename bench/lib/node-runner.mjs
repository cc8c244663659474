// The process runtimes (Node of any version, Deno, Bun): every implementation
// in its own forked process (fresh JIT), and each cold start in a fresh
// process too. `runtime` (bench/lib/runtimes.mjs) gives the binary and its
// flags; without it, the Node running the bench.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { progress } from './progress.mjs';
import { median } from './timing.mjs';

const CHILD = fileURLToPath(new URL('../node/child.mjs', import.meta.url));
const COLD = fileURLToPath(new URL('../node/cold.mjs', import.meta.url));
const INFO = fileURLToPath(new URL('../node/info.mjs', import.meta.url));
const PARALLEL = fileURLToPath(new URL('../node/parallel.mjs', import.meta.url));

const HOST = { execPath: process.execPath, execArgv: [] };
const forkIn = (runtime, script, args, stdio) =>
  fork(script, args, { stdio, execPath: runtime.execPath, execArgv: runtime.execArgv });

// A child that has sent its result gets this long to exit before it is
// killed: Node 24.21's process.exit() can deadlock joining a V8 worker that
// waits for a GC the exiting main thread never runs (nodejs/node#54918; seen
// here in bench/node/parallel.mjs, which then cost the 600 s timeout).
const EXIT_GRACE_MS = 5000;
const killLater = (child) => setTimeout(() => child.kill('SIGKILL'), EXIT_GRACE_MS).unref();

/** One message from `script` run once under `runtime` (or { error }). */
function once(runtime, script, args, timeoutMs = 600_000) {
  return new Promise((resolve) => {
    const child = forkIn(runtime, script, args, ['ignore', 'ignore', 'pipe', 'ipc']);
    let got;
    let stderr = '';
    const timer = setTimeout(() => child.kill(), timeoutMs);
    child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
    child.on('message', (m) => {
      got = m;
      killLater(child);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(got ?? { error: `no result (${signal ?? `exit ${code}`}): ${stderr.trim().split('\n').slice(-3).join(' | ')}` });
    });
  });
}

/** Name, version and engine of a process runtime. */
export const runtimeInfo = (runtime = HOST) => once(runtime, INFO, [], 60_000);

/** Cold and warm hashParallel (bench/node/parallel.mjs) in a fresh process. */
export const parallelNode = (runtime, job) => once(runtime, PARALLEL, [JSON.stringify(job)]);

/** Runs the cells for one implementation, starting a fresh process after any
 * cell that threw (the module may be unusable after, e.g., an abort). */
export async function measureNode(impl, cells, expected, profile, runtime = HOST) {
  const results = new Array(cells.length);
  const show = progress(impl.name, cells);
  let start = 0;
  let loadError;
  while (start < cells.length) {
    const outcome = await new Promise((resolve) => {
      const child = forkIn(runtime, CHILD, [], ['ignore', 'inherit', 'pipe', 'ipc']);
      let stderr = '';
      let last = start - 1;
      let settled = false;
      const finish = (value) => {
        if (!settled) (settled = true), resolve(value);
      };
      child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
      child.on('message', (msg) => {
        if (msg.type === 'cell') {
          results[msg.index] = msg.result;
          show.cell(msg.index, msg.result);
          last = msg.index;
        } else if (msg.type === 'load-failed') {
          finish({ loadError: msg.error });
        } else if (msg.type === 'done') {
          killLater(child);
          finish({ next: msg.stoppedAt === -1 ? cells.length : msg.stoppedAt + 1 });
        }
      });
      child.on('exit', (code, signal) => {
        // A process that died mid-cell: that cell failed; go on after it.
        const died = { status: 'failed', error: `process died (${signal ?? `exit ${code}`}): ${stderr.trim().split('\n').slice(-3).join(' | ')}` };
        if (!settled && last + 1 < cells.length) {
          results[last + 1] = died;
          show.cell(last + 1, died);
        }
        finish({ next: last + 2 });
      });
      child.send({ name: impl.name, cells, expected, profile, start });
    });
    if (outcome.loadError) {
      loadError = outcome.loadError;
      break;
    }
    start = outcome.next;
  }
  show.done();
  if (loadError) console.log(`  ${impl.name.padEnd(24)} failed to load: ${loadError}`);
  return { cells: results, loadError };
}

/** Import + init + first hash in `runs` fresh processes. */
export async function coldNode(impl, runs, runtime = HOST) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const msg = await once(runtime, COLD, [impl.name], 120_000);
    if (msg.error) return { error: msg.error, runs: times };
    times.push(msg.ms);
  }
  return { runs: times, medianMs: median(times) };
}
