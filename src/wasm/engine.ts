// The wasm backend's hasher state: a slot in wasm memory, reached through
// the staging buffer (slot-io.ts).

import type { HasherEngine } from '../engine.js';
import { cloneSlot, core, fail, newSlot, keyArea } from './core.js';
import { hashModeInto } from './hash.js';
import { fillFromSlot, updateSlotBytes, updateSlotString, wasmContextKeys } from './slot-io.js';

/** Frees the slots of hashers and readers that were never disposed, once the
 * garbage collector has reclaimed them. */
// Cloudflare Workers before compatibility date 2025-05-05 have no
// FinalizationRegistry; there a hasher's slot is freed by destroy() only.
const forgotten =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<number>((slot) => {
        core?.hasher_free(slot);
      })
    : undefined;

export const wasmEngine: HasherEngine<number> = {
  // Each wasm update of a few bytes costs a call plus, usually, one
  // single-block compression; from 1 KiB on a call pays for itself.
  smallUpdate: 1024,
  hashInto: hashModeInto,
  contextKey: wasmContextKeys,
  create(mode, key) {
    if (key !== undefined) keyArea.set(key);
    return newSlot(mode);
  },
  update: updateSlotBytes,
  updateString: updateSlotString,
  fill: fillFromSlot,
  reset(slot) {
    const code = core!.hasher_reset(slot);
    if (code < 0) fail(code, 'hasher_reset');
  },
  clone: cloneSlot,
  free(slot) {
    core!.hasher_free(slot);
  },
  track(owner, slot) {
    forgotten?.register(owner, slot, owner);
  },
  untrack(owner) {
    forgotten?.unregister(owner);
  },
};
