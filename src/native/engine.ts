// The native backend's hasher state: a handle on the addon's resumable
// hasher (the official crate underneath), and what only the addon can do
// with it: hash off the JS thread, from memory or from a file descriptor.

import type { HasherEngine, TreeOps } from '../engine.js';
import { BATCH } from '../hasher.js';
import { checkSignal, copyInto, type Input } from '../input.js';
import { NATIVE_STEP, abortable, absorb } from './absorb.js';
import { addon, type NativeHasherHandle } from './addon.js';
import { inputBytes, nativeContextKeys, nativeHashInto, offHeapKey, outputTarget } from './hash.js';

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
  room: (state) => state.room(),
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
  updateAsync: updateOffThread,
  updateFromFd,
  exportState: (state) => state.exportState(),
  // A new handle, not a renewed spare: a body that fails to load must leave
  // nothing behind, and a spare would have to be put back.
  importState: (mode, key, body) => addon!.NativeHasher.importState(mode, offHeapKey(key), body),
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
  restore: (before: NativeHasherHandle) => void,
): Promise<void> {
  checkSignal(signal, 'signal');
  const bytes = inputBytes(input, 'input');
  // One piece is all-or-nothing in the addon; several need a snapshot.
  const before = bytes.length > NATIVE_STEP ? state.clone() : undefined;
  try {
    await absorb(state, bytes, signal, onProgress);
  } catch (error) {
    if (before !== undefined) restore(before);
    throw error;
  }
  before?.free();
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
