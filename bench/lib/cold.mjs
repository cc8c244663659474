// Cold start, the same in both runtimes: import (load) + setup + the first
// hash of 64 bytes, in ms. Light on purpose: a fresh process or page loads
// this before timing starts.
import { makeInput } from './data.mjs';

export async function coldStart(impl, load) {
  const input = makeInput(64);
  const t0 = performance.now();
  const api = await impl.setup(await load());
  const out = await api.oneshot(api.prepare ? api.prepare(input) : input);
  const ms = performance.now() - t0;
  if (!out) throw new Error('no output');
  return ms;
}
