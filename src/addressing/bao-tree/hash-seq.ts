// iroh's HashSeq: a blob that lists other blobs by their BLAKE3 hashes, 32
// bytes each, one after another with nothing between (iroh-blobs' HashSeq).
// The HashSeq's own hash (hash() of its bytes) names the whole list.

import { copyInto, lengthOf, rangeOf, toBytes } from '../../input.js';

const HASH_LEN = 32;

/** The HashSeq of `hashes`: each one's 32 bytes, in order. */
export function hashSeq(hashes: readonly (ArrayBufferView | ArrayBufferLike)[]): Uint8Array {
  if (!Array.isArray(hashes)) throw new TypeError('blake3-kit: hashes must be an array of 32-byte hashes');
  // The array's length and each element read once (getters could answer
  // differently the second time). Each hash is checked and copied into the
  // sequence before the next element is read: that element's getter could
  // shrink, detach or rewrite an earlier one's buffer. Its length comes from
  // the built-in getter (lengthOf): a Uint8Array's own `length` property
  // can lie, and a 16-byte hash that says 32 left 16 zeros in the sequence.
  const count = hashes.length;
  const out = new Uint8Array(count * HASH_LEN);
  for (let i = 0; i < count; i++) {
    const bytes = toBytes(hashes[i], `hashes[${i}]`);
    const length = lengthOf(bytes);
    if (length !== HASH_LEN) throw new RangeError(`blake3-kit: hashes[${i}] must be 32 bytes; got ${length}`);
    copyInto(out, bytes, i * HASH_LEN);
  }
  return out;
}

/** The hashes a HashSeq lists, each a copy of its 32 bytes. */
export function parseHashSeq(bytes: ArrayBufferView | ArrayBufferLike): Uint8Array[] {
  const seq = toBytes(bytes, 'bytes');
  // Through lengthOf and rangeOf: the caller's own `length` or `slice`
  // could lie.
  const length = lengthOf(seq);
  if (length % HASH_LEN !== 0) throw new RangeError(`blake3-kit: a HashSeq is a multiple of 32 bytes long; got ${length}`);
  const hashes: Uint8Array[] = [];
  for (let at = 0; at < length; at += HASH_LEN) hashes.push(rangeOf(seq, at, at + HASH_LEN).slice());
  return hashes;
}
