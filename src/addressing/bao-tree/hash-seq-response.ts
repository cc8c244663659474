// iroh-blobs' answer to a request for a hash sequence, read whole from one
// stream: the HashSeq blob's response (when its ranges are asked), then each
// child's, in order, each a size header and a bao-tree encoding at chunk
// log 4; a blob whose range set is empty sends nothing (response.ts has
// the framing and where iroh-blobs defines it). Held at once: the HashSeq
// (32 bytes a child) and what one decode holds.

import { hash as blake3 } from '../../backend.js';
import { BaoVerifyError, checkHash } from '../bao/decode.js';
import { sameBytes } from '../../equal.js';
import { type ByteSource, PieceReader, verifiedStream } from '../bao/stream.js';
import { toHex } from '../../hex.js';
import { checkOptions, toBytes } from '../../input.js';
import { boundariesOf } from '../../tree/ranges.js';
import { CHUNK_LEN } from '../../tree/geometry.js';
import { parseHashSeq } from './hash-seq.js';
import { rangeRequest, type VerifiedPiece } from './range-walk.js';
import type { ChunkRangeList } from './ranges.js';
import { verifiedPieces } from './ranges-stream.js';
import { readSizeHeader } from './response.js';

/** A verified piece of one blob of the response. */
export interface HashSeqPiece extends VerifiedPiece {
  /** iroh's offset in the request: 0 for the HashSeq itself, i + 1 for its child i. */
  index: number;
  /** The blob's root hash (a copy). */
  hash: Uint8Array;
  /** The blob's size, from its header; its encoding vouches for it as far as the ranges asked reach. */
  size: number;
}

export interface HashSeqResponseOptions {
  /** The HashSeq's bytes, when the request does not ask for them (its range
   * set, `ranges[0]`, is empty): checked against `hash` before any child is
   * read. */
  hashSeq?: ArrayBufferView | ArrayBufferLike;
  /** The longest HashSeq read into memory, in bytes: 16 MiB (524,288
   * children) by default. Its size header is the peer's word until its
   * bytes arrive, so it is not allocated past this. */
  maxHashSeqLength?: number;
}

/** Range sets by iroh offset: an array (entries past its end ask for
 * nothing) or a function of the offset. */
export type HashSeqRanges = readonly ChunkRangeList[] | ((index: number) => ChunkRangeList);

const DEFAULT_MAX_HASH_SEQ = 16 * 1024 * 1024;
const IROH_CHUNK_LOG = 4;
const EMPTY: ChunkRangeList = [];

/**
 * The blobs of iroh-blobs' response to a request for the HashSeq `hash`
 * with `ranges` (by iroh offset: `ranges[0]` the HashSeq's own, `ranges[i +
 * 1]` its child i's), read from `source` as one stream of verified pieces,
 * blob after blob. The HashSeq's ranges must ask for all of it or nothing
 * (then `options.hashSeq` gives it). Every blob with ranges asked must be
 * there; a changed byte in a blob, a response cut short, or a byte after
 * the last response errors the stream with BaoVerifyError (a child's error
 * names it), after only verified pieces.
 */
export function baoTreeDecodeHashSeq(
  source: ByteSource,
  hash: ArrayBufferView | ArrayBufferLike,
  ranges: HashSeqRanges,
  options?: HashSeqResponseOptions,
): ReadableStream<HashSeqPiece> {
  const root = checkHash(hash);
  const rangesAt = rangesOf(ranges);
  checkOptions(options, 'options');
  const given = options?.hashSeq === undefined ? undefined : toBytes(options.hashSeq, 'options.hashSeq').slice();
  const max = options?.maxHashSeqLength ?? DEFAULT_MAX_HASH_SEQ;
  if (typeof max !== 'number' || !Number.isSafeInteger(max) || max < 0)
    throw new RangeError(`blake3-kit: options.maxHashSeqLength must be a non-negative safe integer; got ${String(max)}`);
  const input = new PieceReader(source);
  return verifiedStream(input, walk(input, root, rangesAt, given, max));
}

function rangesOf(ranges: unknown): (index: number) => ChunkRangeList {
  if (typeof ranges === 'function') return (index) => (ranges as (index: number) => ChunkRangeList)(index);
  if (!Array.isArray(ranges)) throw new TypeError('blake3-kit: ranges must be an array of chunk range lists, or a function of the offset');
  // Read once: a getter could answer differently the second time.
  const list = [...(ranges as ChunkRangeList[])];
  return (index) => list[index] ?? EMPTY;
}

async function* walk(
  input: PieceReader,
  root: Uint8Array,
  rangesAt: (index: number) => ChunkRangeList,
  given: Uint8Array | undefined,
  max: number,
): AsyncGenerator<HashSeqPiece, void> {
  let seq: Uint8Array;
  const rootRanges = rangesAt(0);
  const asked = boundariesOf(rootRanges);
  if (asked.length === 0) {
    if (given === undefined)
      throw new TypeError(
        'blake3-kit: ranges[0] asks for none of the HashSeq, so options.hashSeq must give it (its children are not known otherwise)',
      );
    if (!sameBytes(blake3(given), root)) throw new BaoVerifyError('options.hashSeq does not match the hash');
    seq = given;
  } else {
    const size = await readSize(input, 'the HashSeq');
    if (size > max) throw new BaoVerifyError(`the HashSeq's size header says ${size} bytes, past options.maxHashSeqLength (${max})`);
    const chunks = Math.ceil(size / CHUNK_LEN);
    if (asked[0] !== 0 || (asked.length > 1 && asked[1]! < chunks))
      throw new RangeError(`blake3-kit: ranges[0] must ask for all of the HashSeq (chunks 0 to ${chunks}) or none of it, to know its children`);
    seq = new Uint8Array(size);
    for await (const piece of verifiedPieces(input, rangeRequest(root, size, rootRanges, { chunkLog: IROH_CHUNK_LOG }), false)) {
      seq.set(piece.bytes, piece.offset);
      yield { ...piece, index: 0, hash: root.slice(), size };
    }
    if (size % 32 !== 0) throw new BaoVerifyError(`the HashSeq is ${size} bytes, not a whole number of 32-byte hashes`);
  }
  const children = parseHashSeq(seq);
  for (let i = 0; i < children.length; i++) {
    const childRanges = rangesAt(i + 1);
    if (boundariesOf(childRanges).length === 0) continue;
    const child = children[i]!;
    const name = `child ${i} (${toHex(child.subarray(0, 4))}…)`;
    try {
      const size = await readSize(input, name);
      const request = rangeRequest(child, size, childRanges, { chunkLog: IROH_CHUNK_LOG });
      for await (const piece of verifiedPieces(input, request, false)) yield { ...piece, index: i + 1, hash: child.slice(), size };
    } catch (error) {
      if (!(error instanceof BaoVerifyError)) throw error;
      throw new BaoVerifyError(`${name}: ${error.message.replace(/^blake3-kit: /, '')}`, error.offset);
    }
  }
  if (!(await input.atEnd())) throw new BaoVerifyError('the response has bytes past its last blob');
}

/** A blob's size header; its absence is an error here, as every blob asked
 * for must be there. */
async function readSize(input: PieceReader, name: string): Promise<number> {
  const size = await readSizeHeader(input, name);
  if (size === undefined) throw new BaoVerifyError(`the response ends before ${name}'s size header (the provider may not have it)`);
  return size;
}
