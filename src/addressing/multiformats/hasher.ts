// BLAKE3 as a multiformats hasher: what `multiformats` consumers take as a
// MultihashHasher or SyncMultihashHasher (CID.create, block encoders,
// HAMTs). Structurally the object multiformats' `hasher.from` returns and
// its Digest, written here so multiformats stays a devDependency; the
// type test holds the shapes to multiformats 14's own types.

import { hash } from '../../backend.js';
import { checkOptions } from '../../input.js';
import { encodeVarint } from './varint.js';

const BLAKE3_CODE = 0x1e;
/** multiformats' `hasher.from` refuses to truncate below 20 bytes by
 * default; the same floor here, so a digest(bytes, { truncate }) that works
 * with one works with the other. */
const MIN_TRUNCATE = 20;
const MAX_LENGTH = 64;

/** multiformats' MultihashDigest, field for field. */
export class MultihashDigest {
  readonly code: typeof BLAKE3_CODE = BLAKE3_CODE;
  readonly size: number;
  /** The raw digest: a view into `bytes` past the code and size. */
  readonly digest: Uint8Array<ArrayBuffer>;
  /** The whole multihash: varint code, varint size, digest. */
  readonly bytes: Uint8Array<ArrayBuffer>;
  constructor(raw: Uint8Array) {
    const prefix = [...encodeVarint(BLAKE3_CODE), ...encodeVarint(raw.length)];
    this.bytes = new Uint8Array(prefix.length + raw.length);
    this.bytes.set(prefix);
    this.bytes.set(raw, prefix.length);
    this.size = raw.length;
    this.digest = this.bytes.subarray(prefix.length);
  }
}

export interface MultihashHasherOptions {
  /** Digest length in bytes, 1 to 64; 32 by default (BLAKE3's own). */
  length?: number;
}

/** A synchronous multiformats hasher for BLAKE3 (multihash code 0x1e). */
export interface Blake3Multihasher {
  readonly name: 'blake3';
  readonly code: typeof BLAKE3_CODE;
  /** The digest length `digest` gives without `truncate`. */
  readonly size: number;
  /** The raw BLAKE3 digest of `input`, `size` bytes. */
  encode(input: Uint8Array): Uint8Array<ArrayBuffer>;
  /** The multihash of `input`. `options.truncate` (20 to `size`) cuts the
   * digest, as multiformats' hashers do. */
  digest(input: Uint8Array, options?: { truncate?: number }): MultihashDigest;
}

/** A multiformats hasher for BLAKE3 whose digests are `options.length`
 * bytes (default 32). Needs init() to have run before its first digest. */
export function multihashHasher(options?: MultihashHasherOptions): Blake3Multihasher {
  checkOptions(options, 'options');
  const length = options?.length ?? 32;
  if (typeof length !== 'number') throw new TypeError(`blake3-kit: options.length must be a number; got ${typeof length}`);
  if (!Number.isInteger(length) || length < 1 || length > MAX_LENGTH)
    throw new RangeError(`blake3-kit: options.length must be an integer from 1 to ${MAX_LENGTH}; got ${String(length)}`);
  const encode = (input: Uint8Array): Uint8Array<ArrayBuffer> => {
    // multiformats' hashers take bytes only: a string would be hashed as
    // UTF-8 by ours, giving a CID no other implementation agrees with.
    if (!(input instanceof Uint8Array)) throw new TypeError('blake3-kit: input must be a Uint8Array');
    return hash(input, { length }) as Uint8Array<ArrayBuffer>;
  };
  return Object.freeze({
    name: 'blake3' as const,
    code: BLAKE3_CODE,
    size: length,
    encode,
    digest(input: Uint8Array, digestOptions?: { truncate?: number }): MultihashDigest {
      const truncate = digestOptions?.truncate;
      if (truncate != null && (!Number.isInteger(truncate) || truncate < Math.min(MIN_TRUNCATE, length) || truncate > length))
        throw new RangeError(
          `blake3-kit: options.truncate must be an integer from ${Math.min(MIN_TRUNCATE, length)} to ${length}; got ${String(truncate)}`,
        );
      const raw = encode(input);
      return new MultihashDigest(truncate == null ? raw : raw.subarray(0, truncate));
    },
  });
}

/** BLAKE3 with 32-byte digests as a multiformats hasher. */
// Pure: a bundle that does not use it drops it, and the code it reaches.
export const blake3Multihasher: Blake3Multihasher = /* @__PURE__ */ multihashHasher();
