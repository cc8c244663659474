// Several bao-tree responses back to back on one stream, as iroh-blobs
// answers a request for a hash sequence: per blob, its size (a u64,
// little-endian) and then the encoding of the ranges asked for it, nothing
// between and nothing after (in n0-computer/iroh-blobs at e82cbdcb, the
// provider's handle_get_impl and write_with_progress of its blobs API). A
// reader is passed to one decode after
// another; each reads exactly its own encoding and leaves the rest where it
// is, in the piece it arrived in: the stream is never copied whole.

import { BaoVerifyError } from '../bao/decode.js';
import { type ByteSource, PieceReader } from '../bao/stream.js';

/** iroh-blobs' size header. */
const SIZE_LEN = 8;

/** The size header at `input`'s position, or undefined where the source
 * ends before it; `what` names the response in errors. */
export async function readSizeHeader(input: PieceReader, what: string): Promise<number | undefined> {
  if (await input.atEnd()) return undefined;
  const header = await input.read(SIZE_LEN);
  if (header === undefined) throw new BaoVerifyError(`the response ends inside ${what}'s size header`);
  const view = new DataView(header.buffer);
  const high = view.getUint32(4, true);
  // A size above 2^53 - 1 cannot be a blob a decoder here could walk.
  if (high >= 2 ** 21) throw new BaoVerifyError(`${what}'s size header says ${view.getBigUint64(0, true)} bytes, past 2^53 - 1`);
  return high * 2 ** 32 + view.getUint32(0, true);
}

/** Lets baoTreeDecodeRangesStream take the reader's input for one decode. */
export const claimInput: unique symbol = Symbol('blake3-kit response reader input');

/**
 * A byte source read response by response: pass it to
 * baoTreeDecodeRangesStream in place of a source, once per response, after
 * readSize() where the responses carry iroh's size header. A decode reads
 * its own bytes only and leaves the stream at the next response, and does
 * not look for the source's end: atEnd() does. One decode at a time; a
 * decode that fails or is cancelled releases the source, and the reader
 * refuses further reads (where the next response would start is unknown).
 */
export class BaoTreeResponseReader {
  readonly #input: PieceReader;
  #busy = false;
  #failed: string | undefined;

  constructor(source: ByteSource) {
    this.#input = new PieceReader(source);
  }

  /** The next response's size header (8 bytes, u64 little-endian), or
   * undefined when the source ends before it, as iroh-blobs' provider ends
   * a response early where it lacks a blob. Only the encoding after it
   * vouches for it, as far as the ranges asked reach. */
  async readSize(): Promise<number | undefined> {
    const input = this.#take();
    try {
      return await readSizeHeader(input, 'the next response');
    } catch (error) {
      await this.#fail(error, 'a size header could not be read');
      throw error;
    } finally {
      this.#busy = false;
    }
  }

  /** Whether the source has ended with nothing left unread. */
  async atEnd(): Promise<boolean> {
    const input = this.#take();
    try {
      return await input.atEnd();
    } finally {
      this.#busy = false;
    }
  }

  /** Releases the source; the reader reads no more. */
  async cancel(reason?: unknown): Promise<void> {
    this.#failed ??= 'the reader was cancelled';
    await this.#input.cancel(reason);
  }

  /** The input for one decode, with what to call when it ends: ok when it
   * read its whole encoding, not when it failed or was cancelled. */
  [claimInput](): { input: PieceReader; done: (ok: boolean) => void } {
    const input = this.#take();
    return {
      input,
      done: (ok) => {
        this.#busy = false;
        this.#failed ??= ok ? undefined : 'a decode on this reader failed or was cancelled';
      },
    };
  }

  #take(): PieceReader {
    if (this.#failed !== undefined) throw new TypeError(`blake3-kit: the response reader reads no more: ${this.#failed}`);
    if (this.#busy) throw new TypeError('blake3-kit: the response reader is in use: one read or decode at a time, each to its end');
    this.#busy = true;
    return this.#input;
  }

  async #fail(reason: unknown, why: string): Promise<void> {
    this.#failed ??= why;
    await this.#input.cancel(reason).catch(() => {});
  }
}
