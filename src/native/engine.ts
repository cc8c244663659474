// The native backend's hasher state: a handle on the official crate's
// Hasher in the addon.

import type { HasherEngine, TreeOps } from '../engine.js';
import { BATCH } from '../hasher.js';
import { copyInto } from '../input.js';
import { addon, type NativeHasherHandle } from './addon.js';
import { nativeContextKeys, nativeHashInto, offHeapKey, outputTarget } from './hash.js';

const encoder = new TextEncoder();

/** A handle that `renew()` makes a new hasher of any mode, and `cloneInto()`
 * a copy of another (an addon built before them has neither: then every
 * hasher and reader is a new handle, as before). */
type Renewable = NativeHasherHandle & {
  renew?(mode: number, key: Uint8Array | undefined): void;
  cloneInto?(target: NativeHasherHandle): void;
};

/**
 * Disposed handles, kept to be renewed by the next create(). Each new handle
 * is a wrapper object whose finalizer Node runs only once the event loop
 * turns: 10^6 rounds of create, update(20 KB), digest and dispose in one
 * synchronous loop left ~360 bytes a round behind them, 386 MiB RSS at the
 * peak (47 MiB at the start; wasm 67 MiB). Renewing one costs less than
 * making one, and a few cover any loop that disposes what it creates.
 */
const spareHandles: Renewable[] = [];
const MAX_SPARE_HANDLES = 16;

function newHandle(mode: number, key: Uint8Array | undefined): NativeHasherHandle {
  const spare = spareHandles.pop();
  if (spare === undefined) return new addon!.NativeHasher(mode, offHeapKey(key));
  try {
    spare.renew!(mode, offHeapKey(key));
  } catch (error) {
    spareHandles.push(spare);
    throw error;
  }
  return spare;
}

function cloneHandle(state: Renewable): NativeHasherHandle {
  const spare = spareHandles.pop();
  if (spare === undefined) return state.clone();
  try {
    state.cloneInto!(spare);
  } catch (error) {
    spareHandles.push(spare);
    throw error;
  }
  return spare;
}

export const nativeEngine: HasherEngine<NativeHasherHandle> = {
  // A napi call costs ~350 ns before any hashing: updates under a whole
  // batch gather in JS, and a hasher whose input fits one batch is a single
  // one-shot call (create + one update + digest + dispose at 4 KiB: wasm
  // 2987 ns, native with state made from 1 KiB 4552 ns; bench/native/
  // crossover.mjs).
  smallUpdate: BATCH,
  hashInto: nativeHashInto,
  contextKey: nativeContextKeys,
  create: newHandle,
  update: (state, bytes) => state.update(bytes),
  updateString: (state, text) => state.update(encoder.encode(text)),
  fill(state, out, positionLo, positionHi) {
    const into = outputTarget(out);
    state.fill(into, positionLo, positionHi);
    if (into !== out) copyInto(out, into);
  },
  reset: (state) => state.reset(),
  clone: cloneHandle,
  // Frees now, or keeps the handle to renew: V8 schedules the wrapper's
  // collection by JS heap size alone, which never counts this memory (10^6
  // disposed hashers reached 2.2 GB when their state waited for it).
  free(state) {
    const handle = state as Renewable;
    if (handle.cloneInto !== undefined && spareHandles.length < MAX_SPARE_HANDLES) spareHandles.push(handle);
    else handle.free();
  },
  // A forgotten handle is freed with its JS object by napi's finalizer.
  track() {},
  untrack() {},
};

/** The tree operations through the addon (upstream's hazmat). */
export const nativeTreeOps: TreeOps = {
  chainingValueAt: (mode, key, offsetLo, offsetHi, bytes) => addon!.subtreeChainingValue(mode, offHeapKey(key), offsetLo, offsetHi, bytes),
  mergeSubtrees: (mode, key, left, right, root, length) => addon!.mergeSubtrees(mode, offHeapKey(key), left, right, root, length, 0, 0),
  chunkChainingValues: (mode, key, counterLo, counterHi, bytes) => addon!.chunkChainingValues(mode, offHeapKey(key), counterLo, counterHi, bytes),
  parentChainingValues: (mode, key, records) => addon!.parentChainingValues(mode, offHeapKey(key), records),
  preOrder: (mode, key, content, out, { firstChunk, chunkLog, combined, root }) =>
    addon!.baoEncode(mode, offHeapKey(key), content, firstChunk, chunkLog, combined, root, out),
};
