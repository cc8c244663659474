// The wasm backend's hasher state: a slot in wasm memory, reached through
// the staging buffer (slot-io.ts), or past MAX_SLOTS a Parked state in JS
// memory, put into a temporary slot for each operation.

import type { HasherEngine } from '../engine.js';
import { MODE_HASH } from '../modes.js';
import { cloneSlot, core, fail, keyArea, newSlot, staging } from './core.js';
import { hashModeInto } from './hash.js';
import { fillFromSlot, updateSlotBytes, updateSlotString, wasmContextKeys } from './slot-io.js';

/**
 * Wasm memory never shrinks, and a forgotten hasher's slot comes back only
 * once the garbage collector has run and the event loop has turned: 10^5
 * forgotten hashers and XOF readers in one loop (2 x 10^5 slots of 512
 * bytes) left 101 MiB of wasm memory behind for good. So hashers and readers
 * hold at most this many slots (2 MiB of heads, plus 1.4 KiB tails for
 * those past 2 MiB of input); the state of any more lives in JS memory,
 * which the collector counts and frees, and each operation on it puts it in
 * a temporary slot (hasher_restore) and takes it back out (hasher_save).
 * Measured on wasm-simd (Node 20, 2-core EPYC, medians of 21 x 2000):
 * digest() 275 -> 480 ns, update(1 KiB) 1560 -> 2200-2400 ns, and create +
 * update(4 KiB) + digest + dispose 3300 -> 4550 ns. A hasher stays where it
 * was created.
 */
export const MAX_SLOTS = 4096;

/** A hasher's state as hasher_save wrote it, kept in JS memory. `bytes` is
 * replaced, never changed in place, so clones share it. */
class Parked {
  constructor(public bytes: Uint8Array) {}
}

type WasmState = number | Parked;

/** Slots held by hashers and readers now (not the temporary ones). */
let slotsHeld = 0;

/** Frees the slots of hashers and readers that were never disposed, once the
 * garbage collector has reclaimed them. */
// Cloudflare Workers before compatibility date 2025-05-05 have no
// FinalizationRegistry; there a hasher's slot is freed by destroy() only.
const forgotten =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<number>((slot) => {
        core?.hasher_free(slot);
        slotsHeld--;
      })
    : undefined;

/** `slot` (now free) as a state to keep: itself while slots are left,
 * else parked. */
function keep(slot: number): WasmState {
  if (slotsHeld < MAX_SLOTS) {
    slotsHeld++;
    return slot;
  }
  try {
    return new Parked(saved(slot));
  } finally {
    core!.hasher_free(slot);
  }
}

function saved(slot: number): Uint8Array {
  const length = core!.hasher_save(slot);
  if (length < 0) fail(length, 'hasher_save');
  return staging.slice(0, length);
}

/** A temporary slot holding `parked`'s state; the caller frees it. */
function unpark(parked: Parked): number {
  const slot = newSlot(MODE_HASH);
  staging.set(parked.bytes);
  const code = core!.hasher_restore(slot, parked.bytes.length);
  if (code < 0) {
    core!.hasher_free(slot);
    fail(code, 'hasher_restore');
  }
  return slot;
}

/** Runs `operation` on `parked`'s state in a temporary slot; `changes`: the
 * state is saved back afterwards (not if the operation throws). */
function onParked(parked: Parked, changes: boolean, operation: (slot: number) => void): void {
  const slot = unpark(parked);
  try {
    operation(slot);
    if (changes) parked.bytes = saved(slot);
  } finally {
    core!.hasher_free(slot);
  }
}

function reset(slot: number): void {
  const code = core!.hasher_reset(slot);
  if (code < 0) fail(code, 'hasher_reset');
}

export const wasmEngine: HasherEngine<WasmState> = {
  // Each wasm update of a few bytes costs a call plus, usually, one
  // single-block compression; from 1 KiB on a call pays for itself.
  smallUpdate: 1024,
  hashInto: hashModeInto,
  contextKey: wasmContextKeys,
  create(mode, key) {
    if (key !== undefined) keyArea.set(key);
    return keep(newSlot(mode));
  },
  update(state, bytes) {
    if (typeof state === 'number') updateSlotBytes(state, bytes);
    else onParked(state, true, (slot) => updateSlotBytes(slot, bytes));
  },
  updateString(state, text) {
    if (typeof state === 'number') updateSlotString(state, text);
    else onParked(state, true, (slot) => updateSlotString(slot, text));
  },
  fill(state, out, positionLo, positionHi) {
    if (typeof state === 'number') fillFromSlot(state, out, positionLo, positionHi);
    else onParked(state, false, (slot) => fillFromSlot(slot, out, positionLo, positionHi));
  },
  reset(state) {
    if (typeof state === 'number') reset(state);
    else onParked(state, true, reset);
  },
  clone(state) {
    if (typeof state === 'number') return slotsHeld < MAX_SLOTS ? keep(cloneSlot(state)) : new Parked(saved(state));
    return slotsHeld < MAX_SLOTS ? keep(unpark(state)) : new Parked(state.bytes);
  },
  free(state) {
    if (typeof state !== 'number') return;
    core!.hasher_free(state);
    slotsHeld--;
  },
  track(owner, state) {
    if (typeof state === 'number') forgotten?.register(owner, state, owner);
  },
  untrack(owner) {
    forgotten?.unregister(owner);
  },
};
