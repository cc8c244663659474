// The Node side: every implementation in its own forked process (fresh JIT),
// and each cold start in a fresh process too.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { progress } from './progress.mjs';
import { median } from './timing.mjs';

const CHILD = fileURLToPath(new URL('../node/child.mjs', import.meta.url));
const COLD = fileURLToPath(new URL('../node/cold.mjs', import.meta.url));

/** Runs the cells for one implementation, starting a fresh process after any
 * cell that threw (the module may be unusable after, e.g., an abort). */
export async function measureNode(impl, cells, expected, profile) {
  const results = new Array(cells.length);
  const show = progress(impl.name, cells);
  let start = 0;
  let loadError;
  while (start < cells.length) {
    const outcome = await new Promise((resolve) => {
      const child = fork(CHILD, [], { stdio: ['ignore', 'inherit', 'pipe', 'ipc'], execArgv: [] });
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
export async function coldNode(impl, runs) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const msg = await new Promise((resolve) => {
      const child = fork(COLD, [impl.name], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], execArgv: [] });
      let got;
      child.stderr.resume();
      child.on('message', (m) => (got = m));
      child.on('exit', () => resolve(got ?? { error: 'no result' }));
    });
    if (msg.error) return { error: msg.error, runs: times };
    times.push(msg.ms);
  }
  return { runs: times, medianMs: median(times) };
}
