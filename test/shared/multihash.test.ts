// The multiformats hasher: what `multiformats` 14 makes of it (CIDs, its
// own Digest), byte for byte and string for string the `blake3-multihash`
// package's output at 32 bytes, and our cid()/multihash() at every length.
import { hash, toHex } from 'blake3-kit';
import { blake3Multihasher, cid, multihash, multihashHasher, parseCid } from 'blake3-kit/bao';
import * as Blake3Multihash from 'blake3-multihash';
import * as Block from 'multiformats/block';
import { CID } from 'multiformats/cid';
import * as raw from 'multiformats/codecs/raw';
import { create as createDigest, decode as decodeDigest, equals as digestEquals } from 'multiformats/hashes/digest';
import type { MultihashDigest, MultihashHasher, SyncMultihashHasher } from 'multiformats/hashes/interface';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { loadBao, random, seed, thrownBy } from './setup.js';

await loadBao();
const rng = random(seed);

/** Inputs from empty to several chunks, across the 1024-byte chunk edge. */
const inputs = () => [0, 1, 63, 64, 65, 1023, 1024, 1025, 4096, 10_000, 1 << 17, rng.int(300_000)].map((n) => rng.bytes(n));

describe(`multihashHasher (seed ${seed})`, () => {
  it('is a multiformats SyncMultihashHasher, in the types too', () => {
    // The type test: tsc (tsconfig.test.json) checks these assignments
    // against multiformats 14's own interfaces.
    const asSync: SyncMultihashHasher<0x1e> = blake3Multihasher;
    const asAsync: MultihashHasher<0x1e> = multihashHasher({ length: 20 });
    expectTypeOf(blake3Multihasher.digest(new Uint8Array(1))).toMatchTypeOf<MultihashDigest<0x1e>>();
    const link: CID<unknown, 0x55, 0x1e, 1> = CID.create(1, raw.code, blake3Multihasher.digest(new Uint8Array(1)));
    expect(link.multihash.size).toBe(32);
    expect([asSync.name, asSync.code, asAsync.code]).toEqual(['blake3', 0x1e, 0x1e]);
    expect(blake3Multihasher.size).toBe(32);
  });

  it('makes CIDs multiformats parses back, equal to blake3-multihash and to cid()', async () => {
    const theirs = await Blake3Multihash.sync();
    for (const bytes of inputs()) {
      const label = `${bytes.length} bytes`;
      const digest = await blake3Multihasher.digest(bytes);
      const reference = theirs.digest(bytes);
      expect(toHex(digest.bytes), label).toBe(toHex(reference.bytes));
      expect(toHex(digest.digest), label).toBe(toHex(hash(bytes)));
      expect([digest.code, digest.size], label).toEqual([reference.code, reference.size]);
      expect(digestEquals(digest, reference), label).toBe(true);
      const made = CID.create(1, raw.code, digest);
      const theirCid = CID.create(1, raw.code, reference);
      expect(made.toString(), label).toBe(theirCid.toString());
      expect(made.toString(), label).toBe(cid(hash(bytes)));
      expect(toHex(made.multihash.bytes), label).toBe(toHex(multihash(hash(bytes))));
      const parsed = CID.parse(made.toString());
      expect(parsed.equals(made), label).toBe(true);
      expect(toHex(parsed.multihash.digest), label).toBe(toHex(parseCid(made.toString()).digest));
      // encode() is the raw digest, as multiformats' hashers give it.
      expect(toHex(blake3Multihasher.encode(bytes)), label).toBe(toHex(hash(bytes)));
    }
  });

  it("is taken by multiformats' Block encode, decode and create, which check the CID with it", async () => {
    const bytes = rng.bytes(5000);
    const block = await Block.encode({ value: bytes, codec: raw, hasher: blake3Multihasher });
    expect(block.cid.toString()).toBe(cid(hash(bytes)));
    const decoded = await Block.decode({ bytes: block.bytes, codec: raw, hasher: blake3Multihasher });
    expect(decoded.cid.equals(block.cid)).toBe(true);
    // create() re-hashes the bytes and refuses ones whose hash is not the CID's.
    await Block.create({ bytes: block.bytes, cid: block.cid, codec: raw, hasher: blake3Multihasher });
    const changed = bytes.slice();
    changed[0]! ^= 1;
    await expect(Block.create({ bytes: changed, cid: block.cid, codec: raw, hasher: blake3Multihasher })).rejects.toThrow();
  });

  it('gives digests of any length from 1 to 64, as cid() and multiformats encode them', () => {
    for (const length of [1, 16, 20, 31, 33, 48, 63, 64]) {
      const hasher = multihashHasher({ length });
      for (const bytes of inputs().slice(0, 6)) {
        const label = `length ${length}, ${bytes.length} bytes`;
        const digest = hasher.digest(bytes);
        expect(digest.size, label).toBe(length);
        expect(toHex(digest.digest), label).toBe(toHex(hash(bytes, { length })));
        // multiformats' own Digest of the same bytes, and its decoding of ours.
        expect(toHex(digest.bytes), label).toBe(toHex(createDigest(0x1e, hash(bytes, { length })).bytes));
        expect(toHex(decodeDigest(digest.bytes).digest), label).toBe(toHex(digest.digest));
        expect(toHex(digest.bytes), label).toBe(toHex(multihash(hash(bytes, { length }))));
        const made = CID.create(1, raw.code, digest);
        expect(made.toString(), label).toBe(cid(hash(bytes, { length })));
        expect(CID.parse(made.toString()).equals(made), label).toBe(true);
      }
    }
  });

  it('truncates as multiformats hashers do, and rejects what they reject', () => {
    const bytes = rng.bytes(2000);
    const cut = blake3Multihasher.digest(bytes, { truncate: 20 });
    expect(toHex(cut.digest)).toBe(toHex(hash(bytes).subarray(0, 20)));
    expect(cut.bytes.slice(0, 2)).toEqual(Uint8Array.from([0x1e, 20]));
    expect(thrownBy(() => blake3Multihasher.digest(bytes, { truncate: 19 }))).toBeInstanceOf(RangeError);
    expect(thrownBy(() => blake3Multihasher.digest(bytes, { truncate: 33 }))).toBeInstanceOf(RangeError);
    for (const length of [0, 65, 1.5, Number.NaN])
      expect(
        thrownBy(() => multihashHasher({ length })),
        String(length),
      ).toBeInstanceOf(RangeError);
    expect(thrownBy(() => multihashHasher({ length: '32' as never }))).toBeInstanceOf(TypeError);
    expect(thrownBy(() => blake3Multihasher.digest('text' as never))).toBeInstanceOf(TypeError);
    expect(thrownBy(() => multihashHasher(32 as never))).toBeInstanceOf(TypeError);
  });

  it('returns memory of its own: bytes and digest share one buffer, not the input', () => {
    const bytes = rng.bytes(100);
    const digest = blake3Multihasher.digest(bytes);
    expect(digest.digest.buffer).toBe(digest.bytes.buffer);
    expect(digest.bytes.buffer).not.toBe(bytes.buffer);
    expect(digest.bytes.length).toBe(34);
  });
});
