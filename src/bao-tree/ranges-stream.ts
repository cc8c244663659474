// bao-tree range encodings verified as they arrive, as an iroh client
// receives them: each chunk or group is passed on with its offset once it
// and the parents above it match the root hash, so the first ranges can be
// used before the last have arrived. Held at once: one group, the parents
// on its path and one piece of the source.

import { BaoVerifyError } from '../bao/decode.js';
import { rangeRequest, rangeWalk, type RangeRequest, type VerifiedPiece } from './range-walk.js';
import { type ByteSource, PieceReader, verifiedStream } from '../bao/stream.js';
import type { BaoTreeRangeOptions, ChunkRangeList } from './ranges.js';

export type { VerifiedPiece } from './range-walk.js';

/**
 * baoTreeDecodeRanges over a stream: the bao-tree encoding of `ranges` of a
 * blob of `size` bytes whose root hash is `hash`, read from `source` (a
 * ReadableStream, a fetch Response, a Node Readable or an async iterable of
 * bytes, in pieces of any size), as a stream of verified pieces in order. A mismatch,
 * truncation or extra byte errors the stream with BaoVerifyError, and no
 * piece is passed on before it is verified.
 */
export function baoTreeDecodeRangesStream(
  source: ByteSource,
  hash: ArrayBufferView | ArrayBufferLike,
  size: number,
  ranges: ChunkRangeList,
  options?: BaoTreeRangeOptions,
): ReadableStream<VerifiedPiece> {
  const request = rangeRequest(hash, size, ranges, options);
  const input = new PieceReader(source);
  return verifiedStream(input, verifiedPieces(input, request));
}

/** The walk fed from the source, each piece read into an array of its own
 * (passed on without another copy). */
async function* verifiedPieces(input: PieceReader, request: RangeRequest): AsyncGenerator<VerifiedPiece, void> {
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
  if (!(await input.atEnd())) throw new BaoVerifyError('the encoding has bytes past its last node');
}
