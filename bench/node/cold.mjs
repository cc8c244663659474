// Cold start of one implementation in a fresh Node process: import + init +
// the first hash (of 64 bytes), in ms. Imports nothing heavy before timing.
import { coldStart } from '../lib/cold.mjs';
import { findImpl } from '../lib/impls.mjs';
import { LOADERS } from '../lib/loaders-node.mjs';

const name = process.argv[2];
try {
  const ms = await coldStart(findImpl(name), LOADERS[name]);
  process.send({ ms }, () => process.exit(0));
} catch (error) {
  process.send({ error: String(error?.message ?? error) }, () => process.exit(0));
}
