// bao-tree range encodings verified as they arrive, as an iroh client
// receives them: each chunk or group is passed on with its offset once it
// and the parents above it match the root hash, so the first ranges can be
// used before the last have arrived. Held at once: one group, the parents
// on its path and one piece of the source.

import { BaoVerifyError } from '../bao/decode.js';
import { rangeRequest, rangeWalk, type RangeRequest, type VerifiedPiece } from './range-walk.js';
import { type ByteSource, PieceReader, verifiedStream } from '../bao/stream.js';
import type { BaoTreeRangeOptions, ChunkRangeList } from './ranges.js';
import { BaoTreeResponseReader, claimInput } from './response.js';

export type { VerifiedPiece } from './range-walk.js';

/**
 * baoTreeDecodeRanges over a stream: the bao-tree encoding of `ranges` of a
 * blob of `size` bytes whose root hash is `hash`, read from `source` (a
 * ReadableStream, a fetch Response, a Node Readable or an async iterable of
 * bytes, in pieces of any size), as a stream of verified pieces in order. A mismatch,
 * truncation or extra byte errors the stream with BaoVerifyError, and no
 * piece is passed on before it is verified.
 *
 * With a BaoTreeResponseReader for `source`, one response of several on a
 * stream: the stream closes once this encoding is verified, with the bytes
 * after it left in the reader for the next decode (extra bytes are not
 * looked for). An error or a cancel releases the whole source.
 */
export function baoTreeDecodeRangesStream(
  source: ByteSource | BaoTreeResponseReader,
  hash: ArrayBufferView | ArrayBufferLike,
  size: number,
  ranges: ChunkRangeList,
  options?: BaoTreeRangeOptions,
): ReadableStream<VerifiedPiece> {
  const request = rangeRequest(hash, size, ranges, options);
  if (!(source instanceof BaoTreeResponseReader)) {
    const input = new PieceReader(source);
    return verifiedStream(input, verifiedPieces(input, request, true));
  }
  const { input, done } = source[claimInput]();
  return verifiedStream(input, held(verifiedPieces(input, request, false), done));
}

/** `items`, then `done(true)` if they all came, `done(false)` if they
 * failed or were abandoned. */
async function* held<T>(items: AsyncGenerator<T, void>, done: (ok: boolean) => void): AsyncGenerator<T, void> {
  let ok = false;
  try {
    yield* items;
    ok = true;
  } finally {
    done(ok);
  }
}

/** The walk fed from the source, each piece read into an array of its own
 * (passed on without another copy); with `toEnd`, the source must end
 * with the encoding. */
export async function* verifiedPieces(input: PieceReader, request: RangeRequest, toEnd: boolean): AsyncGenerator<VerifiedPiece, void> {
  const walk = rangeWalk(request);
  for (let step = walk.next(); !step.done; ) {
    const wanted = step.value;
    if ('piece' in wanted) {
      yield wanted.piece;
      step = walk.next();
    } else {
      const bytes = new Uint8Array(wanted.read);
      step = walk.next((await input.readInto(bytes)) ? bytes : undefined);
    }
  }
  if (toEnd && !(await input.atEnd())) throw new BaoVerifyError('the encoding has bytes past its last node');
}
