// Bao encoding of a large in-memory input with its chunks hashed across the
// worker pool, as hashParallel hashes: the pool returns every chunk's
// chaining value, and this thread builds the parents above them (one in
// sixteen compressions) and writes the encoding.

import { activeEngine } from '../engine.js';
import { checkAsyncOptions, checkIntact, toBytes, type AsyncHashOptions, type Input } from '../input.js';
import { baoEncode, baoEncodedLength, writePreOrder, type BaoEncodeOptions, type BaoEncoding } from './encode.js';
import { levelsAbove } from './levels.js';
import { blockLength, concat, HEADER_LEN } from './tree.js';

export interface BaoEncodeParallelOptions extends BaoEncodeOptions, Pick<AsyncHashOptions, 'signal' | 'onProgress'> {}

/** A platform's pool: every chunk's chaining value, per piece, or undefined
 * where the input stays on this thread (small, or no workers). */
export type ChunkValues = (bytes: Uint8Array, options?: AsyncHashOptions) => Promise<Uint8Array[] | undefined>;

const encoder = new TextEncoder();

/** baoEncode, its chunks hashed on `chunkValues`' pool. */
export async function baoEncodeOn(chunkValues: ChunkValues, input: Input, options?: BaoEncodeParallelOptions): Promise<BaoEncoding> {
  activeEngine();
  checkAsyncOptions(options, 'options');
  const outboard = options?.outboard === true;
  const content = typeof input === 'string' ? encoder.encode(input) : toBytes(input, 'input');
  const length = content.length;
  const values = await chunkValues(content, { signal: options?.signal, onProgress: options?.onProgress });
  if (values === undefined) {
    const encoded = baoEncode(content, { outboard });
    options?.onProgress?.(length, length);
    return encoded;
  }
  // The caller's buffer could have been detached or shrunk meanwhile.
  checkIntact(content, length, 'input');
  const { levels, top } = levelsAbove(concat(values), true);
  const encoding = new Uint8Array(baoEncodedLength(length, { outboard }));
  new DataView(encoding.buffer).setBigUint64(0, BigInt(length), true);
  writePreOrder(levels, length, blockLength(0), encoding, HEADER_LEN, outboard ? undefined : content);
  return { encoding, hash: top };
}
