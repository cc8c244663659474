// iroh's HashSeq: a blob that lists other blobs by their BLAKE3 hashes, 32
// bytes each, one after another with nothing between (iroh-blobs' HashSeq).
// The HashSeq's own hash (hash() of its bytes) names the whole list.

import { toBytes } from '../input.js';

const HASH_LEN = 32;

/** The HashSeq of `hashes`: each one's 32 bytes, in order. */
export function hashSeq(hashes: readonly (ArrayBufferView | ArrayBufferLike)[]): Uint8Array {
  if (!Array.isArray(hashes)) throw new TypeError('blake3-kit: hashes must be an array of 32-byte hashes');
  // The length and each element read once (getters could answer differently
  // the second time), all checked before anything is written. Each hash is
  // copied as it is read: a later element's getter could shrink or detach
  // an earlier one's buffer, whose view would then write zeros.
  const count = hashes.length;
  const items: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const bytes = toBytes(hashes[i], `hashes[${i}]`);
    if (bytes.length !== HASH_LEN) throw new RangeError(`blake3-kit: hashes[${i}] must be 32 bytes; got ${bytes.length}`);
    const copy = new Uint8Array(HASH_LEN);
    copy.set(bytes);
    items.push(copy);
  }
  const out = new Uint8Array(count * HASH_LEN);
  for (let i = 0; i < count; i++) out.set(items[i]!, i * HASH_LEN);
  return out;
}

/** The hashes a HashSeq lists, each a copy of its 32 bytes. */
export function parseHashSeq(bytes: ArrayBufferView | ArrayBufferLike): Uint8Array[] {
  const seq = toBytes(bytes, 'bytes');
  if (seq.length % HASH_LEN !== 0) throw new RangeError(`blake3-kit: a HashSeq is a multiple of 32 bytes long; got ${seq.length}`);
  const hashes: Uint8Array[] = [];
  for (let at = 0; at < seq.length; at += HASH_LEN) hashes.push(seq.slice(at, at + HASH_LEN));
  return hashes;
}
