// Argument checks and conversions, for every backend: nothing here touches
// wasm memory. The success path comes first and allocates nothing; error
// messages are built only on the throw path.

/** Bytes to hash: any ArrayBufferView (its bytes as laid out in memory), an
 * ArrayBuffer or SharedArrayBuffer, or a string (hashed as UTF-8). */
export type Input = ArrayBufferView | ArrayBufferLike | string;

/** The largest `length` accepted for one output (1 GiB). Longer output is
 * read in pieces with `Hasher.xof()`. */
export const MAX_OUTPUT_LENGTH = 2 ** 30;

/** The longest derive_key context, as UTF-8 (the wasm staging buffer's
 * size; every backend keeps the same limit). */
export const MAX_CONTEXT_BYTES = 64 * 1024;

export interface KeyOption {
  /** 32-byte key: keyed_hash mode. */
  key?: ArrayBufferView | ArrayBufferLike;
  /** derive_key mode with this context string. */
  context?: string;
}

export interface LengthOption {
  /** Output bytes, 0 to MAX_OUTPUT_LENGTH; 32 by default. */
  length?: number;
}

export type HashOptions = KeyOption & LengthOption;

/** Options of the asynchronous APIs (hashFile, hashParallel, hashBlob,
 * hashStream): a mode and output length as for `hash()`, plus cancellation
 * and progress. */
export interface AsyncHashOptions extends HashOptions {
  /** Rejects with the signal's reason, releasing files, streams and workers. */
  signal?: AbortSignal;
  /** Called as bytes are hashed; the last call has bytesDone === total
   * where the total is known. */
  onProgress?: (bytesDone: number, total?: number) => void;
}

const TWO_64_MINUS_1 = 2n ** 64n - 1n;

/** An XOF position: a bigint or safe-integer number in [0, 2^64). */
export function toPosition(position: unknown, name: string): bigint {
  let value: bigint;
  if (typeof position === 'bigint') value = position;
  else if (typeof position === 'number') {
    if (!Number.isSafeInteger(position)) {
      throw new RangeError(`blake3-kit: ${name} must be a non-negative safe integer, or a bigint below 2^64; got ${position}`);
    }
    value = BigInt(position);
  } else {
    throw new TypeError(`blake3-kit: ${name} must be a bigint or number; got ${describe(position)}`);
  }
  if (value < 0n || value > TWO_64_MINUS_1) {
    throw new RangeError(`blake3-kit: ${name} must be in [0, 2^64); got ${value}`);
  }
  return value;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  try {
    // A hostile `constructor` getter must not replace our error with its own.
    const name = (value as object).constructor?.name;
    return typeof name === 'string' && name !== '' ? name : 'object';
  } catch {
    return 'object';
  }
}

// The bytes of a caller's view are read through the built-in getters, saved
// here, never through the view's own properties or methods: a subclass can
// override `length`, `buffer` or `subarray`, or make `Symbol.species` throw
// halfway through an update.
const typedArrayProto = Object.getPrototypeOf(Uint8Array.prototype) as object;
const getter = (proto: object, name: PropertyKey) => Object.getOwnPropertyDescriptor(proto, name)!.get as (this: unknown) => unknown;
const typedArrayTag = getter(typedArrayProto, Symbol.toStringTag);
const typedArrayBuffer = getter(typedArrayProto, 'buffer');
const typedArrayOffset = getter(typedArrayProto, 'byteOffset');
const typedArrayLength = getter(typedArrayProto, 'byteLength');
const dataViewBuffer = getter(DataView.prototype, 'buffer');
const dataViewOffset = getter(DataView.prototype, 'byteOffset');
const dataViewLength = getter(DataView.prototype, 'byteLength');
const arrayBufferLength = getter(ArrayBuffer.prototype, 'byteLength');
const sharedBufferLength = typeof SharedArrayBuffer === 'function' ? getter(SharedArrayBuffer.prototype, 'byteLength') : undefined;
/** Node's Buffer: a Uint8Array subclass of the runtime's own, as safe as
 * Uint8Array itself, and the most common input there. */
const bufferProto = (globalThis as { Buffer?: { prototype: object } }).Buffer?.prototype;

function isBuffer(value: unknown): value is ArrayBufferLike {
  // Brand checks through the built-in getters work for buffers from other
  // realms (where instanceof fails) and can't be fooled by Symbol.toStringTag.
  try {
    arrayBufferLength.call(value);
    return true;
  } catch {}
  if (sharedBufferLength === undefined) return false;
  try {
    sharedBufferLength.call(value);
    return true;
  } catch {
    return false;
  }
}

/** Whether a zero-length view's buffer is detached (a view of a detached
 * buffer reads as empty, which must not hash as the empty input). */
function isDetached(buffer: ArrayBufferLike): boolean {
  try {
    new Uint8Array(buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}

function detachedError(name: string): TypeError {
  return new TypeError(`blake3-kit: ${name} is a view of a detached ArrayBuffer (transferred or freed)`);
}

// The one TextEncoder: every string becomes UTF-8 through it, as new bytes
// (utf8) or straight into a buffer (utf8Into: the wasm staging area, a
// hasher's batch).
const utf8Encoder = new TextEncoder();

/** A string's UTF-8 bytes. */
export function utf8(text: string): Uint8Array<ArrayBuffer> {
  return utf8Encoder.encode(text);
}

/** As much of `text` as fits in `target`, as UTF-8: the UTF-16 units read
 * and the bytes written. (Its own type, not the DOM's
 * TextEncoderEncodeIntoResult, which a Node-only consumer's types lack.) */
export function utf8Into(text: string, target: Uint8Array): { read: number; written: number } {
  return utf8Encoder.encodeInto(text, target);
}

/** An Input's bytes: a string as new UTF-8 bytes, anything else as toBytes
 * takes it, without copying. */
export function inputBytes(input: Input, name: string): Uint8Array {
  return typeof input === 'string' ? utf8Encoder.encode(input) : toBytes(input, name);
}

/** A plain Uint8Array over the caller's bytes, without copying. Plain
 * Uint8Arrays and Node Buffers come back as they are; anything else gets a
 * new plain view. */
export function toBytes(input: unknown, name: string): Uint8Array {
  return plainBytes(input) ?? viewOf(input, name);
}

/** `input` itself if it is a plain, non-empty Uint8Array or Node Buffer:
 * toBytes' fast path, for callers that build `name` only when needed. Such
 * an array may still carry own properties (`length`, `subarray`) that lie:
 * read it through lengthOf and rangeOf only. */
export function plainBytes(input: unknown): Uint8Array | undefined {
  if (input !== null && typeof input === 'object') {
    const proto = Object.getPrototypeOf(input);
    // Element 0 exists iff the array is not empty: unlike `length`, an
    // integer index of a typed array can't be an own property or a getter.
    if ((proto === Uint8Array.prototype || proto === bufferProto) && (input as Uint8Array)[0] !== undefined) {
      return input as Uint8Array;
    }
  }
  return undefined;
}

/** The length of a view from toBytes, through the built-in getter: an own
 * `length` property on the caller's array is never asked. hash() of 64
 * bytes on wasm-simd: ~185 ns, 3-5 ns more than with `.length` (A/B in one
 * process, medians of 31 blocks; an A/A run differs by up to 2-6 ns). */
export function lengthOf(bytes: Uint8Array): number {
  return typedArrayLength.call(bytes) as number;
}

const typedArraySet = (typedArrayProto as { set: (this: Uint8Array, source: Uint8Array, offset: number) => void }).set;

/** Copies `source` into `target` (a view from toBytes) from byte `offset`
 * with the built-in set: a caller's own `set` would be handed our memory (a
 * view of the wasm staging buffer, say). */
export function copyInto(target: Uint8Array, source: Uint8Array, offset = 0): void {
  typedArraySet.call(target, source, offset);
}

/** Bytes [start, end) of a view from toBytes, as a new plain view: never
 * the caller's own `subarray`, nor its `constructor` (which the built-in
 * subarray would ask for a species). */
export function rangeOf(bytes: Uint8Array, start: number, end: number): Uint8Array {
  return new Uint8Array(typedArrayBuffer.call(bytes) as ArrayBufferLike, (typedArrayOffset.call(bytes) as number) + start, end - start);
}

function viewOf(input: unknown, name: string): Uint8Array {
  let buffer: ArrayBufferLike, offset: number, length: number;
  if (typedArrayTag.call(input) !== undefined) {
    buffer = typedArrayBuffer.call(input) as ArrayBufferLike;
    offset = typedArrayOffset.call(input) as number;
    length = typedArrayLength.call(input) as number;
  } else if (ArrayBuffer.isView(input)) {
    buffer = dataViewBuffer.call(input) as ArrayBufferLike;
    offset = dataViewOffset.call(input) as number;
    length = dataViewLength.call(input) as number;
  } else if (isBuffer(input)) {
    if (isDetached(input)) throw detachedError(name);
    return new Uint8Array(input);
  } else {
    const also = typeof input === 'string' && !acceptsStrings(name) ? ' (strings are not accepted here)' : '';
    throw new TypeError(
      `blake3-kit: ${name} must be a ${acceptsStrings(name) ? 'Uint8Array, ArrayBufferView, ArrayBuffer or string' : 'Uint8Array, ArrayBufferView or ArrayBuffer'}; got ${describe(input)}${also}`,
    );
  }
  if (length === 0 && isDetached(buffer)) throw detachedError(name);
  return new Uint8Array(buffer, offset, length);
}

/** Throws if `bytes` (from toBytes) lost bytes since an asynchronous call
 * began: its buffer was detached, transferred or resized smaller. A digest
 * of what is left would name bytes the caller never asked to hash. */
export function checkIntact(bytes: Uint8Array, length: number, name: string): void {
  const now = typedArrayLength.call(bytes) as number;
  if (now !== length) {
    throw new TypeError(`blake3-kit: ${name} was detached or shrunk while it was being hashed (${length} bytes when the call began, ${now} now)`);
  }
}

/** Whether a view's bytes live in a SharedArrayBuffer, which can grow but
 * never shrink or detach: other threads may read it without a copy. */
export function inSharedMemory(bytes: Uint8Array): boolean {
  if (sharedBufferLength === undefined) return false;
  try {
    sharedBufferLength.call(typedArrayBuffer.call(bytes));
    return true;
  } catch {
    return false;
  }
}

/** Inputs to hash take strings; outputs and hex sources don't. */
function acceptsStrings(name: string): boolean {
  return name === 'input' || name === 'chunk' || name.startsWith('inputs[');
}

/** Options must be plain objects: a key passed where options go
 * (`hash(msg, key)`) would otherwise hash unkeyed, with the key's length as
 * the output length. */
function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  // null-prototype objects, and plain objects from any realm.
  return proto === null || proto === Object.prototype || Object.getPrototypeOf(proto) === null;
}

export function outputLength(length: unknown, name: string): number {
  if (length === undefined) return 32;
  if (typeof length !== 'number') {
    throw new TypeError(`blake3-kit: ${name} must be a number; got ${describe(length)}`);
  }
  if (Number.isInteger(length) && length >= 0 && length <= MAX_OUTPUT_LENGTH) return length;
  throw new RangeError(`blake3-kit: ${name} must be an integer from 0 to ${MAX_OUTPUT_LENGTH}; got ${length}`);
}

export function checkOptions(options: unknown, name: string): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null || !isPlainObject(options)) {
    throw new TypeError(
      `blake3-kit: ${name} must be a plain object of options; got ${describe(options)}${
        options !== null && typeof options === 'object' && (ArrayBuffer.isView(options) || isBuffer(options)) ? ' (a key goes in { key })' : ''
      }`,
    );
  }
}

export function checkSignal(signal: unknown, name: string): void {
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError(`blake3-kit: ${name} must be an AbortSignal; got ${describe(signal)}`);
  }
}

export function checkAsyncOptions(options: unknown, name: string): void {
  checkOptions(options, name);
  const { signal, onProgress } = (options ?? {}) as AsyncHashOptions;
  checkSignal(signal, `${name}.signal`);
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new TypeError(`blake3-kit: ${name}.onProgress must be a function`);
  }
}

export function checkKey(key: unknown, name: string): Uint8Array {
  const bytes = toBytes(key, name);
  const length = lengthOf(bytes);
  if (length !== 32) {
    throw new RangeError(`blake3-kit: ${name} must be 32 bytes; got ${length}`);
  }
  return bytes;
}

export function checkContext(context: unknown, name: string): string {
  if (typeof context !== 'string') {
    throw new TypeError(`blake3-kit: ${name} must be a string; got ${describe(context)}`);
  }
  return context;
}
