// Cold start of one implementation in a fresh Node process: import + init +
// the first hash (of 64 bytes), in ms. Imports nothing heavy before timing.
import { findImpl } from '../lib/impls.mjs';
import { LOADERS } from '../lib/loaders-node.mjs';
import { makeInput } from '../lib/data.mjs';

const name = process.argv[2];
const input = makeInput(64);
const impl = findImpl(name);
try {
  const t0 = performance.now();
  const api = await impl.setup(await LOADERS[name]());
  const out = await api.oneshot(api.prepare ? api.prepare(input) : input);
  const ms = performance.now() - t0;
  if (!out) throw new Error('no output');
  process.send({ ms }, () => process.exit(0));
} catch (error) {
  process.send({ error: String(error?.message ?? error) }, () => process.exit(0));
}
