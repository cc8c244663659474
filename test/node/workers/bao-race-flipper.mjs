// A racing writer for test/node/bao-race.test.ts: flips the bytes at
// `indices` of a SharedArrayBuffer between their genuine and forged values
// until the main thread sets control[0]; control[1] says it has started.
// Each state is held for a random while (up to `maxHold` spins, ~10 µs at
// 2000): long enough for a check to see many bytes whole, short enough to
// change between a check and what follows it.
import { workerData } from 'node:worker_threads';

const { memory, control, indices, genuine, forged, maxHold } = workerData;
const bytes = new Uint8Array(memory);
const flags = new Int32Array(control);
Atomics.store(flags, 1, 1);
for (let round = 0; Atomics.load(flags, 0) === 0; round++) {
  const from = round & 1 ? forged : genuine;
  for (let i = 0; i < indices.length; i++) bytes[indices[i]] = from[i];
  // Atomics.load: a wait the compiler cannot remove.
  const hold = Math.floor(Math.random() * maxHold);
  for (let i = 0; i < hold && Atomics.load(flags, 0) === 0; i++);
}
