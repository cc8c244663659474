// hashMany: many inputs in one call, hashed side by side in SIMD lanes by
// the backend in use. Apart from the hasher, so a page that only hashes
// bundles none of it.

import { activeEngine, nativeManyOps, type ManyOps } from './engine.js';
import {
  checkIntact,
  checkOptions,
  copyInto,
  lengthOf,
  outputLength,
  plainBytes,
  rangeOf,
  toBytes,
  type HashOptions,
  type Input,
  utf8,
} from './input.js';
import { modeOf, type Mode } from './modes.js';
import { wasmManyOps } from './wasm/many.js';
import { requireTreeExports } from './wasm/core.js';

export interface HashManyOptions extends HashOptions {
  /** With one buffer of inputs: each input's length in bytes (the buffer
   * holds a whole number of them). */
  itemLength?: number;
  /** Where the digests go (at least inputs x length bytes) instead of a new
   * array. Nothing is written if the call fails. */
  into?: ArrayBufferView | ArrayBufferLike;
}

// An array of inputs is read one element at a time, and each element is
// checked and copied into a batch of ours (or hashed, if long) before the
// next is read: the next element's getter (or a Proxy's trap) could shrink,
// detach or rewrite an earlier element's buffer, and a view kept until the
// end would hash bytes nobody gave (zeros after a shrink and a regrow, new
// bytes after a rewrite). The backends hash the batch: the addon takes it as
// it is (it gathered the inputs into a buffer of its own before, so that is
// still one copy); wasm copies it into the staging buffer with one set() per
// batch, a second copy, from cache. Copying straight into the staging buffer
// would save it, but a getter may hash in between and overwrite it.
//
// hashMany(array) time against 93a5931 (one view per input, checked again
// at the end), Node 20, 2-core AMD EPYC, each build in 7 alternating
// processes (11 for native's 1 KiB), medians of 15 samples each:
//
//                      wasm-simd   native   auto (native + wasm)
//   10^4 x 4 KiB          0.96      0.95     0.96
//   10^4 x 1 KiB          1.07      1.07     0.93
//   10^5 x 64 B           0.85      0.71     0.81
//
// Native's 1 KiB runs spread by +-15% between processes either way. Tried
// on wasm: one contiguous copy of the whole call (1 KiB: 1.20x the time, its
// copy into the staging buffer misses the cache), batches of 64 KiB or of
// exactly one staging buffer's fill (1.04-1.07x, as with 32 KiB).

/** Separate inputs are copied together up to `bytes` bytes and `count`
 * inputs per backend call; inputs of `alone` bytes or more are hashed where
 * they are, as soon as they are read, without a copy. The addon's batches:
 * enough for its threads (from 1 MiB), bounded memory; alone from 64 KiB,
 * where a napi call of its own costs less than the copy. Wasm's: half the
 * staging buffer, so that one hash_many call mostly takes a whole batch
 * with its ends and digests; alone from 16 KiB, where the lanes stop taking
 * inputs side by side (crate/wasm/src/many.rs). */
const NATIVE_BATCH = { bytes: 4 * 1024 * 1024, count: 64 * 1024, alone: 64 * 1024 };
const WASM_BATCH = { bytes: 32 * 1024, count: 1024, alone: 16 * 1024 };
/** A batch's first buffers (FIRST_DATA at least any `alone`, so an input
 * always fits an empty batch); they double as calls need, up to the limits. */
const FIRST_DATA = 64 * 1024;
const FIRST_ENDS = 1024;

/** One hashMany call over an array: its inputs copied so far, waiting to be
 * hashed (the batch), and where the digests go. */
interface Run {
  readonly ops: ManyOps;
  readonly limit: { readonly bytes: number; readonly count: number; readonly alone: number };
  readonly hashInto: (mode: Mode, key: Uint8Array | undefined, bytes: Uint8Array, out: Uint8Array) => void;
  readonly mode: Mode;
  readonly key: Uint8Array | undefined;
  readonly length: number;
  readonly out: Uint8Array;
  data: Uint8Array;
  ends: Uint32Array;
  /** The bytes and inputs the batch may hold: its buffers' sizes, within
   * the limits. */
  room: number;
  slots: number;
  /** The index of the batch's first input. */
  first: number;
  /** Inputs in the batch, and their bytes. */
  count: number;
  bytes: number;
}

/** The batch buffers of the last call, kept for the next. A call made from
 * an input's getter while another is reading finds none and makes its own. */
let spare: { data: Uint8Array; ends: Uint32Array } | undefined;

/** Hashes the batch into its digests' place in `out`. */
function flush(run: Run): void {
  if (run.count === 0) return;
  const { length, first, count } = run;
  run.ops.hashMany(
    run.mode,
    run.key,
    { data: run.data.subarray(0, run.bytes), ends: run.ends.subarray(0, count) },
    length,
    run.out.subarray(first * length, (first + count) * length),
  );
  run.first = first + count;
  run.count = 0;
  run.bytes = 0;
}

/** Makes room in the batch for one more input of `length` bytes (less
 * than `limit.alone`, so it fits an empty batch): larger buffers while the
 * batch may grow, else a flush. */
function makeRoom(run: Run, length: number): void {
  const { limit } = run;
  if (run.count === run.slots) {
    if (run.slots >= limit.count) {
      flush(run);
      return;
    }
    const ends = new Uint32Array(Math.min(run.ends.length * 2, limit.count));
    ends.set(run.ends.subarray(0, run.count));
    run.ends = ends;
    run.slots = ends.length;
  }
  if (run.bytes + length > run.room) {
    if (run.room >= limit.bytes) {
      flush(run);
      return;
    }
    let size = run.data.length * 2;
    while (size < run.bytes + length) size *= 2;
    const data = new Uint8Array(Math.min(size, limit.bytes));
    data.set(run.data.subarray(0, run.bytes));
    run.data = data;
    run.room = data.length;
  }
}

// The loop is a function of its own that returns nothing: V8 optimizes a
// long loop while it runs (OSR), before the code after it has feedback, and
// a result object built there deoptimized it on every call of 10^5 inputs
// (--trace-deopt).
function readInputs(inputs: readonly unknown[], count: number, run: Run): void {
  for (let i = 0; i < count; i++) {
    // Each element read once; the name built only where an error needs it.
    const item: unknown = inputs[i];
    const bytes = plainBytes(item) ?? (typeof item === 'string' ? utf8(item) : toBytes(item, `inputs[${i}]`));
    const length = lengthOf(bytes);
    if (length >= run.limit.alone) {
      // Hashed now, before the next getter runs; the batch first, so each
      // batch's digests stay one run in `out`.
      flush(run);
      run.hashInto(run.mode, run.key, bytes, run.out.subarray(i * run.length, (i + 1) * run.length));
      run.first = i + 1;
      continue;
    }
    if (run.bytes + length > run.room || run.count === run.slots) makeRoom(run, length);
    copyInto(run.data, bytes, run.bytes);
    run.bytes += length;
    run.ends[run.count++] = run.bytes;
  }
}

/** The digests of an array of inputs, into `out` (count x length bytes). */
function hashArray(inputs: readonly unknown[], count: number, mode: Mode, key: Uint8Array | undefined, length: number, out: Uint8Array): void {
  const buffers = spare ?? { data: new Uint8Array(FIRST_DATA), ends: new Uint32Array(FIRST_ENDS) };
  spare = undefined;
  const native = nativeManyOps();
  const limit = native === undefined ? WASM_BATCH : NATIVE_BATCH;
  const run: Run = {
    ops: native ?? wasmManyOps,
    limit,
    hashInto: activeEngine().hashInto,
    mode,
    key,
    length,
    out,
    data: buffers.data,
    ends: buffers.ends,
    room: Math.min(buffers.data.length, limit.bytes),
    slots: Math.min(buffers.ends.length, limit.count),
    first: 0,
    count: 0,
    bytes: 0,
  };
  readInputs(inputs, count, run);
  flush(run);
  // Kept only after a call that did not throw: a call from a getter may
  // have kept its own meanwhile, and one is enough.
  spare = { data: run.data, ends: run.ends };
}

/** One buffer of `itemLength`-byte inputs, checked. */
function checkedData(inputs: unknown, itemLength: unknown): { data: Uint8Array; itemLength: number } {
  const data = toBytes(inputs, 'inputs');
  const dataLength = lengthOf(data);
  if (itemLength === undefined) {
    throw new TypeError('blake3-kit: inputs must be an array of inputs, or one buffer with options.itemLength');
  }
  if (typeof itemLength !== 'number') throw new TypeError(`blake3-kit: options.itemLength must be a number; got ${typeof itemLength}`);
  if (!Number.isInteger(itemLength) || itemLength < 1 || dataLength % itemLength !== 0) {
    throw new RangeError(
      `blake3-kit: options.itemLength must be a positive integer that divides the ${dataLength} bytes of inputs; got ${itemLength}`,
    );
  }
  return { data, itemLength };
}

/**
 * BLAKE3 of each of many inputs, in one call: their digests one after
 * another (`length` bytes each, 32 by default) in one array. `inputs` is an
 * array of inputs, or one buffer of `options.itemLength`-byte inputs (4 KiB
 * blocks, say). `options.key` and `options.context` choose the mode as in
 * `hash()`. Inputs of one length are hashed side by side in SIMD lanes.
 */
export function hashMany(inputs: readonly Input[] | ArrayBufferView | ArrayBufferLike, options?: HashManyOptions): Uint8Array {
  const engine = activeEngine();
  if (nativeManyOps() === undefined) requireTreeExports('hashMany');
  checkOptions(options, 'options');
  // Each option read once, before the inputs are, and checked before an
  // input's getter can run.
  const { itemLength, length: lengthOption, into: intoOption, key, context } = options ?? {};
  const isArray = Array.isArray(inputs);
  if (isArray && itemLength !== undefined) throw new TypeError('blake3-kit: options.itemLength is for one buffer of inputs, not an array of them');
  const batch = isArray ? undefined : checkedData(inputs, itemLength);
  const length = outputLength(lengthOption, 'options.length');
  // The array's length read once.
  const count = batch === undefined ? (inputs as readonly unknown[]).length : lengthOf(batch.data) / batch.itemLength;
  const size = count * length;
  const into = intoOption === undefined ? undefined : toBytes(intoOption, 'options.into');
  const intoLength = into === undefined ? 0 : lengthOf(into);
  if (into !== undefined && intoLength < size) {
    throw new RangeError(`blake3-kit: options.into must hold ${count} x ${length} = ${size} bytes; it has ${intoLength}`);
  }
  const chosen = modeOf(key === undefined && context === undefined ? undefined : { key, context }, 'options', engine.contextKey);
  // The key copied before any input is read or hashed: a caller's key may
  // share memory with `into` or the inputs, be written by another thread,
  // or be changed by an input's getter.
  const modeKey = chosen.key === undefined ? undefined : ownKey(chosen.key);
  // Digests go to memory of our own and reach `into` only once every input
  // is hashed: no check of `into` against the inputs or the key can be
  // trusted (two SharedArrayBuffer objects may share memory), and a digest
  // written over an input not yet hashed would change it.
  const out = new Uint8Array(size);
  if (batch !== undefined) {
    if (count > 0) (nativeManyOps() ?? wasmManyOps).hashMany(chosen.mode, modeKey, batch, length, out);
  } else {
    hashArray(inputs as readonly unknown[], count, chosen.mode, modeKey, length, out);
  }
  if (into === undefined) return out;
  // An input's getter may have detached or shrunk `into` since it was checked.
  if (lengthOf(into) < size) checkIntact(into, intoLength, 'options.into');
  // A view of our own: the caller's array may have an own `set`.
  const target = rangeOf(into, 0, size);
  target.set(out);
  return lengthOf(into) === size ? into : target;
}

/** `key` (32 bytes, checked) copied into an array of ours: one per call,
 * since an input's getter may call hashMany again before this call ends. */
function ownKey(key: Uint8Array): Uint8Array {
  const copy = new Uint8Array(32);
  copyInto(copy, key);
  return copy;
}
