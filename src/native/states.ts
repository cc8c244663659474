// Where native hasher states live: in the addon's memory (a handle) for up
// to MAX_STATES hashers and readers, in JS memory (parked) past that, and
// how handles are reused.

import type { Mode } from '../modes.js';
import { addon, type NativeHasherHandle } from './addon.js';
import { offHeapKey } from './hash.js';

/**
 * A handle's state is freed when the hasher is disposed, or else by napi's
 * finalizer once its wrapper is collected, which Node runs only when the
 * event loop turns: 10^5 forgotten hashers (a 20 KiB update and a digest
 * each) in one synchronous loop grew RSS by 395 MiB, and 807 MiB with an
 * XOF reader each (Node 20); reporting the memory to V8 (the addon does)
 * makes it collect sooner, not finalize sooner. So hashers and readers hold
 * at most this many handles (~3.8 KiB of state each: 15 MiB); the state of
 * any more is parked in JS memory, which the collector frees by itself, and
 * each operation on it runs on a scratch handle (see test/node/
 * native-memory.test.ts for both the bound and the cost). A hasher stays
 * where it was created.
 */
export const MAX_STATES = 4096;

/** A state in JS memory, as NativeHasher.park() wrote it (it holds the key:
 * it never leaves this module). `bytes` is replaced, never changed in
 * place, so clones share it. */
export class Parked {
  constructor(public bytes: Uint8Array) {}
}

export type NativeState = NativeHasherHandle | Parked;

/** The longest parked state: mode, key and a body of 54 stack entries. */
const PARKED_MAX = 1 + 32 + 108 + 32 * 54;
const parkArea = new Uint8Array(PARKED_MAX);

/** `handle`'s state as a copy in JS memory. */
function park(handle: NativeHasherHandle): Uint8Array {
  return parkArea.slice(0, handle.park(parkArea));
}

/** Handles held by hashers and readers now (not spares, not the scratch). */
let statesHeld = 0;

/** Counts the handles of hashers and readers that were never disposed, once
 * the collector has reclaimed them (napi frees their state itself). */
const forgotten = new FinalizationRegistry<null>(() => {
  statesHeld--;
});

/**
 * Disposed handles, kept to be renewed by the next create(). Each new handle
 * is a wrapper object whose finalizer Node runs only once the event loop
 * turns: 10^6 rounds of create, update(20 KB), digest and dispose in one
 * synchronous loop left ~360 bytes a round behind them, 386 MiB RSS at the
 * peak (47 MiB at the start; wasm 67 MiB). Renewing one costs less than
 * making one, and a few cover any loop that disposes what it creates.
 */
const spareHandles: NativeHasherHandle[] = [];
const MAX_SPARE_HANDLES = 16;

/** A handle from the spares, made what `become` makes it, or a new one. */
function reuse(become: (spare: NativeHasherHandle) => void, make: () => NativeHasherHandle): NativeHasherHandle {
  const spare = spareHandles.pop();
  if (spare === undefined) return make();
  try {
    become(spare);
  } catch (error) {
    spareHandles.push(spare);
    throw error;
  }
  return spare;
}

/** The one handle that parked states are operated on. */
let scratchHandle: NativeHasherHandle | undefined;

/** `handle` as a hasher's state: itself while handles are left, else parked
 * (and the handle back among the spares). */
function keep(handle: NativeHasherHandle): NativeState {
  if (statesHeld < MAX_STATES) {
    statesHeld++;
    return handle;
  }
  const parked = new Parked(park(handle));
  release(handle);
  return parked;
}

/** Puts a handle no hasher holds among the spares, or frees it. */
function release(handle: NativeHasherHandle): void {
  if (spareHandles.length < MAX_SPARE_HANDLES) spareHandles.push(handle);
  else handle.free();
}

/** Diagnostics: handles held by hashers and readers (tests). */
export function statesInUse(): number {
  return statesHeld;
}

export function createState(mode: Mode, key: Uint8Array | undefined): NativeState {
  const offHeap = offHeapKey(key);
  return keep(
    reuse(
      (spare) => spare.renew(mode, offHeap),
      () => new addon!.NativeHasher(mode, offHeap),
    ),
  );
}

export function cloneState(state: NativeState): NativeState {
  if (state instanceof Parked) {
    if (statesHeld >= MAX_STATES) return new Parked(state.bytes);
    return keep(
      reuse(
        (spare) => spare.unparkInto(state.bytes),
        () => addon!.NativeHasher.unpark(state.bytes),
      ),
    );
  }
  if (statesHeld >= MAX_STATES) return new Parked(park(state));
  return keep(
    reuse(
      (spare) => state.cloneInto(spare),
      () => state.clone(),
    ),
  );
}

/** A new hasher's state from a saved state's BODY: a new handle rather than
 * a renewed spare, so that a body that fails to load leaves nothing behind. */
export function importedState(mode: Mode, key: Uint8Array | undefined, body: Uint8Array): NativeState {
  return keep(addon!.NativeHasher.importState(mode, offHeapKey(key), body));
}

export function freeState(state: NativeState): void {
  if (state instanceof Parked) return;
  statesHeld--;
  release(state);
}

export function trackState(owner: object, state: NativeState): void {
  if (!(state instanceof Parked)) forgotten.register(owner, null, owner);
}

export function untrackState(owner: object): void {
  forgotten.unregister(owner);
}

/** Runs `operation` on `parked`'s state in the scratch handle; `changes`:
 * the state is parked back afterwards (not if the operation throws). */
export function onParked<T>(parked: Parked, changes: boolean, operation: (handle: NativeHasherHandle) => T): T {
  const handle = (scratchHandle ??= addon!.NativeHasher.unpark(parked.bytes));
  handle.unparkInto(parked.bytes);
  const result = operation(handle);
  if (changes) parked.bytes = park(handle);
  return result;
}

/** Runs asynchronous `operation` on a handle of `parked`'s own (the scratch
 * handle serves synchronous calls meanwhile), parking the state back if it
 * succeeds. */
export async function onParkedAsync<T>(parked: Parked, operation: (handle: NativeHasherHandle) => Promise<T>): Promise<T> {
  const handle = addon!.NativeHasher.unpark(parked.bytes);
  try {
    const result = await operation(handle);
    parked.bytes = park(handle);
    return result;
  } finally {
    handle.free();
  }
}
