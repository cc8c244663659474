// iroh's HashSeq: 32-byte hashes concatenated, both ways, on every backend.
import { hash, toHex } from 'blake3-kit';
import { hashSeq, parseHashSeq } from 'blake3-kit/bao';
import { describe, expect, it } from 'vitest';
import { loadBao, random, seed, thrownBy } from './setup.js';

await loadBao();
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

  it('lists each hash as it was when read, whatever later getters do to its buffer', () => {
    const a = hash('a');
    const b = hash('b');
    const expected = toHex(a) + toHex(b);
    // A later element's getter detaches (transfers) an earlier one's buffer.
    const detached = new Uint8Array(a);
    const list: Uint8Array[] = [detached];
    Object.defineProperty(list, 1, {
      get: () => {
        structuredClone(detached.buffer, { transfer: [detached.buffer] });
        return b;
      },
      enumerable: true,
    });
    expect(toHex(hashSeq(list))).toBe(expected);
    expect(detached.length).toBe(0);
    // Or rewrites it in place (its bytes were copied when read).
    const rewritten = new Uint8Array(a);
    const list2: Uint8Array[] = [rewritten];
    Object.defineProperty(list2, 1, { get: () => (rewritten.fill(0), b), enumerable: true });
    expect(toHex(hashSeq(list2))).toBe(expected);
    // Or shrinks a resizable buffer, where the runtime has them.
    const Resizable = ArrayBuffer as unknown as new (
      length: number,
      options: { maxByteLength: number },
    ) => ArrayBuffer & { resize?: (n: number) => void };
    const buffer = new Resizable(32, { maxByteLength: 64 });
    if (typeof buffer.resize === 'function') {
      const shrinking = new Uint8Array(buffer);
      shrinking.set(a);
      const list3: Uint8Array[] = [shrinking];
      Object.defineProperty(list3, 1, { get: () => (buffer.resize!(0), b), enumerable: true });
      expect(toHex(hashSeq(list3))).toBe(expected);
    }
  });
});
