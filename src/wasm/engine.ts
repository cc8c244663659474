// The wasm backend's hasher state: a slot in wasm memory, reached through
// the staging buffer (slot-io.ts), or past MAX_SLOTS a Parked state in JS
// memory, put into a temporary slot for each operation.

import type { HasherEngine } from '../engine.js';
import { lengthOf } from '../input.js';
import { MODE_HASH } from '../modes.js';
import { cloneSlot, core, fail, keyArea, newSlot, refreshViews, staging } from './core.js';
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

/** E_STATE and E_BODY in crate/wasm/src/lib.rs. */
const E_STATE = -6;
const E_BODY = -16;
/** Why a body is not valid, by crate/wasm/src/state.rs's BodyError. */
const BODY_ERRORS = [
  'its length is not 108 + 32 x its stack length',
  'its reserved byte is not zero',
  'its chunk count is 2^54 or more',
  'its stack length is not the number of bits set in its chunk count',
  'more than 15 blocks of its chunk are compressed',
  'its block is longer than 64 bytes',
  'the bytes past the end of its block are not zero',
  'its block is empty after input (BLAKE3 keeps the last block until more input follows)',
  'its chunk has no block compressed, yet its chaining value field is not zero',
  'it holds 2^64 - 1 bytes or more, all BLAKE3 takes: a saved state has room for more input',
];
/** The longest body: 54 stack entries. */
const MAX_BODY = 108 + 32 * 54;

/** Bytes a number holds exactly: room past it is reported as this. */
const MAX_SAFE_HIGH = 2 ** 21;

function roomOf(slot: number): number {
  const code = core!.hasher_room(slot);
  if (code < 0) fail(code, 'hasher_room');
  const view = new DataView(staging.buffer, staging.byteOffset, 8);
  const high = view.getUint32(4, true);
  return high >= MAX_SAFE_HIGH ? Number.MAX_SAFE_INTEGER : high * 2 ** 32 + view.getUint32(0, true);
}

function exportSlot(slot: number): Uint8Array {
  const length = core!.hasher_export_state(slot);
  if (length === E_STATE)
    throw new Error('blake3-kit: a subtree hasher (one at an input offset) cannot be saved: only its chaining value can be taken');
  if (length < 0) fail(length, 'hasher_export_state');
  return staging.slice(0, length);
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
  room(state) {
    if (typeof state === 'number') return roomOf(state);
    let room = 0;
    onParked(state, false, (slot) => {
      room = roomOf(slot);
    });
    return room;
  },
  fill(state, out, counterLo, counterHi, skip) {
    if (typeof state === 'number') fillFromSlot(state, out, counterLo, counterHi, skip);
    else onParked(state, false, (slot) => fillFromSlot(slot, out, counterLo, counterHi, skip));
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
  exportState(state) {
    if (typeof state === 'number') return exportSlot(state);
    let body: Uint8Array | undefined;
    onParked(state, false, (slot) => {
      body = exportSlot(slot);
    });
    return body!;
  },
  importState(mode, key, body) {
    const length = lengthOf(body);
    if (length > MAX_BODY) throw new RangeError(`blake3-kit: saved state body is not valid: ${BODY_ERRORS[0]}`);
    if (key !== undefined) keyArea.set(key);
    staging.set(body);
    const slot = core!.hasher_import_state(mode, length);
    if (slot <= E_BODY && slot > E_BODY - BODY_ERRORS.length) {
      throw new RangeError(`blake3-kit: saved state body is not valid: ${BODY_ERRORS[E_BODY - slot]}`);
    }
    if (slot < 0) fail(slot, 'hasher_import_state');
    refreshViews();
    return keep(slot);
  },
  track(owner, state) {
    if (typeof state === 'number') forgotten?.register(owner, state, owner);
  },
  untrack(owner) {
    forgotten?.unregister(owner);
  },
};
