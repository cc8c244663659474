// bao-tree range encodings verified as they arrive, as an iroh client
// receives them: each chunk or group is passed on with its offset once it
// and the parents above it match the root hash, so the first ranges can be
// used before the last have arrived. Held at once: one group, the parents
// on its path and one piece of the source.

import { BaoVerifyError, checkHash } from './decode.js';
import { equal } from './equal.js';
import { type Boundaries, boundariesOf, isAll, shape, splitInner, truncate } from './range-set.js';
import { type ByteSource, PieceReader, verifiedStream } from './stream.js';
import type { BaoTreeRangeOptions, ChunkRangeList } from './tree-ranges.js';
import { chunkLogOf } from './tree-outboard.js';
import { CHUNK_LEN, leafValue, PARENT_LEN, parentChainingValue, treeHashingOf, type TreeHashing } from './tree.js';

/** A verified piece of the content: whole chunks, or a whole group. */
export interface VerifiedPiece {
  offset: number;
  bytes: Uint8Array;
}

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
  const minLevel = chunkLogOf(options);
  const hashing = treeHashingOf(options);
  const root = checkHash(hash).slice();
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`blake3-kit: size must be a non-negative safe integer; got ${String(size)}`);
  const asked = boundariesOf(ranges);
  // Nothing asked, nothing sent (bao-tree checks before truncating).
  const query = asked.length === 0 ? asked : truncate(asked, size);
  const input = new PieceReader(source);
  return verifiedStream(input, verifiedPieces(input, { root, size, query, minLevel, hashing }));
}

interface Request {
  root: Uint8Array;
  size: number;
  query: Boundaries;
  minLevel: number;
  hashing: TreeHashing;
}

async function* verifiedPieces(input: PieceReader, { root, size, query, minLevel, hashing }: Request): AsyncGenerator<VerifiedPiece, void> {
  async function* decode(
    start: number,
    length: number,
    isRoot: boolean,
    query: Boundaries,
    expected: Uint8Array,
  ): AsyncGenerator<VerifiedPiece, void> {
    if (query.length === 0) return;
    const offset = start * CHUNK_LEN;
    const { mid, level } = length > CHUNK_LEN ? shape(length) : { mid: 0, level: -1 };
    if (length <= CHUNK_LEN || (isAll(query) && level < minLevel)) {
      // Its own array: read, hashed and passed on without another copy.
      const bytes = new Uint8Array(length);
      if (!(await input.readInto(bytes))) throw new BaoVerifyError(`the encoding ends early, in the content at byte ${offset}`, offset);
      if (!equal(leafValue(bytes, offset, isRoot, hashing), expected))
        throw new BaoVerifyError(`the content at byte ${offset} does not match the hash`, offset);
      yield { offset, bytes };
      return;
    }
    const node = new Uint8Array(PARENT_LEN);
    if (!(await input.readInto(node))) throw new BaoVerifyError(`the encoding ends early, at the node for byte ${offset}`, offset);
    if (!equal(parentChainingValue(node, isRoot, hashing), expected))
      throw new BaoVerifyError(`the tree node above byte ${offset} does not match the hash`, offset);
    const [left, right] = splitInner(query, start, start + mid);
    yield* decode(start, mid * CHUNK_LEN, false, left, node.subarray(0, 32));
    yield* decode(start + mid, length - mid * CHUNK_LEN, false, right, node.subarray(32, 64));
  }
  yield* decode(0, size, true, query, root);
  if (!(await input.atEnd())) throw new BaoVerifyError('the encoding has bytes past its last node');
}
