// The native backend's hasher state: a handle on the addon's resumable
// hasher (the official crate underneath), or past MAX_STATES one parked in
// JS memory (states.ts), and what only the addon can do with it: hash off
// the JS thread, from memory or from a file descriptor.

import { BATCH, type HasherEngine, type TreeOps } from '../engine.js';
import { checkSignal, copyInto, type Input, utf8, inputBytes } from '../input.js';
import { NATIVE_STEP, abortable, absorb } from './absorb.js';
import { addon, type NativeHasherHandle } from './addon.js';
import { nativeContextKeys, nativeHashInto, offHeapKey, outputTarget } from './hash.js';
import {
  cloneState,
  createState,
  freeState,
  importedState,
  type NativeState,
  onParked,
  onParkedAsync,
  Parked,
  trackState,
  untrackState,
} from './states.js';

export const nativeEngine: HasherEngine<NativeState> = {
  // A napi call costs ~350 ns before any hashing: updates under a whole
  // batch gather in JS, and a hasher whose input fits one batch is a single
  // one-shot call (create + one update + digest + dispose at 4 KiB: wasm
  // 2987 ns, native with state made from 1 KiB 4552 ns; bench/native/
  // crossover.mjs).
  smallUpdate: BATCH,
  hashInto: nativeHashInto,
  contextKey: nativeContextKeys,
  create: createState,
  update(state, bytes) {
    if (state instanceof Parked) onParked(state, true, (handle) => handle.update(bytes));
    else state.update(bytes);
  },
  updateString(state, text) {
    nativeEngine.update(state, utf8(text));
  },
  room: (state) => (state instanceof Parked ? onParked(state, false, (handle) => handle.room()) : state.room()),
  fill(state, out, counterLo, counterHi, skip) {
    const into = outputTarget(out);
    if (state instanceof Parked) onParked(state, false, (handle) => handle.fill(into, counterLo, counterHi, skip));
    else state.fill(into, counterLo, counterHi, skip);
    if (into !== out) copyInto(out, into);
  },
  reset(state) {
    if (state instanceof Parked) onParked(state, true, (handle) => handle.reset());
    else state.reset();
  },
  clone: cloneState,
  // Frees now, or keeps the handle to renew: V8 schedules the wrapper's
  // collection by JS heap size alone (10^6 disposed hashers reached 2.2 GB
  // when their state waited for it).
  free: freeState,
  track: trackState,
  untrack: untrackState,
  updateAsync(state, input, signal, onProgress, restore) {
    if (state instanceof Parked) return onParkedAsync(state, (handle) => updateOffThread(handle, input, signal, onProgress, undefined));
    return updateOffThread(state, input, signal, onProgress, restore);
  },
  updateFromFd(state, fd, offset, length, mmap, signal) {
    if (state instanceof Parked) return onParkedAsync(state, (handle) => updateFromFd(handle, fd, offset, length, mmap, signal));
    return updateFromFd(state, fd, offset, length, mmap, signal);
  },
  exportState: (state) => (state instanceof Parked ? onParked(state, false, (handle) => handle.exportState()) : state.exportState()),
  importState: importedState,
};

/**
 * Hashes `input` on the addon's threads. Bytes in a SharedArrayBuffer are
 * read in place; any others are copied first, a piece at a time while the
 * last one hashes, so detaching or shrinking them meanwhile can't reach the
 * hashing threads: the call rejects instead, and so does an abort (with the
 * signal's reason). Bytes changed in place during the call may be hashed
 * before or after the change.
 */
async function updateOffThread(
  state: NativeHasherHandle,
  input: Input,
  signal: AbortSignal | undefined,
  onProgress: ((done: number) => void) | undefined,
  restore: ((before: NativeState) => void) | undefined,
): Promise<void> {
  checkSignal(signal, 'signal');
  const bytes = inputBytes(input, 'input');
  // One piece is all-or-nothing in the addon; several need a snapshot
  // (unless the caller keeps one: a parked state is parked back only after
  // a success).
  const before = restore !== undefined && bytes.length > NATIVE_STEP ? cloneState(state) : undefined;
  try {
    await absorb(state, bytes, signal, onProgress);
  } catch (error) {
    if (before !== undefined) restore!(before);
    throw error;
  }
  if (before !== undefined) freeState(before);
}

async function updateFromFd(
  state: NativeHasherHandle,
  fd: number,
  offset: number,
  length: number,
  mmap: boolean,
  signal: AbortSignal | undefined,
): Promise<number> {
  checkSignal(signal, 'signal');
  for (const [name, value] of [
    ['fd', fd],
    ['offset', offset],
    ['length', length],
  ] as const) {
    if (typeof value !== 'number') throw new TypeError(`blake3-kit: ${name} must be a number; got ${typeof value}`);
    if (!Number.isSafeInteger(value) || value < 0 || (name === 'fd' && value > 0x7fffffff)) {
      throw new RangeError(`blake3-kit: ${name} must be a non-negative ${name === 'fd' ? 'file descriptor' : 'safe integer'}; got ${value}`);
    }
  }
  if (typeof mmap !== 'boolean') throw new TypeError(`blake3-kit: mmap must be a boolean; got ${typeof mmap}`);
  return abortable((inner) => state.updateFromFd(fd, offset, length, mmap, inner), signal);
}

/** The tree operations through the addon (upstream's hazmat). */
export const nativeTreeOps: TreeOps = {
  chainingValueAt: (mode, key, offsetLo, offsetHi, bytes) => addon!.subtreeChainingValue(mode, offHeapKey(key), offsetLo, offsetHi, bytes),
  mergeSubtrees: (mode, key, left, right, root, length) => addon!.mergeSubtrees(mode, offHeapKey(key), left, right, root, length, 0, 0),
  chunkChainingValues: (mode, key, counterLo, counterHi, bytes) => addon!.chunkChainingValues(mode, offHeapKey(key), counterLo, counterHi, bytes),
  parentChainingValues: (mode, key, records) => addon!.parentChainingValues(mode, offHeapKey(key), records),
  preOrder: (mode, key, content, out, { firstChunk, chunkLog, combined, root }) =>
    addon!.baoEncode(mode, offHeapKey(key), content, firstChunk, chunkLog, combined, root, out),
};
