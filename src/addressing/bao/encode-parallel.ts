// Bao encoding of a large in-memory input or Blob with its chunks hashed
// across the worker pool, as hashParallel and hashBlob hash: the pool
// returns every chunk's chaining value, and this thread builds the parents
// above them (one in sixteen compressions) and writes the encoding.

import { activeEngine, type StreamChunkValues } from '../../engine.js';
import { checkAsyncOptions, checkIntact, type AsyncHashOptions, type Input, inputBytes } from '../../input.js';
import { baoEncode, baoEncodedLength, writePreOrder, type BaoEncodeOptions, type BaoEncoding } from './encode.js';
import { levelsAbove } from './levels.js';
import { abortable } from '../../promises.js';
import { chunkBytes, readSource, type SourceIterator, type StreamSource } from '../../stream-source.js';
import { baoEncodeStream } from './encode-stream.js';
import { concat, copyOf, HEADER_LEN } from './nodes.js';
import { CHUNK_LEAVES, CHUNK_LEN, CV_LEN } from '../../tree/geometry.js';

export interface BaoEncodeParallelOptions extends BaoEncodeOptions, Pick<AsyncHashOptions, 'signal' | 'onProgress'> {}

/** A platform's pool: every chunk's chaining value, per piece, or undefined
 * where the input stays on this thread (small, or no workers). */
export interface ChunkValuePool {
  chunkValues(bytes: Uint8Array, options?: AsyncHashOptions): Promise<Uint8Array[] | undefined>;
  blobChunkValues(blob: Blob, options?: AsyncHashOptions): Promise<Uint8Array[] | undefined>;
  streamChunkValues(source: StreamSource, options?: AsyncHashOptions): Promise<StreamChunkValues | undefined>;
}

/** baoEncode, its chunks hashed on `pool`'s workers. The outboard of a Blob
 * or stream is built without this thread holding its bytes (the workers
 * read a Blob's where they can); a combined encoding holds them anyway, so
 * they are read first. */
export async function baoEncodeOn(
  pool: ChunkValuePool,
  input: Input | Blob | StreamSource,
  options?: BaoEncodeParallelOptions,
): Promise<BaoEncoding> {
  activeEngine();
  checkAsyncOptions(options, 'options');
  const outboard = options?.outboard === true;
  const signal = options?.signal;
  const progress = { signal, onProgress: options?.onProgress };
  if (typeof Blob !== 'undefined' && input instanceof Blob) {
    signal?.throwIfAborted();
    if (outboard) return blobOutboard(pool, input, progress);
    return baoEncodeOn(pool, new Uint8Array(await abortable(input.arrayBuffer(), signal)), options);
  }
  if (isStream(input)) {
    if (outboard) return streamOutboard(pool, input, progress);
    return baoEncodeOn(pool, await readSource(input, signal, readAll), options);
  }
  const content = inputBytes(input as Input, 'input');
  const length = content.length;
  const values = await pool.chunkValues(content, progress);
  if (values === undefined) {
    const encoded = baoEncode(content, { outboard });
    options?.onProgress?.(length, length);
    return encoded;
  }
  // The caller's buffer could have been detached or shrunk meanwhile.
  checkIntact(content, length, 'input');
  return fromChunkValues(values, length, outboard ? undefined : content);
}

async function blobOutboard(pool: ChunkValuePool, blob: Blob, progress: AsyncHashOptions): Promise<BaoEncoding> {
  const length = blob.size;
  const values = await pool.blobChunkValues(blob, progress);
  // Small, or no workers: read as a stream, 64 KiB of chunks at a time.
  if (values === undefined) return baoEncodeStream(blob, { outboard: true, ...progress });
  return fromChunkValues(values, length, undefined);
}

/** A source readSource reads: a ReadableStream, a fetch Response (its
 * body), or an async iterable. */
function isStream(input: unknown): input is StreamSource {
  if (input === null || typeof input !== 'object') return false;
  return typeof (input as ReadableStream).getReader === 'function' || Symbol.asyncIterator in input || ('body' in input && 'bodyUsed' in input);
}

async function streamOutboard(pool: ChunkValuePool, source: StreamSource, progress: AsyncHashOptions): Promise<BaoEncoding> {
  const values = await pool.streamChunkValues(source, progress);
  // No workers: the source is untouched, and encoded here as it is read.
  if (values === undefined) {
    return readSource(source, progress.signal, (iterator) => baoEncodeStream(bytesOf(iterator), { outboard: true, ...progress }));
  }
  if ('whole' in values) {
    const encoded = baoEncode(values.whole, { outboard: true });
    progress.onProgress?.(values.whole.length);
    return encoded;
  }
  return fromChunkValues(values.cvs, values.length, undefined);
}

/** A source's pieces as bytes (strings as UTF-8). */
function bytesOf(iterator: SourceIterator): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]: () => ({
      async next(): Promise<IteratorResult<Uint8Array>> {
        const step = await iterator.next();
        return step.done ? { done: true, value: undefined } : { done: false, value: chunkBytes(step.value) };
      },
    }),
  };
}

/** Everything a source yields, in one array (each piece copied as it
 * comes: a source may reuse its buffer). */
async function readAll(iterator: SourceIterator): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for (let step = await iterator.next(); !step.done; step = await iterator.next()) parts.push(copyOf(chunkBytes(step.value)));
  return concat(parts);
}

/** The encoding from every chunk's chaining value (the pool's pieces in
 * order), with `content` in place unless it is an outboard. */
function fromChunkValues(values: Uint8Array[], length: number, content: Uint8Array | undefined): BaoEncoding {
  const chunks = concat(values);
  // A file that changed under a Blob reads short (or fails); never a tree
  // of other bytes.
  if (chunks.length !== Math.ceil(length / CHUNK_LEN) * CV_LEN) {
    throw new Error(
      `blake3-kit: the input changed while it was encoded: ${length} bytes expected, ${(chunks.length / CV_LEN) * CHUNK_LEN} or fewer read`,
    );
  }
  const { levels, top } = levelsAbove(chunks, true);
  const encoding = new Uint8Array(baoEncodedLength(length, { outboard: content === undefined }));
  new DataView(encoding.buffer).setBigUint64(0, BigInt(length), true);
  writePreOrder(levels, length, CHUNK_LEAVES, encoding, HEADER_LEN, content);
  return { encoding, hash: top };
}
