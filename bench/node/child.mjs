// One implementation's throughput run in its own Node process (forked by
// bench/lib/node-runner.mjs), so JIT feedback from other implementations is
// never shared. Gets { name, cells, expected, profile, start } over IPC and
// sends one message per cell.
import { findImpl } from '../lib/impls.mjs';
import { LOADERS } from '../lib/loaders-node.mjs';
import { errorText, runCells } from '../lib/measure.mjs';

process.once('message', async ({ name, cells, expected, profile, start }) => {
  const impl = findImpl(name);
  let api;
  try {
    api = await impl.setup(await LOADERS[name]());
  } catch (error) {
    process.send({ type: 'load-failed', error: errorText(error) }, () => process.exit(0));
    return;
  }
  const stoppedAt = await runCells({
    impl,
    api,
    cells,
    expected,
    profile,
    start,
    report: (index, result) => process.send({ type: 'cell', index, result }),
  });
  process.send({ type: 'done', stoppedAt }, () => process.exit(0));
});
