// Hashing inside Node stream pipelines: HashSink (a Writable) and
// HashTransform (a pass-through), on the backend init() chose. hashStream()
// for whole streams is in parallel/api.ts and native/async.ts.

import { Transform, Writable, type TransformCallback } from 'node:stream';
import type { Blake3Hasher } from '../api.js';
import { outputLength, type HashOptions } from '../input.js';
import { createHasher } from '../hasher.js';

type Chunk = Uint8Array | string;
type Callback = (error?: Error | null) => void;

/** The part both stream classes share: one hasher, finished once. */
class StreamDigest {
  readonly #hasher: Blake3Hasher;
  readonly #length: number;
  #digest: Uint8Array | undefined;

  constructor(options: HashOptions | undefined) {
    this.#length = outputLength(options?.length, 'options.length');
    this.#hasher = createHasher(options);
  }

  /** Feeds a chunk; an error is returned for the stream's callback. */
  update(chunk: Chunk): Error | null {
    try {
      this.#hasher.update(chunk);
      return null;
    } catch (error) {
      return error as Error;
    }
  }

  finish(): Uint8Array {
    this.#digest = this.#hasher.digest({ length: this.#length });
    this.#hasher.dispose();
    return this.#digest.slice();
  }

  dispose(): void {
    this.#hasher.dispose();
  }

  /** The digest; throws with `pending` before the stream is done. */
  result(pending: string): Uint8Array {
    if (this.#digest === undefined) throw new Error(`blake3-kit: ${pending}`);
    return this.#digest.slice();
  }
}

/** A Writable that hashes what is written to it. After 'finish', `digest()`
 * returns the hash. */
export class HashSink extends Writable {
  readonly #state: StreamDigest;

  constructor(options?: HashOptions) {
    super();
    this.#state = new StreamDigest(options);
  }

  override _write(chunk: Chunk, _encoding: BufferEncoding, callback: Callback): void {
    callback(this.#state.update(chunk));
  }

  override _final(callback: Callback): void {
    this.#state.finish();
    callback();
  }

  override _destroy(error: Error | null, callback: Callback): void {
    this.#state.dispose();
    callback(error);
  }

  /** The hash of everything written; throws before the stream finished. */
  digest(): Uint8Array {
    return this.#state.result('the stream has not finished');
  }
}

/** A pass-through stream that hashes the bytes flowing through it: it emits
 * 'digest' with the hash when the input ends, and `digest()` returns it. */
export class HashTransform extends Transform {
  readonly #state: StreamDigest;

  constructor(options?: HashOptions) {
    super();
    this.#state = new StreamDigest(options);
  }

  override _transform(chunk: Chunk, _encoding: BufferEncoding, callback: TransformCallback): void {
    const error = this.#state.update(chunk);
    if (error) callback(error);
    else callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.emit('digest', this.#state.finish());
    callback();
  }

  override _destroy(error: Error | null, callback: Callback): void {
    this.#state.dispose();
    callback(error);
  }

  /** The hash of everything that passed; throws before the input ended. */
  digest(): Uint8Array {
    return this.#state.result('the stream has not ended');
  }
}
