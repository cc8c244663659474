// iroh's HashSeq: 32-byte hashes concatenated, both ways, on every backend.
import { hash, hashSeq, parseHashSeq, toHex } from 'blake3-kit';
import { describe, expect, it } from 'vitest';
import { load, random, seed, thrownBy } from './setup.js';

await load();
const rng = random(seed);

describe(`HashSeq (seed ${seed})`, () => {
  it('is the hashes one after another, and parses back to them', () => {
    for (const count of [0, 1, 2, 3, 17]) {
      const hashes = Array.from({ length: count }, () => hash(rng.bytes(rng.int(5000))));
      const seq = hashSeq(hashes);
      expect(seq.length).toBe(32 * count);
      expect(toHex(seq)).toBe(hashes.map(toHex).join(''));
      const parsed = parseHashSeq(seq);
      expect(parsed.map(toHex)).toEqual(hashes.map(toHex));
      // Copies: changing the sequence later changes none of them.
      if (count > 0) {
        seq[0]! ^= 1;
        expect(toHex(parsed[0]!)).toBe(toHex(hashes[0]!));
      }
    }
    // Any view or buffer of 32 bytes is a hash.
    const digest = hash('x');
    expect(toHex(hashSeq([digest.buffer.slice(0), new DataView(digest.buffer)]))).toBe(toHex(digest) + toHex(digest));
  });

  it('rejects what is not a list of 32-byte hashes, naming the argument, before writing anything', () => {
    const short = thrownBy(() => hashSeq([hash('a'), new Uint8Array(31)]));
    expect(short).toBeInstanceOf(RangeError);
    expect(String(short)).toMatch(/hashes\[1\] must be 32 bytes; got 31/);
    expect(thrownBy(() => hashSeq([hash('a'), 'b' as never]))).toBeInstanceOf(TypeError);
    expect(thrownBy(() => hashSeq(hash('a') as never))).toBeInstanceOf(TypeError);
    const ragged = thrownBy(() => parseHashSeq(new Uint8Array(33)));
    expect(ragged).toBeInstanceOf(RangeError);
    expect(String(ragged)).toMatch(/multiple of 32 bytes.*33/);
    expect(thrownBy(() => parseHashSeq('x' as never))).toBeInstanceOf(TypeError);
    // An element getter runs once.
    let reads = 0;
    const list = [hash('a')];
    Object.defineProperty(list, 1, { get: () => (reads++ === 0 ? hash('b') : new Uint8Array(3)), enumerable: true });
    expect(hashSeq(list).length).toBe(64);
    expect(reads).toBe(1);
  });
});
