// The write side of a verified fetch: a bao-tree outboard (and the root
// hash, which names the content) of a large input, a picked File say, its
// chunks hashed across the worker pool as baoEncodeParallel hashes them.
// The pool returns every chunk's chaining value (1/32 of the input); this
// thread builds the levels above them and writes the parents at and above
// the chunk groups. Where the pool keeps the input here (small, or no
// workers), a Blob or stream is read and hashed here 1 MiB at a time, so
// this thread never holds the whole of it.

import { activeEngine } from '../../engine.js';
import { checkAsyncOptions, checkIntact, type AsyncHashOptions, type Input, inputBytes } from '../../input.js';
import { MODE_HASH } from '../../modes.js';
import { abortable } from '../../promises.js';
import { chunkBytes, readSource, type StreamSource } from '../../stream-source.js';
import { treeOps } from '../../tree-ops.js';
import { writePreOrder } from '../bao/encode.js';
import type { ChunkValuePool } from '../bao/encode-parallel.js';
import { levelsAbove, writeParent } from '../bao/levels.js';
import { concat } from '../bao/nodes.js';
import { BlockSize, CHUNK_LEN, CV_LEN, high32, low32 } from '../../tree/geometry.js';
import { ParentStore, Tree } from '../../tree/tree.js';
import { baoTreeOutboard, type BaoTreeOptions, chunkLogOf, orderOf } from './outboard.js';

export interface BaoTreeOutboardParallelOptions extends Pick<BaoTreeOptions, 'chunkLog' | 'order'>, Pick<AsyncHashOptions, 'signal' | 'onProgress'> {}

/** What is hashed here at a time where the pool does not take the input. */
const PIECE = 1 << 20;

/** baoTreeOutboard of a large input (bytes, a Blob or File, or a stream),
 * its chunks hashed on `pool`'s workers. Resolves to the outboard and the
 * root hash. */
export async function baoTreeOutboardOn(
  pool: ChunkValuePool,
  input: Input | Blob | StreamSource,
  options?: BaoTreeOutboardParallelOptions,
): Promise<{ outboard: Uint8Array; hash: Uint8Array }> {
  activeEngine();
  checkAsyncOptions(options, 'options');
  const tree = { chunkLog: chunkLogOf(options), order: orderOf(options) };
  const { signal, onProgress } = options ?? {};
  const progress = { signal, onProgress };
  if (typeof Blob !== 'undefined' && input instanceof Blob) {
    signal?.throwIfAborted();
    const values = await pool.blobChunkValues(input, progress);
    if (values !== undefined) return fromChunkValues(values, input.size, tree);
    return hashedHere(blobPieces(input, signal), input.size, tree, progress);
  }
  if (isStream(input)) {
    const values = await pool.streamChunkValues(input, progress);
    if (values === undefined) return readSource(input, signal, (iterator) => hashedHere(pieces(iterator), undefined, tree, progress));
    if ('whole' in values) {
      onProgress?.(values.whole.length, values.whole.length);
      return baoTreeOutboard(values.whole, tree);
    }
    return fromChunkValues(values.cvs, values.length, tree);
  }
  const content = inputBytes(input as Input, 'input');
  const length = content.length;
  const values = await pool.chunkValues(content, progress);
  if (values === undefined) {
    const built = baoTreeOutboard(content, tree);
    onProgress?.(length, length);
    return built;
  }
  // The caller's buffer could have been detached or shrunk meanwhile.
  checkIntact(content, length, 'input');
  return fromChunkValues(values, length, tree);
}

type Shape = { chunkLog: number; order: 'pre' | 'post' };

/** The outboard from every chunk's chaining value (the pool's pieces in order). */
function fromChunkValues(values: Uint8Array[], length: number, { chunkLog, order }: Shape): { outboard: Uint8Array; hash: Uint8Array } {
  const chunks = concat(values);
  // A file that changed under a Blob reads short (or fails): never a tree of other bytes.
  if (chunks.length !== Math.ceil(length / CHUNK_LEN) * CV_LEN) {
    throw new Error(
      `blake3-kit: the input changed while it was hashed: ${length} bytes expected, ${(chunks.length / CV_LEN) * CHUNK_LEN} or fewer read`,
    );
  }
  const tree = Tree.of(length, BlockSize.of(chunkLog));
  const { levels, top } = levelsAbove(chunks, true);
  const outboard = new Uint8Array(tree.parentsLength);
  // Pre-order as the encoders write it (word copies); post-order parent by parent.
  if (order === 'pre') writePreOrder(levels, length, tree.block, outboard, 0);
  else {
    const store = new ParentStore(tree, outboard, order);
    const walk = tree.walk({ parentsOnly: true });
    while (walk.next()) writeParent(levels, walk, outboard, store.positionOf(walk));
  }
  return { outboard, hash: top };
}

/** The outboard of `pieces` hashed on this thread, 1 MiB of chunks per
 * call; a content of one piece or less is built whole. */
async function hashedHere(
  pieces: AsyncIterable<Uint8Array>,
  total: number | undefined,
  tree: Shape,
  { signal, onProgress }: AsyncHashOptions,
): Promise<{ outboard: Uint8Array; hash: Uint8Array }> {
  const values: Uint8Array[] = [];
  const buffer = new Uint8Array(PIECE);
  let filled = 0;
  let done = 0;
  const flush = () => {
    const first = (done - filled) / CHUNK_LEN;
    values.push(treeOps().chunkChainingValues(MODE_HASH, undefined, low32(first), high32(first), buffer.subarray(0, filled)));
    filled = 0;
  };
  for await (const piece of pieces) {
    signal?.throwIfAborted();
    for (let at = 0; at < piece.length; ) {
      if (filled === PIECE) flush();
      const take = Math.min(PIECE - filled, piece.length - at);
      buffer.set(piece.subarray(at, at + take), filled);
      filled += take;
      at += take;
      done += take;
    }
    onProgress?.(done, total);
  }
  if (done === 0) onProgress?.(0, total ?? 0);
  // One piece or less: built whole (one chunk has no chaining value below its root).
  if (done <= PIECE) return baoTreeOutboard(buffer.slice(0, filled), tree);
  if (filled > 0) flush();
  return fromChunkValues(values, done, tree);
}

/** A Blob's bytes, 1 MiB at a time. */
async function* blobPieces(blob: Blob, signal: AbortSignal | undefined): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < blob.size; at += PIECE) {
    yield new Uint8Array(await abortable(blob.slice(at, Math.min(blob.size, at + PIECE)).arrayBuffer(), signal));
  }
}

/** A source's pieces as bytes (strings as UTF-8). */
async function* pieces(iterator: { next(): Promise<IteratorResult<Uint8Array | string>> }): AsyncGenerator<Uint8Array> {
  for (let step = await iterator.next(); !step.done; step = await iterator.next()) yield chunkBytes(step.value);
}

/** A source readSource reads: a ReadableStream, a fetch Response (its
 * body), or an async iterable. */
function isStream(input: unknown): input is StreamSource {
  if (input === null || typeof input !== 'object') return false;
  return typeof (input as ReadableStream).getReader === 'function' || Symbol.asyncIterator in input || ('body' in input && 'bodyUsed' in input);
}
