// Bao encoding of content that arrives in pieces (a stream, a Blob or File):
// chunk chaining values are computed 64 KiB at a time as bytes come, so an
// outboard needs memory for those values only (32 bytes per KiB), not the
// content. The pre-order tree is written once the length is known.

import { checkAsyncOptions, toBytes, type AsyncHashOptions } from '../../input.js';
import { treeOps } from '../../tree-ops.js';
import { MODE_HASH } from '../../modes.js';
import { type BaoEncodeOptions, type BaoEncoding, baoEncodedLength, writePreOrder } from './encode.js';
import { levelsAbove } from './levels.js';
import { readSource } from '../../stream-source.js';
import type { ByteSource } from './stream.js';
import { concat, copyOf, HEADER_LEN, leafRootHash } from './nodes.js';
import { CHUNK_LEAVES, CHUNK_LEN, high32, low32 } from '../../tree/geometry.js';

export interface BaoEncodeStreamOptions extends BaoEncodeOptions, Pick<AsyncHashOptions, 'signal' | 'onProgress'> {}

const BATCH = 64 * 1024;

/** The Bao encoding (or outboard) of everything `source` yields, and its root hash. */
export async function baoEncodeStream(source: ByteSource | Blob, options?: BaoEncodeStreamOptions): Promise<BaoEncoding> {
  checkAsyncOptions(options, 'options');
  const outboard = options?.outboard === true;
  const signal = options?.signal;
  signal?.throwIfAborted();
  const stream = typeof Blob !== 'undefined' && source instanceof Blob ? (source.stream() as ReadableStream<Uint8Array>) : source;
  const tree = treeOps();
  const pending = new Uint8Array(BATCH);
  let pendingLength = 0;
  let total = 0;
  let values = new Uint8Array(1024);
  let valuesLength = 0;
  const content: Uint8Array[] = [];
  const hashPending = (length: number) => {
    const chunk = (total - pendingLength) / CHUNK_LEN;
    const cvs = tree.chunkChainingValues(MODE_HASH, undefined, low32(chunk), high32(chunk), pending.subarray(0, length));
    if (valuesLength + cvs.length > values.length) {
      const grown = new Uint8Array(Math.max(2 * values.length, valuesLength + cvs.length));
      grown.set(values.subarray(0, valuesLength));
      values = grown;
    }
    values.set(cvs, valuesLength);
    valuesLength += cvs.length;
  };
  // readSource: an abort ends even a read the source never answers, and
  // the source is released however reading ends.
  await readSource(stream, signal, async (iterator) => {
    for (;;) {
      const { value, done } = await iterator.next();
      if (done) break;
      const piece = toBytes(value, 'a piece of the source');
      if (!outboard) content.push(copyOf(piece));
      for (let at = 0; at < piece.length; ) {
        // A full batch is hashed only when more bytes follow: the last
        // chunk may be the only one, and then it is the root.
        if (pendingLength === BATCH) {
          hashPending(BATCH);
          pendingLength = 0;
        }
        const take = Math.min(BATCH - pendingLength, piece.length - at);
        pending.set(piece.subarray(at, at + take), pendingLength);
        pendingLength += take;
        total += take;
        at += take;
      }
      options?.onProgress?.(total);
    }
  });
  const encoding = new Uint8Array(baoEncodedLength(total, { outboard }));
  new DataView(encoding.buffer).setBigUint64(0, BigInt(total), true);
  const whole = outboard ? undefined : concat(content);
  if (total <= CHUNK_LEN) {
    if (whole !== undefined) encoding.set(whole, HEADER_LEN);
    return { encoding, hash: leafRootHash(pending.subarray(0, pendingLength)) };
  }
  if (pendingLength > 0) hashPending(pendingLength);
  const { levels, top } = levelsAbove(values.subarray(0, valuesLength), true);
  writePreOrder(levels, total, CHUNK_LEAVES, encoding, HEADER_LEN, whole);
  return { encoding, hash: top };
}
