// blake3-wasm's hash reader: extended output from a `position` (a bigint
// the user may set to seek). BaseHashReader is 2.x's exported base class,
// over any IInternalReader, which Node's and the browser's readers extend
// and users may subclass (they give alloc()); ours read through an
// IInternalReader over our XofReader. read/readInto as 2.x (a read past
// 2^64 - 1 bytes throws a RangeError), view and iteration as 3.x.

import type { XofReader } from '../hasher.js';
import { outputLength } from '../input.js';
import { maxHashBytes, type IDisposable } from './using.js';

export interface IHashReader<T> extends IDisposable, Iterable<Readonly<Uint8Array>> {
  /** The output byte the next read starts at; set it to seek. */
  position: bigint;
  /** Fills all of `target`; returns how many bytes that is. */
  readInto(target: Uint8Array): number;
  /** The next `bytes` output bytes. */
  read(bytes: number): T;
  /** As read(); 3.x returned a view into wasm memory, this a copy. */
  view(bytes: number): Readonly<Uint8Array>;
}

/** What a BaseHashReader reads from (2.x's name and shape): fill() writes
 * the output from the current position and moves it on; set_position()
 * seeks (BaseHashReader calls it on every change of `position`). */
export interface IInternalReader {
  free?(): void;
  fill(target: Uint8Array): void;
  set_position(position: bigint): void;
}

/** Output bytes per step of iteration, as 3.x. */
const ITERATION_STEP = 1024;

/** 2.x's base reader: position, readInto, read and dispose over an
 * IInternalReader; a subclass says how to allocate its output type. */
export abstract class BaseHashReader<T extends Uint8Array> implements IHashReader<T> {
  #reader: IInternalReader | undefined;
  #position = 0n;

  constructor(reader: IInternalReader) {
    this.#reader = reader;
  }

  get position(): bigint {
    return this.#position;
  }

  set position(value: bigint) {
    if (typeof value !== 'bigint') throw new TypeError(`blake3-kit/compat: reader.position must be a bigint; got a ${typeof value}`);
    if (value < 0n || value > maxHashBytes) throw new RangeError(`blake3-kit/compat: reader.position must be in [0, 2^64 - 1]; got ${value}`);
    this.#position = value;
    this.#reader?.set_position(value);
  }

  readInto(target: Uint8Array): number {
    const reader = this.#reader;
    if (reader === undefined) throw new Error('blake3-kit/compat: cannot read from a hash reader after dispose()');
    if (!(target instanceof Uint8Array)) throw new TypeError('blake3-kit/compat: readInto(target) needs a Uint8Array');
    const end = this.#position + BigInt(target.length);
    if (end > maxHashBytes) throw new RangeError(`blake3-kit/compat: cannot read past ${maxHashBytes} bytes of BLAKE3 output`);
    reader.fill(target);
    this.position = end;
    return target.length;
  }

  read(bytes: number): T {
    const out = this.alloc(outputLength(bytes, 'bytes'));
    this.readInto(out);
    return out;
  }

  view(bytes: number): Readonly<Uint8Array> {
    return this.read(bytes);
  }

  *[Symbol.iterator](): Iterator<Readonly<Uint8Array>> {
    while (this.#position < maxHashBytes) {
      const left = maxHashBytes - this.#position;
      yield this.read(left < BigInt(ITERATION_STEP) ? Number(left) : ITERATION_STEP);
    }
  }

  /** Frees the reader's state; later reads throw. Idempotent. */
  dispose(): void {
    this.#reader?.free?.();
    this.#reader = undefined;
  }

  /** A new output array of `bytes` bytes (Buffer, Hash, ...). */
  protected abstract alloc(bytes: number): T;
}

/** Our XofReader as an IInternalReader. */
class OwnReader implements IInternalReader {
  constructor(readonly xof: XofReader) {}

  fill(target: Uint8Array): void {
    this.xof.readInto(target);
  }

  set_position(position: bigint): void {
    this.xof.position = position;
  }

  free(): void {
    this.xof.dispose();
  }
}

export const ownReader = (xof: XofReader): IInternalReader => new OwnReader(xof);
