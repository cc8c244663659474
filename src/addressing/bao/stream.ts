// Verified streaming: a Bao encoding arriving in pieces of any size (from a
// fetch body, a socket, a file) becomes a stream of content whose every byte
// was verified against the root hash before it is passed on. Memory stays at
// one piece plus one batch (BATCH) and a tree path, whatever the content's
// size.
//
// What is verified is ours: every byte is copied out of the source's pieces
// before it is hashed (a producer may reuse or share a piece's memory), the
// hash and the outboard are copied when the stream is made, and what is
// passed on is exactly the copy that was hashed. The caller may change any
// of its memory during the stream: that can fail it, never forge it.

import { toBytes } from '../../input.js';
import { type BodySource, type Pull, pullFrom } from '../../stream-source.js';
import { BaoVerifyError, checkHash, readHeader, verifySubtree } from './decode.js';
import { sameBytes } from '../../equal.js';
import { copyOf, HEADER_LEN, leafValue, parentChainingValue } from './nodes.js';
import { CHUNK_LEAVES, PARENT_LEN } from '../../tree/geometry.js';
import { Tree } from '../../tree/tree.js';
import { expectedValue } from '../../tree/walk.js';

/** Subtrees up to this size are read whole and verified in one batched
 * pass; above it, node by node (each leaf passed on as soon as it checks).
 * 16 MiB in 64 KiB pieces (/tmp script, medians of 20): native 13.6 ms at
 * 64 KiB, 9.7 at 256 KiB, 10.8-12.2 at 1 MiB; wasm-simd 15.2 either way. */
const BATCH = 256 * 1024;

export type ByteSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | BodySource;

export interface BaoStreamOptions {
  /** The outboard encoding, when `source` carries only the content. */
  outboard?: ArrayBufferView | ArrayBufferLike;
}

/** Reads exact byte counts from a source that arrives in pieces. */
export class PieceReader {
  readonly #pull: Pull;
  #piece: Uint8Array = new Uint8Array(0);
  #at = 0;
  #reading = false;
  #cancelled = false;

  constructor(source: ByteSource) {
    const pull = pullFrom(source);
    if (pull === undefined) throw new TypeError('blake3-kit: source must be a ReadableStream, Response, Readable or async iterable of bytes');
    this.#pull = pull;
  }

  /** Whether a read of the source is pending (it may never end). */
  get reading(): boolean {
    return this.#reading;
  }

  /** A copy of the next `count` bytes, or undefined if the source ends
   * first. Never a view of a piece: its producer may still change it. */
  async read(count: number): Promise<Uint8Array | undefined> {
    const out = new Uint8Array(count);
    return (await this.readInto(out)) ? out : undefined;
  }

  /** The next `count` bytes as a view of the current piece when they lie
   * in it, else gathered into `scratch` (which must hold them); undefined
   * if the source ends first. A view is the producer's memory, which it may
   * still change: only for a reader that copies what it verifies before it
   * hashes it, as verifySubtree does with a combined encoding. */
  async readView(count: number, scratch: Uint8Array): Promise<Uint8Array | undefined> {
    if (this.#left() >= count) return this.#piece.subarray(this.#at, (this.#at += count));
    const out = scratch.subarray(0, count);
    return (await this.readInto(out)) ? out : undefined;
  }

  /** Fills all of `target` with a copy of the next bytes; false if the
   * source ends first. */
  async readInto(target: Uint8Array): Promise<boolean> {
    let filled = 0;
    while (filled < target.length) {
      if (this.#left() === 0 && !(await this.#next())) return false;
      const take = Math.min(target.length - filled, this.#left());
      target.set(this.#piece.subarray(this.#at, (this.#at += take)), filled);
      filled += take;
    }
    return true;
  }

  /** Whether the source has ended with nothing left unread. */
  async atEnd(): Promise<boolean> {
    while (this.#left() === 0) if (!(await this.#next())) return true;
    return false;
  }

  /** Bytes of the current piece not read yet. Its source may detach or
   * shrink it between reads: that is an error, not an end or a gap. */
  #left(): number {
    const left = this.#piece.length - this.#at;
    if (left < 0) throw new TypeError('blake3-kit: a piece of the source was detached or shrunk while it was being read');
    return left;
  }

  async #next(): Promise<boolean> {
    // A source that ignores its release (an endless iterator) is not read on.
    if (this.#cancelled) throw new TypeError('blake3-kit: the stream was cancelled');
    this.#reading = true;
    const { value, done } = await Promise.resolve()
      .then(() => this.#pull.next())
      .finally(() => (this.#reading = false));
    if (done) return false;
    this.#piece = toBytes(value, 'a piece of the source');
    this.#at = 0;
    return true;
  }

  /** Releases the source; waits for that only when no read is pending
   * (a source that never answers a read may never let go). */
  async cancel(reason: unknown): Promise<void> {
    this.#cancelled = true;
    const released = Promise.resolve(this.#pull.release(reason)).catch(() => {});
    if (!this.#reading) await released;
  }
}

/**
 * The content of a Bao encoding read from `source` (or of the content in
 * `source`, with `options.outboard`), as a stream of verified leaves. A
 * mismatch, truncation or extra byte errors the stream with BaoVerifyError;
 * it closes only once the final leaf, which vouches for the length, is
 * verified.
 */
export function baoDecodeStream(source: ByteSource, hash: ArrayBufferView | ArrayBufferLike, options?: BaoStreamOptions): ReadableStream<Uint8Array> {
  const root = checkHash(hash);
  // Not copied whole (that would hold 1/16 of the content): each node is
  // copied as it is read and checked in the copy, and a batch's stored
  // parents are only compared, so a later change by the caller is never
  // used, only found different.
  const outboard = options?.outboard === undefined ? undefined : toBytes(options.outboard, 'options.outboard');
  const input = new PieceReader(source);
  return verifiedStream(input, verifiedLeaves(input, root, outboard));
}

/** A stream of what `items` yields as it reads `input`: the first error
 * errors the stream and releases the source; cancelling releases both. */
export function verifiedStream<T>(input: PieceReader, items: AsyncGenerator<T, void>): ReadableStream<T> {
  return new ReadableStream<T>({
    async pull(controller) {
      try {
        const { value, done } = await items.next();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
        await input.cancel(error).catch(() => {});
      }
    },
    async cancel(reason) {
      // The source first: it ends a pending read where it can. A generator
      // waiting on a read takes its return() only once that read settles,
      // so that is awaited only when no read is pending.
      const reading = input.reading;
      await input.cancel(reason);
      const returned = items.return(undefined).catch(() => {});
      if (!reading) await returned;
    },
  });
}

async function* verifiedLeaves(input: PieceReader, root: Uint8Array, outboard: Uint8Array | undefined): AsyncGenerator<Uint8Array, void> {
  const block = CHUNK_LEAVES.bytes;
  const header = outboard ?? (await input.read(HEADER_LEN));
  if (header === undefined) throw new BaoVerifyError('encoding ended inside its 8-byte header');
  const length = readHeader(header, outboard === undefined ? 'encoding' : 'outboard');
  if (outboard !== undefined && outboard.length !== HEADER_LEN + Tree.of(length).parentsLength) {
    throw new BaoVerifyError('outboard does not agree with its length header');
  }
  let cursor = HEADER_LEN;
  const parent = async (): Promise<Uint8Array | undefined> => {
    if (outboard === undefined) return input.read(PARENT_LEN);
    stored(PARENT_LEN);
    return copyOf(outboard.subarray(cursor, (cursor += PARENT_LEN)));
  };
  /** Whether the caller's outboard still holds the next `count` bytes. */
  const stored = (count: number): void => {
    if (outboard!.length < cursor + count) throw new TypeError('blake3-kit: options.outboard was detached or shrunk while the stream read it');
  };
  // Holds a combined batch as it arrives; its leaves are copied out of it.
  const scratch = new Uint8Array(outboard === undefined ? Tree.of(BATCH).parentsLength + BATCH : 0);
  const nodes: Uint8Array[] = [];
  const walk = Tree.of(length).walk();
  while (walk.next()) {
    const { offset, size, isRoot } = walk;
    const expected = expectedValue(walk, nodes, root);
    if (!isRoot && size > block && size <= BATCH) {
      const subtree = Tree.of(size);
      const check = { offset, expected, isRoot: false };
      // The whole subtree at once, verified in one batched pass. An
      // outboard's content is read straight into the buffer passed on; a
      // combined encoding through a reused buffer, as one copy per piece
      // and then its leaves out of it: 16 MiB in 64 KiB pieces on
      // wasm-simd, 0.65-0.67x hash(), against 0.62x with a fresh buffer per
      // batch and 0.62-0.64x copying each run of leaves and parents straight
      // out of the pieces (~8 K small copies per 16 MiB).
      if (outboard === undefined) {
        // verifySubtree copies the leaves and parents out before hashing.
        const encoded = await input.readView(subtree.parentsLength + size, scratch);
        if (encoded === undefined) throw new BaoVerifyError(`encoding ended inside the subtree at byte ${offset}`, offset);
        yield verifySubtree(encoded, subtree, { ...check, start: 0 }).content;
      } else {
        const leaves = new Uint8Array(size);
        if (!(await input.readInto(leaves))) throw new BaoVerifyError(`encoding ended inside the subtree at byte ${offset}`, offset);
        stored(subtree.parentsLength);
        cursor = verifySubtree(outboard, subtree, { ...check, start: cursor, content: leaves }).end;
        yield leaves;
      }
      walk.skip();
      continue;
    }
    if (walk.isLeaf) {
      const leaf = await input.read(size);
      if (leaf === undefined) throw new BaoVerifyError(`encoding ended inside the content at byte ${offset}`, offset);
      if (!sameBytes(leafValue(leaf, offset, isRoot), expected)) {
        throw new BaoVerifyError(`the content at byte ${offset} does not match the hash`, offset);
      }
      if (size > 0) yield leaf;
      continue;
    }
    const node = await parent();
    if (node === undefined) throw new BaoVerifyError(`encoding ended inside a tree node above byte ${offset}`, offset);
    if (!sameBytes(parentChainingValue(node, isRoot), expected))
      throw new BaoVerifyError(`the tree node above byte ${offset} does not match the hash`, offset);
    nodes[walk.depth] = node;
  }
  if (!(await input.atEnd())) throw new BaoVerifyError('encoding has bytes past its last node');
}
