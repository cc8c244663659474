// What a backend gives the one Hasher and XofReader (hasher.ts): hasher state
// of its own kind (a wasm slot, or a native handle) and the operations on it.
// The backend that init() chose is the active engine; every new Hasher takes
// it, so `new Hasher()`, `createHasher()` and `b3.Hasher` agree everywhere.

import type { Input } from './input.js';
import { notInitialized, type ContextKeys, type Mode } from './modes.js';

/**
 * Small updates are copied into a per-hasher batch of BATCH bytes and reach
 * the backend a batch at a time (each backend says what is small). On wasm,
 * 63-byte updates over 1 MiB ran at 415 -> 620 MB/s (simd) and 560 -> 675
 * (scalar) batched; a 16 KiB batch streams at the one-shot rate. A hasher
 * whose input never outgrows its batch is a one-shot hash of it, and makes
 * no backend state at all: the life cycle of a 64-byte stream went from 0.68
 * to 0.27-0.50 us on wasm, and a napi state costs ~2 us (Node 20, 2-core EPYC).
 */
export const BATCH = 16 * 1024;

export interface HasherEngine<State = unknown> {
  /** Updates shorter than this many bytes gather in the hasher's JS batch
   * (of BATCH bytes): a call into the backend costs more than the copy. */
  readonly smallUpdate: number;
  /** One-shot of a batch that never overflowed into all of `out`, in `mode`
   * with `key` (the key, or derive_key's context key). */
  hashInto(mode: Mode, key: Uint8Array | undefined, bytes: Uint8Array, out: Uint8Array): void;
  /** derive_key's context key for a checked context (cached). */
  readonly contextKey: ContextKeys;
  create(mode: Mode, key: Uint8Array | undefined): State;
  update(state: State, bytes: Uint8Array): void;
  updateString(state: State, text: string): void;
  /** The input bytes `state` can still take (BLAKE3's input ends at
   * 2^64 - 1 bytes), at most Number.MAX_SAFE_INTEGER. An update past it
   * throws RangeError and changes nothing, but a wasm update longer than the
   * staging buffer is several calls: the Hasher asks this first. */
  room(state: State): number;
  /** Root output into all of `out`, from byte `skip` (below 64) of output
   * block `counterHi * 2^32 + counterLo`; past 2^64 - 1 bytes the block
   * counter goes on, as the official OutputReader's does. */
  fill(state: State, out: Uint8Array, counterLo: number, counterHi: number, skip: number): void;
  reset(state: State): void;
  clone(state: State): State;
  free(state: State): void;
  /** Frees `state` once `owner` is garbage-collected, unless untracked first
   * (a no-op where the state frees itself with its JS object). */
  track(owner: object, state: State): void;
  untrack(owner: object): void;
  /** Capabilities only some backends have (the native addon's threads):
   * where one is absent, the Hasher method of that name rejects, saying so.
   * Hashes `input` into `state` off the JS thread. On failure the state is
   * as it was: the engine either left it untouched or hands `restore` the
   * state from before the call. */
  updateAsync?(
    state: State,
    input: Input,
    signal: AbortSignal | undefined,
    onProgress: ((done: number) => void) | undefined,
    restore: (before: State) => void,
  ): Promise<void>;
  /** Hashes bytes of an open file off the JS thread; resolves to the bytes
   * hashed, fewer than `length` if the file ended first. */
  updateFromFd?(state: State, fd: number, offset: number, length: number, mmap: boolean, signal: AbortSignal | undefined): Promise<number>;
  // Saved states. src/state.ts documents the format and writes its header
  // and trailer; engines write and check the BODY.
  /** The state as a BODY (src/state.ts). Throws an Error saying why for a
   * state that cannot be saved (a subtree hasher). Never changes `state`. */
  exportState(state: State): Uint8Array;
  /** A new state from a BODY, in `mode` with `key` (the key, derive_key's
   * context key, or undefined for hash). Throws RangeError('blake3-kit:
   * saved state ... is not valid: <why>') for an invalid body, allocating
   * nothing. */
  importState(mode: Mode, key: Uint8Array | undefined, body: Uint8Array): State;
}

/**
 * What the subtree and Bao APIs need of a backend. Apart from the hasher
 * engine, so that a page that only hashes bundles none of it: the wasm ones
 * are imported by tree-ops.ts, which only those APIs reach, and init()
 * registers the native ones here.
 */
export interface TreeOps {
  /** The non-root chaining value of `bytes` (checked: non-empty, within
   * the subtree at that offset), which start at input byte
   * `offsetHi * 2^32 + offsetLo` (a chunk boundary). The public
   * subtreeChainingValue checks its arguments and calls this. */
  chainingValueAt(mode: Mode, key: Uint8Array | undefined, offsetLo: number, offsetHi: number, bytes: Uint8Array): Uint8Array;
  /** The parent of two 32-byte chaining values: its chaining value, or
   * `length` bytes of root output. */
  mergeSubtrees(mode: Mode, key: Uint8Array | undefined, left: Uint8Array, right: Uint8Array, root: boolean, length: number): Uint8Array;
  /** Chaining values (never roots) of the chunks of `bytes` (whole chunks
   * but the last, which may be short, not empty), numbered from chunk
   * `counterHi * 2^32 + counterLo`: 32 bytes each. */
  chunkChainingValues(mode: Mode, key: Uint8Array | undefined, counterLo: number, counterHi: number, bytes: Uint8Array): Uint8Array;
  /** Parent chaining values (never roots) of 64-byte (left, right) records. */
  parentChainingValues(mode: Mode, key: Uint8Array | undefined, records: Uint8Array): Uint8Array;
  /** The pre-order Bao tree of `content` into all of `out`; returns the
   * root hash, or the chaining value of `content` as a subtree. */
  preOrder(mode: Mode, key: Uint8Array | undefined, content: Uint8Array, out: Uint8Array, options: PreOrderOptions): Uint8Array;
}

/** How TreeOps.preOrder writes a tree. */
export interface PreOrderOptions {
  /** Leaves of 2^chunkLog chunks: 0 for the bao crate, 4 for iroh's groups. */
  chunkLog: number;
  /** The leaves' bytes in place between the parents (a combined
   * encoding), or the parents alone (an outboard). */
  combined: boolean;
  /** `content` is the whole input: return its root hash. Else it is the
   * subtree from chunk `firstChunk`: return its chaining value. */
  root: boolean;
  /** Where a subtree (`root` false) starts, in chunks. */
  firstChunk: number;
}

/** The inputs of a hashMany call, checked: one buffer of `itemLength`-byte
 * inputs, or a batch of separate inputs copied one after another into a
 * buffer of ours, input i ending at `ends[i]` (each under 64 KiB). */
export type ManyInputs = { readonly data: Uint8Array; readonly itemLength: number } | { readonly data: Uint8Array; readonly ends: Uint32Array };

/** What hashMany needs of a backend; apart from the hasher engine for the
 * same reason as TreeOps. */
export interface ManyOps {
  /** `length` bytes of output for each input, one after another, into all
   * of `out` (checked: count x length bytes). */
  hashMany(mode: Mode, key: Uint8Array | undefined, inputs: ManyInputs, length: number, out: Uint8Array): void;
}

/** The wasm flavour (SIMD where the engine has it, else scalar). */
export type Flavour = 'simd' | 'scalar';
export type WasmBackend = `wasm-${Flavour}`;
/** The wasm flavour, the native addon (Node), or native for large inputs
 * with wasm for small ones (Node's default where the addon loads). */
export type Backend = WasmBackend | 'native' | `native+${WasmBackend}`;

/** The backend init() chose, in one record: its name, the engine every new
 * Hasher takes, and the addon's tree and batch operations where it serves
 * them (wasm's are imported only by the APIs that use them). */
export interface BackendInUse {
  readonly name: Backend;
  readonly engine: HasherEngine;
  readonly nativeTree: TreeOps | undefined;
  readonly nativeMany: ManyOps | undefined;
}

let inUse: BackendInUse | undefined;

/** Called by init() once a backend is chosen. */
export function useBackend(backend: BackendInUse): void {
  inUse = backend;
}

/** The backend in use, or undefined before init() resolves. */
export function backendInUse(): BackendInUse | undefined {
  return inUse;
}

/** The engine of the backend in use; throws before init(). */
export function activeEngine(): HasherEngine {
  return inUse?.engine ?? notInitialized();
}

/** The native backend's hashMany, if it serves it. */
export function nativeManyOps(): ManyOps | undefined {
  return inUse?.nativeMany;
}

/** The native backend's tree operations, if it serves them. */
export function nativeTreeOps(): TreeOps | undefined {
  return inUse?.nativeTree;
}

/** What the workers make of a stream for Bao encoding: every chunk's
 * chaining value and the length, or the whole stream where it fit one piece. */
export type StreamChunkValues = { cvs: Uint8Array[]; length: number } | { whole: Uint8Array };
