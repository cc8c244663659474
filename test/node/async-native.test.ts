// The async contract on the native addon: hashParallel, hashBlob and
// hashStream on its threads (vitest projects node-native and node-auto).
// Native-only cases (thread count, busy hashers, hashFile) are in
// native.test.ts.
import * as lib from 'blake3-kit';
import { NATIVE_STEP } from '../../src/native/absorb.js';
import { asyncContract } from '../shared/async-contract.js';
import { load } from '../shared/setup.js';

await load();
asyncContract({
  name: 'the native addon',
  lib,
  piece: NATIVE_STEP,
  copiedAhead: 2, // one piece hashing, the next staged (native/absorb.ts)
  reset: () => lib.configureParallel({ workers: 0 }),
});
