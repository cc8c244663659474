// The one Hasher and XofReader, over the state of whichever backend init()
// chose (engine.ts): a wasm slot or a native handle.

import { activeEngine, BATCH, type HasherEngine } from './engine.js';
import { checkOptions, lengthOf, outputLength, toBytes, toPosition, type Input, type KeyOption, type LengthOption, utf8, utf8Into } from './input.js';
import { ownedModeOf, type Mode } from './modes.js';
import { readState, writeState } from './state.js';

/** Stands in for `Symbol.dispose` in the types where the consumer's lib has
 * none (no `esnext.disposable`, no @types/node): the shipped .d.ts must
 * compile there, and `typeof Symbol.dispose` would not. */
declare const noDisposeSymbol: unique symbol;
type DisposeSymbol = SymbolConstructor extends { readonly dispose: infer S extends symbol } ? S : typeof noDisposeSymbol;

/** `Symbol.dispose` where the engine has it, else the well-known fallback
 * TypeScript's `using` lowering looks for. */
export const disposeSymbol: DisposeSymbol = (Symbol as { dispose?: DisposeSymbol }).dispose ?? (Symbol.for('Symbol.dispose') as DisposeSymbol);

/** Batches of disposed hashers, reused: allocating a fresh 16 KiB batch took
 * ~1.3 us of the 1.9 us that create, a 64-byte update, digest and dispose
 * cost (Node 20, 2-core EPYC, median of 7 x 20000). */
const spareBatches: Uint8Array[] = [];
const MAX_SPARE_BATCHES = 16;
const LOW_32 = 0xffffffffn;
const LOW_64 = 0xffffffffffffffffn;
/**
 * What a hasher assumes it can still take until it asks its backend: a new
 * hasher has 2^64 - 1 bytes of room, more than a number counts exactly. A
 * hasher keeps a lower bound of its room and asks only when an update would
 * pass it, so the check costs a compare and a subtraction per update; only
 * a hasher loaded from a state near BLAKE3's limit ever asks.
 */
const ROOM_UNKNOWN = Number.MAX_SAFE_INTEGER;
/** Module-internal: the internal constructor's first argument (NativeHasher
 * uses it too); not exported by the package. */
export const ADOPT = Symbol('adopt state');

/** Module-internal access to a hasher's backend state, for the native
 * asynchronous paths (native/hasher.ts); not part of the public API. */
export const STATE = Symbol('blake3-kit hasher state');
/** Module-internal: marks a hasher busy while an asynchronous update runs. */
export const BUSY = Symbol('blake3-kit hasher busy');

function unsupported(method: string): never {
  throw new Error(`blake3-kit: ${method} needs the native backend (the addon, in Node); this hasher's backend is wasm, so use update()`);
}

function disposedError(kind: string): never {
  throw new Error(`blake3-kit: this ${kind} has been disposed`);
}

/** Incremental BLAKE3. Create with `createHasher()` or `new Hasher()`. */
export class Hasher {
  readonly #engine: HasherEngine;
  readonly #mode: Mode;
  /** The key, or derive_key's context key; undefined in hash mode. */
  readonly #key: Uint8Array | undefined;
  /** Updates shorter than this gather in the batch (the engine's choice). */
  readonly #small: number;
  /** The backend state, made once input outgrows the batch. */
  #state: unknown;
  #hasState = false;
  #disposed = false;
  #busy = false;
  #batch: Uint8Array | undefined;
  #batched = 0;
  /** At most the input bytes this hasher can still take (ROOM_UNKNOWN). */
  #room = ROOM_UNKNOWN;

  constructor(options?: KeyOption);
  /** @internal */
  constructor(adopt: typeof ADOPT, engine: HasherEngine, mode: Mode, key: Uint8Array | undefined);
  constructor(options?: KeyOption | typeof ADOPT, engine?: HasherEngine, mode?: Mode, key?: Uint8Array) {
    if (options === ADOPT) {
      this.#engine = engine!;
      this.#mode = mode!;
      this.#key = key;
    } else {
      this.#engine = activeEngine();
      const { mode, key } = ownedModeOf(options, 'options', this.#engine.contextKey);
      this.#mode = mode;
      this.#key = key;
    }
    this.#small = this.#engine.smallUpdate;
  }

  #live(): void {
    if (this.#disposed) disposedError('hasher');
    if (this.#busy) throw new Error('blake3-kit: this hasher is busy with an async update; await it first');
  }

  /** The backend state with all input so far applied, made on first need. */
  #current(): unknown {
    if (!this.#hasState) {
      this.#state = this.#engine.create(this.#mode, this.#key);
      this.#hasState = true;
      this.#engine.track(this, this.#state);
    }
    if (this.#batched > 0) {
      this.#engine.update(this.#state, this.#batch!.subarray(0, this.#batched));
      this.#batched = 0;
    }
    return this.#state;
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  /** Throws, changing nothing, if `length` more bytes (of argument `name`)
   * would take the input past 2^64 - 1 bytes; else refreshes #room. */
  #checkRoom(length: number, name: string): void {
    const room = this.#engine.room(this.#current());
    if (length > room) {
      throw new RangeError(
        `blake3-kit: ${name} of ${length} bytes would take this hasher's input past 2^64 - 1 bytes, BLAKE3's limit; ${room} bytes are left`,
      );
    }
    this.#room = room;
  }

  /** Adds input; returns this hasher for chaining. */
  update(input: Input): this {
    this.#live();
    if (typeof input === 'string') {
      // Up to 3 UTF-8 bytes per UTF-16 unit: the room is counted by that.
      if (3 * input.length > this.#room) return this.update(utf8(input));
      this.#room -= 3 * input.length;
      if (3 * input.length < this.#small) {
        const batch = (this.#batch ??= spareBatches.pop() ?? new Uint8Array(BATCH));
        if (this.#batched + 3 * input.length > BATCH) this.#current();
        this.#batched += utf8Into(input, batch.subarray(this.#batched)).written;
        return this;
      }
      this.#engine.updateString(this.#current(), input);
      return this;
    }
    const bytes = toBytes(input, 'input');
    const length = lengthOf(bytes);
    if (length > this.#room) this.#checkRoom(length, 'input');
    this.#room -= length;
    if (length < this.#small) {
      const batch = (this.#batch ??= spareBatches.pop() ?? new Uint8Array(BATCH));
      if (this.#batched + length > BATCH) this.#current();
      batch.set(bytes, this.#batched);
      this.#batched += length;
      return this;
    }
    this.#engine.update(this.#current(), bytes);
    return this;
  }

  /** Output from position 0 into all of `out`. */
  #fill(out: Uint8Array): void {
    if (!this.#hasState) {
      this.#engine.hashInto(this.#mode, this.#key, this.#batch === undefined ? EMPTY : this.#batch.subarray(0, this.#batched), out);
      return;
    }
    this.#engine.fill(this.#current(), out, 0, 0, 0);
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

  /** An extended-output reader over the input so far. Later updates to this
   * hasher don't affect it. */
  xof(): XofReader {
    this.#live();
    const engine = this.#engine;
    return new XofReader(ADOPT, engine, engine.clone(this.#current()));
  }

  /** Forgets all input, keeping the key or context. */
  reset(): this {
    this.#live();
    if (this.#hasState) this.#engine.reset(this.#state);
    this.#batched = 0;
    this.#room = ROOM_UNKNOWN;
    return this;
  }

  /** An independent copy of this hasher's state. */
  clone(): Hasher {
    this.#live();
    const copy = adoptedHasher(this.#engine, this.#mode, this.#key);
    if (this.#hasState) copy.#adopt(this.#engine.clone(this.#current()));
    else if (this.#batched > 0) copy.update(this.#batch!.subarray(0, this.#batched));
    copy.#room = this.#room;
    return copy;
  }

  /** This hasher's state as bytes (a fresh copy; the hasher is unchanged),
   * to finish later, in another process or on another backend with `load`.
   * They hold a check value of the key or context, never the key itself;
   * what else they reveal: the README's "Resumable" section. A hasher that
   * holds 2^64 - 1 bytes, BLAKE3's limit, can take no more input and has
   * no saved state (RangeError). */
  save(): Uint8Array {
    this.#live();
    const engine = this.#engine;
    const state = this.#current();
    if (engine.room(state) === 0) {
      throw new RangeError(
        'blake3-kit: this hasher holds 2^64 - 1 bytes, all BLAKE3 takes; a saved state is for more input, so it has none: take the digest instead',
      );
    }
    return writeState(engine, this.#mode, this.#key, engine.exportState(state));
  }

  /** Replaces this hasher's state with one `save` returned, from a hasher of
   * the same mode and key or context (`createHasher({ key }).load(saved)`);
   * returns this hasher. On any error, thrown at once, the hasher is
   * unchanged. */
  load(state: Uint8Array): this {
    this.#live();
    const engine = this.#engine;
    const body = readState(engine, this.#mode, this.#key, state);
    const loaded = engine.importState(this.#mode, this.#key, body);
    if (this.#hasState) {
      engine.untrack(this);
      engine.free(this.#state);
    }
    this.#batched = 0;
    this.#adopt(loaded);
    this.#room = engine.room(loaded);
    return this;
  }

  #adopt(state: unknown): void {
    this.#state = state;
    this.#hasState = true;
    this.#engine.track(this, state);
  }

  /** Frees the backend state now (an async update still running keeps it
   * until it ends); later calls throw. Idempotent. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    if (this.#batch !== undefined && spareBatches.length < MAX_SPARE_BATCHES) spareBatches.push(this.#batch);
    this.#batch = undefined;
    this.#batched = 0;
    if (this.#hasState) {
      this.#engine.untrack(this);
      this.#engine.free(this.#state);
      this.#hasState = false;
      this.#state = undefined;
    }
  }

  [disposeSymbol](): void {
    this.dispose();
  }

  /**
   * Hashes `input` off the JS thread: for large pieces of streams. Needs a
   * backend that can (the native addon, in Node); elsewhere it rejects,
   * saying so (see `supports`). Bytes in a SharedArrayBuffer are read in
   * place; any others are copied first, a piece at a time, so detaching or
   * shrinking them meanwhile rejects the call instead of reaching the
   * hashing threads, and so does an abort (with the signal's reason). A
   * failed call leaves the hasher as it was; until the call settles, other
   * calls on this hasher throw (it is busy).
   */
  async updateAsync(input: Input, signal?: AbortSignal, onProgress?: (done: number) => void): Promise<void> {
    const run = this.#engine.updateAsync ?? unsupported('updateAsync');
    const state = this[STATE]();
    // At most this many bytes (strings: 3 UTF-8 bytes per unit); the engine
    // checks the type, and its backend the room again as it reads.
    const most = typeof input === 'string' ? 3 * input.length : lengthOf(toBytes(input, 'input'));
    if (most > this.#room) this.#checkRoom(most, 'input');
    let before: unknown;
    this.#busy = true;
    try {
      await run(state, input, signal, onProgress, (state) => {
        before = state;
      });
      this.#room -= most;
    } finally {
      this[BUSY](false, before);
    }
  }

  /** Hashes `length` bytes of the open file `fd` from `offset` off the JS
   * thread (mapped into memory with `mmap`), where the backend can (see
   * `updateAsync`); resolves to the bytes hashed, fewer than `length` if
   * the file ended first. */
  async updateFromFd(fd: number, offset: number, length: number, mmap: boolean, signal?: AbortSignal): Promise<number> {
    const run = this.#engine.updateFromFd ?? unsupported('updateFromFd');
    const state = this[STATE]();
    // The whole range, however short the file (the engine checks types).
    if (typeof length === 'number' && length > this.#room) this.#checkRoom(length, 'length');
    this.#busy = true;
    try {
      const hashed = await run(state, fd, offset, length, mmap, signal);
      this.#room -= hashed;
      return hashed;
    } finally {
      this[BUSY](false);
    }
  }

  /** Whether this hasher's backend has `updateAsync` and `updateFromFd`
   * (the native addon's threads). */
  supports(capability: 'updateAsync' | 'updateFromFd'): boolean {
    return this.#engine[capability] !== undefined;
  }

  /** @internal The backend state with all input applied. */
  [STATE](): unknown {
    this.#live();
    return this.#current();
  }

  /** @internal */
  [BUSY](busy: boolean, state?: unknown): void {
    this.#busy = busy;
    if (this.#disposed) {
      if (state !== undefined) this.#engine.free(state);
      return;
    }
    // A failed multi-step update hands back the state it started from.
    if (state !== undefined && state !== this.#state) {
      this.#engine.untrack(this);
      this.#engine.free(this.#state);
      this.#adopt(state);
    }
  }
}

const EMPTY = new Uint8Array(0);

/** A Hasher over `engine` in `mode`, made outside the class body: a
 * reference to the class from inside it makes esbuild rename the class
 * (`class _Hasher`), and Hasher.name with it. */
function adoptedHasher(engine: HasherEngine, mode: Mode, key: Uint8Array | undefined): Hasher {
  return new Hasher(ADOPT, engine, mode, key);
}

/** Reads BLAKE3 extended output from any position below 2^64, like the
 * official crate's `OutputReader`, and as that reader's block counter does,
 * on past 2^64 - 1 bytes (b3sum prints that output for --seek there). */
export class XofReader {
  readonly #engine: HasherEngine;
  #state: unknown;
  #disposed = false;
  #position = 0n;

  /** @internal */
  constructor(adopt: typeof ADOPT, engine: HasherEngine, state: unknown) {
    if (adopt !== ADOPT) throw new TypeError('blake3-kit: XofReader comes from Hasher.xof()');
    this.#engine = engine;
    this.#state = state;
    engine.track(this, state);
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  /** The output byte the next read starts at. */
  get position(): bigint {
    return this.#position;
  }

  set position(position: bigint | number) {
    if (this.#disposed) disposedError('XOF reader');
    this.#position = toPosition(position, 'position');
  }

  /** The next `length` output bytes. */
  read(length: number): Uint8Array {
    if (this.#disposed) disposedError('XOF reader');
    if (length === undefined) throw new TypeError('blake3-kit: length is required');
    return this.readInto(new Uint8Array(outputLength(length, 'length')));
  }

  /** Fills all of `out` with the next output bytes; returns `out`. */
  readInto<T extends Uint8Array>(out: T): T {
    if (this.#disposed) disposedError('XOF reader');
    const bytes = toBytes(out, 'out');
    const start = this.#position;
    // A u64 block counter, as upstream's (it would take 2^40 reads of the
    // longest output to run past it).
    const counter = (start >> 6n) & LOW_64;
    this.#engine.fill(this.#state, bytes, Number(counter & LOW_32), Number(counter >> 32n), Number(start & 63n));
    this.#position = start + BigInt(lengthOf(bytes));
    return out;
  }

  /** Frees the backend state now; later calls throw. Idempotent. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#engine.untrack(this);
    this.#engine.free(this.#state);
    this.#state = undefined;
  }

  [disposeSymbol](): void {
    this.dispose();
  }
}

/** A streaming hasher: plain, keyed (`{ key }`) or derive_key (`{ context }`). */
export function createHasher(options?: KeyOption): Hasher {
  return new Hasher(options);
}
