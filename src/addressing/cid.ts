// Content IDs for BLAKE3 digests: multihash (code 0x1e, blake3), CIDv1 with
// the raw codec (0x55) or DRISL's (0x71: dag-cbor, the two DASL codecs,
// which BDASL keeps), as strings in base32 ('b…', the default) or
// base58btc ('z…'). Parsing checks everything and says what is wrong. The
// encodings are small and fixed by the multiformats specs, so they are
// written here (no runtime dependency); the tests hold them to the
// `multiformats` package.

import { equal } from '../equal.js';
import { checkOptions, toBytes } from '../input.js';
import { fromBase32, fromBase58, toBase32, toBase58 } from './multiformats/bases.js';
import { decodeVarint, encodeVarint } from './multiformats/varint.js';

export { equal };

/** The multihash code of BLAKE3. */
export const BLAKE3_MULTIHASH = 0x1e;
/** The multicodec of raw bytes: the CID of a blob names its bytes. */
export const RAW_CODEC = 0x55;
/** DRISL's multicodec (dag-cbor's code): the CID names a DRISL-encoded
 * block, and its BLAKE3 digest is of the block's bytes all the same. */
export const DRISL_CODEC = 0x71;
/** Digest lengths a BLAKE3 multihash may have here (32 is the default). */
const MAX_DIGEST = 64;
/** The longest CID string parsed: a CID of a 64-byte digest is 110
 * characters in base32, at most 94 in base58btc. Base58 decoding is quadratic (a
 * 120 KB string took 5 s), so longer strings are refused unread. */
const MAX_CID_TEXT = 512;

export type CidBase = 'base32' | 'base58btc';
/** A DASL codec: raw bytes (the default), or a DRISL block. */
export type CidCodec = 'raw' | 'drisl';

export interface CidOptions {
  base?: CidBase;
  codec?: CidCodec;
}

export interface ParsedCid {
  version: 1;
  codec: typeof RAW_CODEC | typeof DRISL_CODEC;
  /** The BLAKE3 digest the CID names. */
  digest: Uint8Array;
}

/** The multihash of a BLAKE3 digest (1 to 64 bytes; 32 by default). */
export function multihash(digest: ArrayBufferView | ArrayBufferLike): Uint8Array {
  const bytes = checkDigest(digest, 'digest');
  return Uint8Array.from([...encodeVarint(BLAKE3_MULTIHASH), ...encodeVarint(bytes.length), ...bytes]);
}

/** The digest in a BLAKE3 multihash, which must be exactly that. */
export function parseMultihash(bytes: ArrayBufferView | ArrayBufferLike): Uint8Array {
  const view = toBytes(bytes, 'multihash');
  const [digest, end] = readMultihash(view, 0, 'multihash');
  if (end !== view.length) throw new RangeError(`blake3-kit: multihash has ${view.length - end} bytes past its digest`);
  return digest;
}

/** The binary CIDv1 of a BLAKE3 digest, raw codec unless `options.codec`
 * is 'drisl'. */
export function cidBytes(digest: ArrayBufferView | ArrayBufferLike, options?: Pick<CidOptions, 'codec'>): Uint8Array {
  checkOptions(options, 'options');
  return encodeCid(digest, codecOf(options?.codec));
}

/** The CIDv1 string of a BLAKE3 digest: base32 ('bafkr4…' for 32 bytes of
 * raw, 'bafyr4…' of DRISL) or base58btc ('z…'). */
export function cid(digest: ArrayBufferView | ArrayBufferLike, options?: CidOptions): string {
  checkOptions(options, 'options');
  const base = options?.base ?? 'base32';
  if (base !== 'base32' && base !== 'base58btc')
    throw new RangeError(`blake3-kit: options.base must be 'base32' or 'base58btc'; got ${String(base)}`);
  const bytes = encodeCid(digest, codecOf(options?.codec));
  return base === 'base32' ? `b${toBase32(bytes)}` : `z${toBase58(bytes)}`;
}

function encodeCid(digest: ArrayBufferView | ArrayBufferLike, codec: number): Uint8Array {
  return Uint8Array.from([...encodeVarint(1), ...encodeVarint(codec), ...multihash(digest)]);
}

function codecOf(codec: unknown): typeof RAW_CODEC | typeof DRISL_CODEC {
  if (codec === undefined || codec === 'raw') return RAW_CODEC;
  if (codec === 'drisl') return DRISL_CODEC;
  throw new RangeError(`blake3-kit: options.codec must be 'raw' or 'drisl'; got ${String(codec)}`);
}

/** A CIDv1 string (base32 or base58btc, ASCII only, at most 512
 * characters: RangeError past that) or its bytes, checked to be the CID of
 * a BLAKE3 digest with a DASL codec (raw or DRISL). */
export function parseCid(text: string | ArrayBufferView | ArrayBufferLike): ParsedCid {
  const bytes = typeof text === 'string' ? decodeMultibase(text) : toBytes(text, 'cid');
  const [version, afterVersion] = decodeVarint(bytes, 0, 'cid');
  if (version !== 1) throw new RangeError(`blake3-kit: cid is version ${version}; only CIDv1 is supported`);
  const [codec, afterCodec] = decodeVarint(bytes, afterVersion, 'cid');
  if (codec !== RAW_CODEC && codec !== DRISL_CODEC) {
    throw new RangeError(`blake3-kit: cid has codec 0x${codec.toString(16)}; only the DASL codecs, raw (0x55) and DRISL (0x71), are read`);
  }
  const [digest, end] = readMultihash(bytes, afterCodec, 'cid');
  if (end !== bytes.length) throw new RangeError(`blake3-kit: cid has ${bytes.length - end} bytes past its digest`);
  return { version: 1, codec, digest };
}

function decodeMultibase(text: string): Uint8Array {
  if (text.length > MAX_CID_TEXT)
    throw new RangeError(`blake3-kit: cid is ${text.length} characters; a CID string is at most ${MAX_CID_TEXT} (a 64-byte digest's is 110)`);
  if (text.length === 46 && text.startsWith('Qm')) throw new RangeError('blake3-kit: cid is a CIDv0, which is always sha2-256, never BLAKE3');
  const prefix = text[0];
  const body = text.slice(1);
  const bytes = prefix === 'b' || prefix === 'B' ? fromBase32(body) : prefix === 'z' ? fromBase58(body) : undefined;
  if (bytes === undefined)
    throw new RangeError(`blake3-kit: cid must start with 'b' (base32) or 'z' (base58btc); got ${JSON.stringify(prefix ?? '')}`);
  if (bytes === null || body === '') throw new RangeError(`blake3-kit: cid is not valid ${prefix === 'z' ? 'base58btc' : 'base32'}`);
  return bytes;
}

function readMultihash(bytes: Uint8Array, at: number, what: string): [digest: Uint8Array, end: number] {
  const [code, afterCode] = decodeVarint(bytes, at, what);
  if (code !== BLAKE3_MULTIHASH) throw new RangeError(`blake3-kit: ${what} has hash code 0x${code.toString(16)}, not BLAKE3 (0x1e)`);
  const [length, start] = decodeVarint(bytes, afterCode, what);
  if (length < 1 || length > MAX_DIGEST)
    throw new RangeError(`blake3-kit: ${what} declares a ${length}-byte digest; BLAKE3 digests here are 1 to ${MAX_DIGEST} bytes`);
  if (start + length > bytes.length) throw new RangeError(`blake3-kit: ${what} declares a ${length}-byte digest but holds ${bytes.length - start}`);
  return [bytes.slice(start, start + length), start + length];
}

function checkDigest(digest: unknown, name: string): Uint8Array {
  const bytes = toBytes(digest, name);
  if (bytes.length < 1 || bytes.length > MAX_DIGEST)
    throw new RangeError(`blake3-kit: ${name} must be 1 to ${MAX_DIGEST} bytes; got ${bytes.length}`);
  return bytes;
}
