// Where the verifier reads content, and how what it verified is passed on.
// Content arrives as pieces of memory of our own: a response body's pieces
// are moved into ours (the source's ArrayBuffer transferred, so nothing
// else can reach it) where that is safe, else copied. A verified unit (a
// group, or a subtree of up to BATCH bytes) spans pieces; a piece is passed
// on as it is, without another copy, once every byte of its memory is
// verified content, and copied where its memory also holds bytes that are
// not (past the range, or before it in a 200).
//
// 256 MiB in 64 KiB pieces, copy and hash, Chromium 156 (scratch test,
// medians of 5, load average ~4): into fresh arrays 854-941 MiB/s, into one
// reused array 1,760-1,799 (fresh memory is what costs), pieces transferred
// and hashed where they lie 1,388; Firefox 153 889-946 / 1,521-1,585 / 1,284.

import { BaoVerifyError } from '../bao/decode.js';
import { copyOf } from '../bao/nodes.js';
import type { BodyReader } from './body.js';

/** A leaf-aligned range [from, to) to verify, and the part of it [start,
 * end) to pass on. */
export interface Span {
  from: number;
  to: number;
  start: number;
  end: number;
}

/** Content for a verifier, read in order from the span's first byte. */
export interface ContentSource {
  /** Views of memory of ours holding the next `count` bytes, from content byte `offset`. */
  take(count: number, offset: number): Promise<Uint8Array[]>;
  /** All read up to content byte `upTo` is verified: what can be passed on
   * now, in order, without exposing a byte that is not. */
  verified(upTo: number): Uint8Array[];
  /** The walk ends (or failed) at `upTo`: the rest verified before it,
   * copied where a piece's memory holds bytes past it. */
  finish(upTo: number): Uint8Array[];
}

/** The part of `bytes` (content from `at`) in [span.start, span.end), or undefined. */
function cut(bytes: Uint8Array, at: number, span: Span, end = at + bytes.length): Uint8Array | undefined {
  const from = Math.max(at, span.start);
  const to = Math.min(end, span.end);
  if (to <= from) return undefined;
  return from === at && to === at + bytes.length ? bytes : bytes.subarray(from - at, to - at);
}

/** Content already in memory of ours (a group fetched to prove the size, a
 * subtree walked again to find its bad group); passed on as copies, since
 * the memory also holds what failed. */
export class MemorySource implements ContentSource {
  #sent: number;
  constructor(
    readonly bytes: Uint8Array,
    /** The content byte of bytes[0]. */
    readonly at: number,
    readonly span: Span,
  ) {
    this.#sent = at;
  }

  take(count: number, offset: number): Promise<Uint8Array[]> {
    return Promise.resolve([this.bytes.subarray(offset - this.at, offset - this.at + count)]);
  }

  verified(upTo: number): Uint8Array[] {
    const part = cut(this.bytes.subarray(this.#sent - this.at, upTo - this.at), this.#sent, this.span);
    this.#sent = upTo;
    return part === undefined ? [] : [part.slice()];
  }

  finish(upTo: number): Uint8Array[] {
    return this.verified(upTo);
  }
}

/** A response body from content byte `from` (a 206's first byte, or where
 * a 200 was read to). `transfer`: its pieces may be moved into our memory
 * (the platform's own fetch makes a fresh buffer per piece); a fetch of the
 * caller's may hand out memory it still uses, which is copied. */
export class BodySource implements ContentSource {
  /** Pieces read and not yet passed on, each with its first content byte. */
  readonly #pending: { bytes: Uint8Array; at: number }[] = [];
  /** The last piece read, and how much of it was taken. */
  #last: Uint8Array | undefined;
  #used = 0;
  #next: number;

  constructor(
    readonly body: BodyReader,
    from: number,
    readonly span: Span,
    readonly transfer: boolean,
  ) {
    this.#next = from;
  }

  async take(count: number, offset: number): Promise<Uint8Array[]> {
    const parts: Uint8Array[] = [];
    for (let wanted = count; wanted > 0; ) {
      let current = this.#pending.at(-1);
      if (current === undefined || this.#used === current.bytes.length) {
        const piece = await this.body.nextOwned(this.transfer);
        if (piece === undefined) {
          throw new BaoVerifyError(
            `the server's body ended at byte ${offset + count - wanted}, inside the ${count} bytes wanted from byte ${offset}`,
            offset,
          );
        }
        current = { bytes: piece, at: this.#next };
        this.#pending.push(current);
        this.#last = piece;
        this.#used = 0;
      }
      const take = Math.min(wanted, current.bytes.length - this.#used);
      parts.push(current.bytes.subarray(this.#used, this.#used + take));
      this.#used += take;
      this.#next += take;
      wanted -= take;
    }
    return parts;
  }

  /** Bytes read from the body past the last one taken. */
  get untaken(): number {
    return this.#last === undefined ? 0 : this.#last.length - this.#used;
  }

  verified(upTo: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    // Whole pieces, every byte of their memory verified: as they are.
    while (this.#pending.length > 0 && this.#pending[0]!.at + this.#pending[0]!.bytes.length <= upTo) {
      const { bytes, at } = this.#pending.shift()!;
      const part = cut(bytes, at, this.span);
      if (part !== undefined) out.push(part);
    }
    return out;
  }

  finish(upTo: number): Uint8Array[] {
    const out = this.verified(upTo);
    // Pieces that hold bytes past `upTo`: their verified part, copied.
    while (this.#pending.length > 0) {
      const { bytes, at } = this.#pending.shift()!;
      const part = cut(bytes, at, this.span, Math.min(at + bytes.length, upTo));
      if (part !== undefined) out.push(copyOf(part));
    }
    return out;
  }
}
