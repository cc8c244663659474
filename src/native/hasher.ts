// Streaming hashers on the native addon. Updates under 16 KiB gather in a
// JS batch: a napi call costs far more than copying a few bytes, making the
// native state costs ~2 us, and a hasher whose whole input fits one batch is
// then a single one-shot hash (through wasm where wasm is faster at that
// size, see routing.ts). Measured (bench/native/crossover.mjs, create + one
// update + digest + dispose, 4 KiB): wasm 2987 ns, native with state made
// for updates from 1 KiB 4552 ns.

import { notInitialized, type Mode } from '../core.js';
import { BATCH, disposeSymbol, giveBackBatch, takeBatch } from '../hasher.js';
import {
  checkOptions,
  checkReadEnd,
  checkSignal,
  outputLength,
  toBytes,
  toPosition,
  type Input,
  type KeyOption,
  type LengthOption,
} from '../input.js';
import { NATIVE_PIECE, abortable, absorb } from './absorb.js';
import { addon, type NativeHasherHandle } from './addon.js';
import { nativeHashInto, nativeMode, offHeapKey, outputTarget } from './hash.js';

const encoder = new TextEncoder();
const LOW_32 = 0xffffffffn;

/** One-shot of a batch into `out` (all of it, from position 0). */
export type BatchHash = (mode: Mode, key: Uint8Array | undefined, bytes: Uint8Array, out: Uint8Array) => void;

let batchHash: BatchHash = nativeHashInto;

/** Routes the one-shots of small hashers (routing.ts); native by default. */
export function setBatchHash(hash: BatchHash): void {
  batchHash = hash;
}

function fillFrom(state: NativeHasherHandle, out: Uint8Array, positionLo: number, positionHi: number): void {
  const into = outputTarget(out);
  state.fill(into, positionLo, positionHi);
  if (into !== out) out.set(into);
}

const ADOPT = Symbol('adopt state');
const DISPOSED = null;

/** Incremental BLAKE3 on the official crate. Create with `createHasher()`. */
export class NativeHasher {
  readonly #mode: Mode;
  readonly #key: Uint8Array | undefined;
  /** The native state, made once input outgrows the batch; null once disposed. */
  #state: NativeHasherHandle | undefined | typeof DISPOSED;
  #batch: Uint8Array | undefined;
  #batched = 0;

  constructor(options?: KeyOption);
  /** @internal */
  constructor(adopt: typeof ADOPT, mode: Mode, key: Uint8Array | undefined, state: NativeHasherHandle | undefined);
  constructor(options?: KeyOption | typeof ADOPT, mode?: Mode, key?: Uint8Array, state?: NativeHasherHandle) {
    if (addon === undefined) notInitialized();
    if (options === ADOPT) {
      this.#mode = mode!;
      this.#key = key;
      this.#state = state;
      return;
    }
    const chosen = nativeMode(options, 'options');
    this.#mode = chosen.mode;
    this.#key = chosen.key;
  }

  /** Set while updateAsync or updateFromFd runs: input must stay in order. */
  #busy = false;

  #live(): NativeHasherHandle | undefined {
    const state = this.#state;
    if (state === DISPOSED) throw new Error('blake3-kit: this hasher has been disposed');
    if (this.#busy) throw new Error('blake3-kit: this hasher is busy with an async update; await it first');
    return state;
  }

  async #whileBusy<T>(task: Promise<T>): Promise<T> {
    this.#busy = true;
    try {
      return await task;
    } finally {
      this.#busy = false;
    }
  }

  /** The native state with all input so far applied. */
  #current(): NativeHasherHandle {
    const state = (this.#state ??= new addon!.NativeHasher(this.#mode, offHeapKey(this.#key)));
    if (this.#batched > 0) {
      state.update(this.#batch!.subarray(0, this.#batched));
      this.#batched = 0;
    }
    return state;
  }

  get disposed(): boolean {
    return this.#state === DISPOSED;
  }

  /** Adds input; returns this hasher for chaining. */
  update(input: Input): this {
    this.#live();
    if (typeof input === 'string') {
      if (input.length > BATCH / 3) {
        this.#current().update(encoder.encode(input));
        return this;
      }
      const batch = (this.#batch ??= takeBatch());
      // Up to 3 UTF-8 bytes per UTF-16 unit, so after a flush it always fits.
      if (this.#batched + 3 * input.length > BATCH) this.#current();
      this.#batched += encoder.encodeInto(input, batch.subarray(this.#batched)).written;
      return this;
    }
    const bytes = toBytes(input, 'input');
    if (bytes.length >= BATCH) {
      this.#current().update(bytes);
      return this;
    }
    const batch = (this.#batch ??= takeBatch());
    if (this.#batched + bytes.length > BATCH) this.#current();
    batch.set(bytes, this.#batched);
    this.#batched += bytes.length;
    return this;
  }

  /**
   * Hashes `input` off the JS thread: for large pieces of streams. Bytes in a
   * SharedArrayBuffer are read in place; any others are copied first, a
   * piece at a time while the last one hashes, so detaching or shrinking
   * them meanwhile can't reach the hashing threads: the call rejects
   * instead, and so does an abort (with the signal's reason). A failed call
   * leaves the hasher as it was. Bytes changed in place during the call may
   * be hashed before or after the change.
   * @param onProgress internal: bytes of `input` done so far.
   */
  async updateAsync(input: Input, signal?: AbortSignal, onProgress?: (done: number) => void): Promise<void> {
    checkSignal(signal, 'signal');
    const bytes = typeof input === 'string' ? encoder.encode(input) : toBytes(input, 'input');
    this.#live();
    const state = this.#current();
    // One piece is all-or-nothing in the addon; several need a snapshot.
    const before = bytes.length > NATIVE_PIECE ? state.clone() : undefined;
    try {
      await this.#whileBusy(absorb(state, bytes, signal, onProgress));
    } catch (error) {
      if (before && this.#state === state) {
        this.#state = before;
        state.free();
      }
      throw error;
    } finally {
      if (this.#state !== before) before?.free();
    }
  }

  /** Hashes bytes of an open file off the JS thread; resolves to the bytes
   * hashed, fewer than `length` if the file ended first. */
  async updateFromFd(fd: number, offset: number, length: number, mmap: boolean, signal?: AbortSignal): Promise<number> {
    checkSignal(signal, 'signal');
    for (const [name, value] of [['fd', fd], ['offset', offset], ['length', length]] as const) {
      if (typeof value !== 'number') throw new TypeError(`blake3-kit: ${name} must be a number; got ${typeof value}`);
      if (!Number.isSafeInteger(value) || value < 0 || (name === 'fd' && value > 0x7fffffff)) {
        throw new RangeError(`blake3-kit: ${name} must be a non-negative ${name === 'fd' ? 'file descriptor' : 'safe integer'}; got ${value}`);
      }
    }
    if (typeof mmap !== 'boolean') throw new TypeError(`blake3-kit: mmap must be a boolean; got ${typeof mmap}`);
    this.#live();
    const state = this.#current();
    return this.#whileBusy(abortable((inner) => state.updateFromFd(fd, offset, length, mmap, inner), signal));
  }

  #fill(out: Uint8Array): void {
    if (this.#live() === undefined) {
      batchHash(this.#mode, this.#key, this.#batched > 0 ? this.#batch!.subarray(0, this.#batched) : new Uint8Array(0), out);
      return;
    }
    fillFrom(this.#current(), out, 0, 0);
  }

  /** The hash of all input so far (32 bytes, or `options.length`). The hasher
   * is unchanged and can take more input. */
  digest(options?: LengthOption): Uint8Array {
    this.#live();
    checkOptions(options, 'options');
    const out = new Uint8Array(outputLength(options?.length, 'options.length'));
    this.#fill(out);
    return out;
  }

  /** Fills all of `out` with output from position 0; returns `out`. */
  digestInto<T extends Uint8Array>(out: T): T {
    this.#live();
    this.#fill(toBytes(out, 'out'));
    return out;
  }

  /** An extended-output reader over the input so far. */
  xof(): NativeXofReader {
    this.#live();
    return new NativeXofReader(ADOPT, this.#current().clone());
  }

  /** Forgets all input, keeping the key or context. */
  reset(): this {
    this.#live()?.reset();
    this.#batched = 0;
    return this;
  }

  /** An independent copy of this hasher's state. */
  clone(): NativeHasher {
    const state = this.#live();
    const copy = new NativeHasher(ADOPT, this.#mode, this.#key, state?.clone());
    if (this.#batched > 0) copy.update(this.#batch!.subarray(0, this.#batched));
    return copy;
  }

  /** Frees the native state now (an update still running keeps it until it
   * ends); later calls throw. Idempotent. */
  dispose(): void {
    giveBackBatch(this.#batch);
    this.#batch = undefined;
    this.#batched = 0;
    this.#state?.free();
    this.#state = DISPOSED;
  }

  [disposeSymbol](): void {
    this.dispose();
  }
}

/** Extended output at any position below 2^64 - 1, on a native snapshot. */
export class NativeXofReader {
  #state: NativeHasherHandle | typeof DISPOSED;
  #position = 0n;

  /** @internal */
  constructor(adopt: typeof ADOPT, state: NativeHasherHandle) {
    if (adopt !== ADOPT) throw new TypeError('blake3-kit: XofReader comes from Hasher.xof()');
    this.#state = state;
  }

  #live(): NativeHasherHandle {
    const state = this.#state;
    if (state === DISPOSED) throw new Error('blake3-kit: this XOF reader has been disposed');
    return state;
  }

  get disposed(): boolean {
    return this.#state === DISPOSED;
  }

  /** The output byte the next read starts at. */
  get position(): bigint {
    return this.#position;
  }

  set position(position: bigint | number) {
    this.#live();
    this.#position = toPosition(position, 'position');
  }

  /** The next `length` output bytes. */
  read(length: number): Uint8Array {
    this.#live();
    if (length === undefined) throw new TypeError('blake3-kit: length is required');
    return this.readInto(new Uint8Array(outputLength(length, 'length')));
  }

  /** Fills all of `out` with the next output bytes; returns `out`. */
  readInto<T extends Uint8Array>(out: T): T {
    const state = this.#live();
    const bytes = toBytes(out, 'out');
    const start = this.#position;
    const end = checkReadEnd(start, bytes.length);
    fillFrom(state, bytes, Number(start & LOW_32), Number(start >> 32n));
    this.#position = end;
    return out;
  }

  dispose(): void {
    this.#state?.free();
    this.#state = DISPOSED;
  }

  [disposeSymbol](): void {
    this.dispose();
  }
}

/** A native streaming hasher: plain, keyed (`{ key }`) or derive_key (`{ context }`). */
export function createNativeHasher(options?: KeyOption): NativeHasher {
  return new NativeHasher(options);
}
