// A server's response body read in exact byte counts, for verifiers: every
// byte is copied out of the arriving pieces into arrays the caller owns
// (a producer may reuse a piece's memory), pieces are read only as far as
// asked (an endless body or a compression bomb is read at most one piece
// past that), and an abort of the signal ends a pending read at once, even
// where the source never answers it.

import { type BodySource, chunkBytes, type Pull, pullFrom } from '../../stream-source.js';
import { copyOf } from '../bao/nodes.js';

export class BodyReader {
  readonly #pull: Pull;
  readonly #signal: AbortSignal | undefined;
  readonly #aborted: Promise<never> | undefined;
  readonly #onAbort: (() => void) | undefined;
  #piece: Uint8Array = new Uint8Array(0);
  #at = 0;
  #pending = false;
  #released = false;

  constructor(response: BodySource, signal: AbortSignal | undefined) {
    const pull = pullFrom(response);
    if (pull === undefined) throw new TypeError('blake3-kit: the response has no readable body');
    this.#pull = pull;
    this.#signal = signal;
    if (signal !== undefined) {
      let onAbort: () => void = () => {};
      this.#aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
      });
      this.#aborted.catch(() => {}); // observed by the races in #more, or not at all
      this.#onAbort = onAbort;
    }
  }

  /** Fills `into` from the body after passing over `skip` bytes (read and
   * dropped); resolves to the bytes filled, fewer where the body ends first. */
  async fill(into: Uint8Array, skip = 0): Promise<number> {
    let filled = 0;
    while (filled < into.length && (await this.#more())) {
      const passed = Math.min(skip, this.#left());
      skip -= passed;
      this.#at += passed;
      const take = Math.min(into.length - filled, this.#left());
      into.set(this.#piece.subarray(this.#at, this.#at + take), filled);
      filled += take;
      this.#at += take;
    }
    return filled;
  }

  /** Reads and drops `count` bytes; resolves to how many there were. */
  async skip(count: number): Promise<number> {
    let skipped = 0;
    while (skipped < count && (await this.#more())) {
      const take = Math.min(count - skipped, this.#left());
      skipped += take;
      this.#at += take;
    }
    return skipped;
  }

  /** The unread rest of the current piece, or the next piece; undefined at
   * the end. A view of the producer's memory: for a reader that copies what
   * it verifies (baoDecodeStream does). */
  async next(): Promise<Uint8Array | undefined> {
    if (!(await this.#more())) return undefined;
    const piece = this.#piece.subarray(this.#at);
    this.#at = this.#piece.length;
    return piece;
  }

  /** The unread rest of the current piece, or the next piece, in memory of
   * ours: moved there where `transfer` allows it and the piece is a whole,
   * plain ArrayBuffer (its source's buffer is detached: nothing else can
   * reach it), else copied. undefined at the end. */
  async nextOwned(transfer: boolean): Promise<Uint8Array | undefined> {
    if (!(await this.#more())) return undefined;
    const piece = this.#piece;
    const rest = this.#at === 0 ? piece : piece.subarray(this.#at);
    this.#piece = new Uint8Array(0);
    this.#at = 0;
    return (transfer && rest === piece && moved(piece)) || copyOf(rest);
  }

  /** Whether the body ends here (reads one more piece to see). */
  async ended(): Promise<boolean> {
    return !(await this.#more());
  }

  /** Lets the body go, unread. Never waits: a source still answering a read
   * may never let go. */
  release(reason?: unknown): void {
    if (this.#released) return;
    this.#released = true;
    if (this.#onAbort !== undefined) this.#signal!.removeEventListener('abort', this.#onAbort);
    try {
      Promise.resolve(this.#pull.release(reason)).catch(() => {});
    } catch {} // a release that throws has released all it can
  }

  /** Bytes of the current piece not read yet. A source may detach or shrink
   * a piece it gave: that is an error, not an end. */
  #left(): number {
    const left = this.#piece.length - this.#at;
    if (left < 0) throw new TypeError('blake3-kit: a piece of the response body was detached or shrunk while it was read');
    return left;
  }

  /** Whether unread bytes are at hand, reading pieces until some are. */
  async #more(): Promise<boolean> {
    while (this.#left() === 0) {
      this.#signal?.throwIfAborted();
      if (this.#released) throw new TypeError('blake3-kit: the response body was released');
      if (this.#pending) throw new Error('blake3-kit: BodyReader reads one piece at a time');
      this.#pending = true;
      const step = Promise.resolve()
        .then(() => this.#pull.next())
        .finally(() => (this.#pending = false));
      step.catch(() => {}); // a read that loses the race to an abort may fail later
      const { value, done } = this.#aborted === undefined ? await step : await Promise.race([step, this.#aborted]);
      if (done) return false;
      this.#piece = chunkBytes(value);
      this.#at = 0;
    }
    return true;
  }
}

/** `piece`'s memory, moved into a buffer of ours without a copy (its own
 * buffer detached), where it is all of a plain ArrayBuffer; else undefined. */
function moved(piece: Uint8Array): Uint8Array | undefined {
  const buffer = piece.buffer as ArrayBuffer & { resizable?: boolean; transfer?: () => ArrayBuffer };
  if (!(buffer instanceof ArrayBuffer) || buffer.resizable === true || piece.byteOffset !== 0 || piece.byteLength !== buffer.byteLength)
    return undefined;
  try {
    // ArrayBuffer.prototype.transfer where there is one (not in Node 20).
    return new Uint8Array(typeof buffer.transfer === 'function' ? buffer.transfer() : structuredClone(buffer, { transfer: [buffer] }));
  } catch {
    return undefined; // not transferable (a wasm memory's, say)
  }
}
