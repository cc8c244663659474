// Content IDs: the multiformats specs' own examples, and the `multiformats`
// package as an oracle for random digests both ways; every malformed input
// a clear error. Pure functions: the same in every project.
import { equal } from 'blake3-kit';
import { cid, cidBytes, multihash, parseCid, parseMultihash } from 'blake3-kit/bao';
import { CID } from 'multiformats/cid';
import { base58btc } from 'multiformats/bases/base58';
import { create as createDigest } from 'multiformats/hashes/digest';
import { describe, expect, it } from 'vitest';
import { fromBase32, fromBase58, toBase32, toBase58 } from '../../src/addressing/multiformats/bases.js';
import { decodeVarint, encodeVarint } from '../../src/addressing/multiformats/varint.js';
import { loadBao, random, seed, thrownBy } from './setup.js';

const b3 = await loadBao();
const rng = random(seed);
const utf8 = (text: string) => new TextEncoder().encode(text);

describe('the specs’ examples', () => {
  it('unsigned varints (multiformats/unsigned-varint)', () => {
    const cases: [number, number[]][] = [
      [1, [0x01]],
      [127, [0x7f]],
      [128, [0x80, 0x01]],
      [255, [0xff, 0x01]],
      [300, [0xac, 0x02]],
      [16384, [0x80, 0x80, 0x01]],
    ];
    for (const [value, bytes] of cases) {
      expect(encodeVarint(value)).toEqual(bytes);
      expect(decodeVarint(Uint8Array.from(bytes), 0, 'x')).toEqual([value, bytes.length]);
    }
  });

  it('multibase base32 and base58btc (multiformats/multibase test vectors)', () => {
    expect(`b${toBase32(utf8('yes mani !'))}`).toBe('bpfsxgidnmfxgsibb');
    expect(`z${toBase58(utf8('yes mani !'))}`).toBe('z7paNL19xttacUY');
    expect(`b${toBase32(utf8('Decentralize everything!!'))}`).toBe('birswgzloorzgc3djpjssazlwmvzhs5dinfxgoijb');
    expect(`z${toBase58(utf8('Decentralize everything!!'))}`).toBe('zUXE7GvtEk8XTXs1GF8HSGbVA9FCX9SEBPe');
    expect(toBase58(Uint8Array.from([0, 0, 1]))).toBe('112');
    expect(fromBase58('112')).toEqual(Uint8Array.from([0, 0, 1]));
    expect(fromBase32('pfsxgidnmfxgsibb')).toEqual(utf8('yes mani !'));
    expect(fromBase32('PFSXGIDNMFXGSIBB')).toEqual(utf8('yes mani !'));
  });
});

describe(`CIDs against the multiformats package (seed ${seed})`, () => {
  it('cid(), cidBytes() and multihash() equal multiformats for random digests of 1 to 64 bytes', () => {
    for (let trial = 0; trial < 200; trial++) {
      const digest = rng.bytes(trial < 100 ? 32 : 1 + rng.int(64));
      const theirs = CID.create(1, 0x55, createDigest(0x1e, digest));
      expect(cid(digest)).toBe(theirs.toString());
      expect(cid(digest, { base: 'base58btc' })).toBe(theirs.toString(base58btc));
      expect(cidBytes(digest)).toEqual(theirs.bytes);
      expect(multihash(digest)).toEqual(theirs.multihash.bytes);
      expect(parseCid(theirs.toString()).digest).toEqual(digest);
      expect(parseCid(theirs.toString(base58btc)).digest).toEqual(digest);
      expect(parseCid(theirs.bytes).digest).toEqual(digest);
      expect(parseMultihash(theirs.multihash.bytes)).toEqual(digest);
      const drisl = CID.create(1, 0x71, createDigest(0x1e, digest));
      expect(cid(digest, { codec: 'drisl' })).toBe(drisl.toString());
      expect(cid(digest, { codec: 'drisl', base: 'base58btc' })).toBe(drisl.toString(base58btc));
      expect(cidBytes(digest, { codec: 'drisl' })).toEqual(drisl.bytes);
      expect(parseCid(drisl.toString())).toEqual({ version: 1, codec: 0x71, digest });
      expect(parseCid(theirs.bytes)).toEqual({ version: 1, codec: 0x55, digest });
    }
  });

  it('names content by its hash: bafkr4… for the 32-byte BLAKE3 digest', () => {
    const digest = b3.hash('hello world');
    const text = cid(digest);
    expect(text.startsWith('bafkr4')).toBe(true);
    expect(equal(parseCid(text).digest, digest)).toBe(true);
    expect(CID.parse(text).multihash.code).toBe(0x1e);
  });
});

describe('malformed CIDs and multihashes are clear errors', () => {
  const digest = rng.bytes(32);
  const good = cidBytes(digest);
  const failsWith = (run: () => unknown, type: ErrorConstructor, message: RegExp) => {
    const caught = thrownBy(run);
    expect(caught).toBeInstanceOf(type);
    expect((caught as Error).message).toMatch(message);
  };

  it('RangeError for bases, versions, codecs, hash codes and lengths', () => {
    failsWith(() => parseCid('QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG'), RangeError, /CIDv0.*sha2-256/);
    failsWith(() => parseCid(`m${toBase32(good)}`), RangeError, /must start with 'b' \(base32\) or 'z'/);
    failsWith(() => parseCid(`b${toBase32(good)}0`), RangeError, /not valid base32/);
    failsWith(() => parseCid('z0OIl'), RangeError, /not valid base58btc/);
    failsWith(() => parseCid(''), RangeError, /must start with/);
    failsWith(() => parseCid(CID.create(1, 0x70, createDigest(0x1e, digest)).toString()), RangeError, /codec 0x70.*raw \(0x55\) and DRISL \(0x71\)/);
    failsWith(() => parseCid(CID.create(1, 0x55, createDigest(0x12, digest)).toString()), RangeError, /hash code 0x12, not BLAKE3/);
    failsWith(() => parseCid(Uint8Array.from([...good, 0])), RangeError, /1 bytes past its digest/);
    failsWith(() => parseCid(good.subarray(0, good.length - 1)), RangeError, /declares a 32-byte digest but holds 31/);
    failsWith(() => parseCid(Uint8Array.from([2, 0x55, 0x1e, 1, 0])), RangeError, /version 2/);
    failsWith(() => parseCid(Uint8Array.from([0x81, 0x00, 0x55])), RangeError, /shortest form/);
    failsWith(() => parseCid(Uint8Array.from([0x81])), RangeError, /ends inside a varint/);
    failsWith(() => parseMultihash(Uint8Array.from([0x1e, 0])), RangeError, /0-byte digest/);
    failsWith(() => cid(new Uint8Array(65)), RangeError, /1 to 64 bytes/);
    failsWith(() => cid(digest, { base: 'base64' as never }), RangeError, /options\.base/);
    failsWith(() => cid(digest, { codec: 'dag-json' as never }), RangeError, /options\.codec must be 'raw' or 'drisl'/);
    failsWith(() => cidBytes(digest, { codec: 0x71 as never }), RangeError, /options\.codec/);
  });

  it('ASCII only: no Unicode lookalike stands for a base32 or base58 digit', () => {
    const text = cid(digest);
    expect(text[3]).toBe('k'); // bafkr4…
    expect(parseCid(text.toUpperCase()).digest).toEqual(digest);
    // The Kelvin sign lower-cases to 'k', long s and dotless i upper-case to
    // 'S' and 'I', fullwidth forms normalize (NFKC) to ASCII.
    for (const lookalike of ['\u212a', '\u017f', '\u0131', '\u0130', '\uff4b', '\uff2b']) {
      for (const form of [text, text.toUpperCase()]) {
        failsWith(() => parseCid(form.slice(0, 3) + lookalike + form.slice(4)), RangeError, /not valid base32/);
      }
    }
    const z = cid(digest, { base: 'base58btc' });
    failsWith(() => parseCid(z.slice(0, 3) + String.fromCharCode(0xff10 + 2) + z.slice(4)), RangeError, /not valid base58btc/);
  });

  it('refuses a string longer than any CID before decoding it', () => {
    const started = Date.now();
    // Valid base58: decoded, it took ~5 s (quadratic) to fail.
    failsWith(() => parseCid(`z${'2'.repeat(120_000)}`), RangeError, /120001 characters; a CID string is at most 512/);
    failsWith(() => parseCid(`b${'a'.repeat(120_000)}`), RangeError, /at most 512/);
    expect(Date.now() - started).toBeLessThan(1000);
    // The longest real CIDs (64-byte digests) are well inside it.
    const long = rng.bytes(64);
    expect(parseCid(cid(long)).digest).toEqual(long);
    expect(parseCid(cid(long, { base: 'base58btc' })).digest).toEqual(long);
    expect(cid(long).length).toBe(110);
    expect(cid(long, { base: 'base58btc' }).length).toBeLessThanOrEqual(94);
  });

  it('TypeError for wrong types', () => {
    failsWith(() => cid('abc' as never), TypeError, /digest/);
    failsWith(() => parseCid(42 as never), TypeError, /cid/);
    failsWith(() => parseMultihash(null as never), TypeError, /multihash/);
  });

  it('equal compares in full: same bytes, or not', () => {
    for (let trial = 0; trial < 100; trial++) {
      const a = rng.bytes(1 + rng.int(64));
      const b = a.slice();
      expect(equal(a, b)).toBe(true);
      b[rng.int(b.length)]! ^= 1 << rng.int(8);
      expect(equal(a, b)).toBe(false);
      expect(equal(a, a.subarray(1))).toBe(false);
    }
  });
});
