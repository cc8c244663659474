// hashMany: many inputs in one call, hashed side by side in SIMD lanes by
// the backend in use. Apart from the hasher, so a page that only hashes
// bundles none of it.

import { activeEngine, nativeManyOps, type ManyInputs } from './engine.js';
import { checkIntact, checkOptions, lengthOf, outputLength, plainBytes, rangeOf, toBytes, type HashOptions, type Input } from './input.js';
import { modeOf } from './modes.js';
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

const encoder = new TextEncoder();

/** The inputs, with each one's length when it was checked. */
type CheckedInputs = ManyInputs & { readonly lengths: ArrayLike<number> };

// Each loop over the inputs is a function of its own that returns nothing:
// V8 optimizes a long loop while it runs (OSR), before the code after it
// has feedback, and a result object built there deoptimized it on every
// call of 10^5 inputs (--trace-deopt).
function convertItems(inputs: readonly unknown[], items: Uint8Array[], lengths: Float64Array): void {
  // items.length: an element's getter may change the array's.
  for (let i = 0; i < items.length; i++) {
    const item: unknown = inputs[i];
    // The name is built only where an error may need it.
    const bytes = plainBytes(item) ?? (typeof item === 'string' ? encoder.encode(item) : toBytes(item, `inputs[${i}]`));
    items[i] = bytes;
    lengths[i] = lengthOf(bytes);
  }
}

/** Throws if an input changed length since it was checked: an array's
 * element getters ran after earlier elements were checked. */
function checkAllIntact(items: readonly Uint8Array[], lengths: ArrayLike<number>, indexed: boolean): void {
  for (let i = 0; i < items.length; i++) {
    if (lengthOf(items[i]!) !== lengths[i]) checkIntact(items[i]!, lengths[i]!, indexed ? `inputs[${i}]` : 'inputs');
  }
}

function manyInputs(inputs: unknown, itemLength: unknown): CheckedInputs {
  if (Array.isArray(inputs)) {
    if (itemLength !== undefined) throw new TypeError('blake3-kit: options.itemLength is for one buffer of inputs, not an array of them');
    const items: Uint8Array[] = new Array(inputs.length);
    // A typed array: 7 ns less per input than an Array of numbers.
    const lengths = new Float64Array(inputs.length);
    convertItems(inputs, items, lengths);
    return { items, lengths };
  }
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
  return { data, itemLength, lengths: [dataLength] };
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
  // Each option read once, before the inputs are: a getter that runs later
  // could detach an input already checked.
  const { itemLength, length: lengthOption, into: intoOption, key, context } = options ?? {};
  const batch = manyInputs(inputs, itemLength);
  const length = outputLength(lengthOption, 'options.length');
  const count = 'data' in batch ? lengthOf(batch.data) / batch.itemLength : batch.items.length;
  const size = count * length;
  const into = intoOption === undefined ? undefined : toBytes(intoOption, 'options.into');
  const intoLength = into === undefined ? 0 : lengthOf(into);
  if (into !== undefined && intoLength < size) {
    throw new RangeError(`blake3-kit: options.into must hold ${count} x ${length} = ${size} bytes; it has ${intoLength}`);
  }
  const chosen = modeOf(key === undefined && context === undefined ? undefined : { key, context }, 'options', engine.contextKey);
  // The key copied before any input is hashed: a caller's key may share
  // memory with `into` or the inputs, or be written by another thread.
  const modeKey = chosen.key === undefined ? undefined : ownKey(chosen.key);
  const items = 'data' in batch ? [batch.data] : batch.items;
  checkAllIntact(items, batch.lengths, !('data' in batch));
  // Digests go to memory of our own and reach `into` only once every input
  // is hashed: no check of `into` against the inputs or the key can be
  // trusted (two SharedArrayBuffer objects may share memory), and a digest
  // written over an input not yet hashed would change it.
  const out = new Uint8Array(size);
  if (count > 0) (nativeManyOps() ?? wasmManyOps).hashMany(chosen.mode, modeKey, batch, length, out);
  if (into === undefined) return out;
  // A view of our own: the caller's array may have an own `set`.
  const target = rangeOf(into, 0, size);
  target.set(out);
  return intoLength === size ? into : target;
}

const keyCopy = new Uint8Array(32);

/** `key` (32 bytes, checked) copied into an array of ours, valid until the
 * next hashMany call. */
function ownKey(key: Uint8Array): Uint8Array {
  keyCopy.set(key);
  return keyCopy;
}
