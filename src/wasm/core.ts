// The instantiated wasm core and the views JS uses to reach its memory.
// Module-level bindings rather than an object: the hot paths read them on
// every call, and plain module variables are the cheapest thing V8 offers.

import type { Mode } from '../modes.js';
import type { WasmMemory } from './types.js';

/** Must equal `ABI_VERSION` in crate/wasm/src/lib.rs. */
export const ABI_VERSION = 12;

const E_NO_MEMORY = -4;
/** Input past 2^64 - 1 bytes, or a save with no room left (lib.rs). */
const E_INPUT_LIMIT = -9;
const OK_MEMORY_GREW = 1;

/** The integer-only exports of crate/wasm (see its lib.rs for each contract). */
export interface CoreExports {
  readonly memory: WasmMemory;
  abi_version(): number;
  is_simd(): number;
  set_word_blocks(words: number): number;
  word_blocks(): number;
  set_lanes(lanes: number): number;
  lanes(): number;
  set_reload_message(reload: number): number;
  reload_message(): number;
  staging_ptr(): number;
  staging_len(): number;
  key_ptr(): number;
  slots_in_use(): number;
  derive_context_key(contextLen: number): number;
  hash_oneshot(mode: number, inputLen: number, outLen: number): number;
  hasher_new(mode: number): number;
  hasher_update(slot: number, inputLen: number): number;
  hasher_room(slot: number): number;
  hasher_finalize(slot: number, outLen: number, counterLo: number, counterHi: number, skip: number): number;
  hasher_reset(slot: number): number;
  hasher_clone(slot: number): number;
  hasher_free(slot: number): number;
  hasher_save(slot: number): number;
  hasher_restore(slot: number, savedLen: number): number;
  hasher_export_state(slot: number): number;
  hasher_import_state(mode: number, bodyLen: number): number;
  hasher_set_input_offset(slot: number, offsetLo: number, offsetHi: number): number;
  hasher_finalize_non_root(slot: number): number;
  merge_non_root(mode: number): number;
  merge_root(mode: number, outLen: number, positionLo: number, positionHi: number): number;
  chunk_cvs(mode: number, inputLen: number, counterLo: number, counterHi: number): number;
  parent_cvs(mode: number, pairs: number): number;
  subtree_parents(mode: number, inputLen: number, counterLo: number, counterHi: number, chunkLog: number): number;
  hash_many(mode: number, count: number, itemLen: number, endsAt: number, outAt: number, outLen: number): number;
}

export let core: CoreExports | undefined;
/** The staging buffer: input goes in here, output comes out of it. */
export let staging: Uint8Array = new Uint8Array(0);
export let stagingLen = 0;
/** The staging buffer's first 32 bytes, where a default-length digest comes
 * out: `new Uint8Array(digestArea)` copies it out in 41-50 ns against
 * `staging.slice(0, 32)`'s 65-72 (Node 20 and 24, Bun; 21 rounds of 200k). */
export let digestArea: Uint8Array = new Uint8Array(0);
/** The 32-byte key area (key, or derive_key context key). */
export let keyArea: Uint8Array = new Uint8Array(0);

/** Hashers and readers holding a slot in the attached module. */
export function slotsInUse(): number {
  return core?.slots_in_use() ?? 0;
}

/** Whether the module attached has the exports content addressing and batch
 * hashing use (chunk_cvs and the rest). Every module this package builds
 * has them; a module passed to init({ source }) from another build may not. */
export function hasTreeExports(): boolean {
  return typeof core?.chunk_cvs === 'function';
}

/** Throws, naming `what`, unless hasTreeExports(). */
export function requireTreeExports(what: string): void {
  if (core !== undefined && !hasTreeExports()) {
    throw new Error(
      `blake3-kit: ${what} needs the wasm exports for content addressing, which the module given to init({ source }) lacks; pass this package's wasm/blake3-kit-{simd,scalar}.wasm`,
    );
  }
}

export function attach(wasmExports: CoreExports): void {
  const update = wasmExports.hasher_update;
  const restore = wasmExports.hasher_restore;
  core = {
    ...wasmExports,
    // A hasher whose stack outgrows its slot's head takes a tail (see
    // crate/wasm/src/slots.rs), so an update too can grow memory; it says so.
    // Refreshing here keeps every caller's next staging write on live memory.
    hasher_update(slot: number, inputLen: number): number {
      const code = update(slot, inputLen);
      if (code !== OK_MEMORY_GREW) return code;
      refreshViews();
      return 0;
    },
    // So can putting a deep hasher back.
    hasher_restore(slot: number, savedLen: number): number {
      const code = restore(slot, savedLen);
      if (code !== OK_MEMORY_GREW) return code;
      refreshViews();
      return 0;
    },
  };
  stagingLen = wasmExports.staging_len();
  refreshViews();
}

/** Views are detached when memory grows: in hasher_new, hasher_clone (see
 * newSlot, cloneSlot) and hasher_update (see attach). */
export function refreshViews(): void {
  const buffer = core!.memory.buffer;
  if (staging.buffer === buffer) return;
  staging = new Uint8Array(buffer, core!.staging_ptr(), stagingLen);
  digestArea = staging.subarray(0, 32);
  keyArea = new Uint8Array(buffer, core!.key_ptr(), 32);
}

/** Turns a negative export result into an exception. Inputs are validated in
 * TypeScript first, so any code but out-of-memory means a bug here. */
export function fail(code: number, operation: string): never {
  if (code === E_NO_MEMORY) {
    throw new RangeError(`blake3-kit: ${operation}: out of WebAssembly memory for hasher state; dispose() hashers that are no longer needed`);
  }
  if (code === E_INPUT_LIMIT) {
    throw new RangeError(`blake3-kit: ${operation}: the input would pass 2^64 - 1 bytes, BLAKE3's limit`);
  }
  throw new Error(`blake3-kit: internal error ${code} in ${operation}`);
}

export function newSlot(mode: Mode): number {
  const slot = core!.hasher_new(mode);
  if (slot < 0) fail(slot, 'hasher_new');
  refreshViews();
  return slot;
}

export function cloneSlot(slot: number): number {
  const copy = core!.hasher_clone(slot);
  if (copy < 0) fail(copy, 'hasher_clone');
  refreshViews();
  return copy;
}

/** Diagnostics for tests and leak hunting: the wasm slots hashers and
 * readers hold (at most 4,096; any more keep their state in JS memory) and
 * the wasm memory size in bytes. */
export function memoryStats(): { liveHashers: number; memoryBytes: number } | undefined {
  if (core === undefined) return undefined;
  return { liveHashers: core.slots_in_use(), memoryBytes: core.memory.buffer.byteLength };
}
