// Hashing inside Node stream pipelines: HashSink (a Writable) and
// HashTransform (a pass-through). hashStream() for whole streams is in
// parallel/api.ts, shared with browsers.

import { Transform, Writable, type TransformCallback } from 'node:stream';
import { createHasher, type Hasher } from '../hasher.js';
import { outputLength, type HashOptions, type KeyOption } from '../input.js';

type Chunk = Uint8Array | string;

function modeOf(options: KeyOption | undefined): KeyOption | undefined {
  return options?.key !== undefined || options?.context !== undefined ? options : undefined;
}

/** A Writable that hashes what is written to it. After 'finish', `digest()`
 * returns the hash. */
export class HashSink extends Writable {
  readonly #hasher: Hasher;
  readonly #length: number;
  #digest: Uint8Array | undefined;

  constructor(options?: HashOptions) {
    super();
    this.#length = outputLength(options?.length, 'options.length');
    this.#hasher = createHasher(modeOf(options));
  }

  override _write(chunk: Chunk, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    try {
      this.#hasher.update(chunk);
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.#digest = this.#hasher.digest({ length: this.#length });
    this.#hasher.dispose();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#hasher.dispose();
    callback(error);
  }

  /** The hash of everything written; throws before the stream finished. */
  digest(): Uint8Array {
    if (this.#digest === undefined) throw new Error('blake3-kit: the stream has not finished');
    return this.#digest.slice();
  }
}

/** A pass-through stream that hashes the bytes flowing through it: it emits
 * 'digest' with the hash when the input ends, and `digest()` returns it. */
export class HashTransform extends Transform {
  readonly #hasher: Hasher;
  readonly #length: number;
  #digest: Uint8Array | undefined;

  constructor(options?: HashOptions) {
    super();
    this.#length = outputLength(options?.length, 'options.length');
    this.#hasher = createHasher(modeOf(options));
  }

  override _transform(chunk: Chunk, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      this.#hasher.update(chunk);
      callback(null, chunk);
    } catch (error) {
      callback(error as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    this.#digest = this.#hasher.digest({ length: this.#length });
    this.#hasher.dispose();
    this.emit('digest', this.#digest.slice());
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#hasher.dispose();
    callback(error);
  }

  /** The hash of everything that passed; throws before the input ended. */
  digest(): Uint8Array {
    if (this.#digest === undefined) throw new Error('blake3-kit: the stream has not ended');
    return this.#digest.slice();
  }
}
