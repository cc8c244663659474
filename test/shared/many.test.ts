// hashMany against hash() and @noble/hashes on every backend: the lane paths
// (inputs of one length, whole blocks, up to 16 chunks), the one-at-a-time
// paths, mixed batches, and bad arguments that must leave `into` untouched.
import { blake3 as noble } from '@noble/hashes/blake3.js';
import { hashMany } from 'blake3-kit/bao';
import { describe, expect, it } from 'vitest';
import { CONTEXT, KEY, concatBytes, loadBao, random, seed, thrownBy } from './setup.js';

const b3 = await loadBao();
const rng = random(seed);

const MODES = [
  { name: 'hash', options: {} },
  { name: 'keyed_hash', options: { key: KEY } },
  { name: 'derive_key', options: { context: CONTEXT } },
] as const;

/** Lengths at every boundary the lanes care about, and random ones. */
const LENGTHS = [0, 1, 63, 64, 65, 127, 128, 1023, 1024, 1025, 2048, 3072, 4095, 4096, 4097, 5120, 7168, 16383, 16384, 16448, 20000];

function expectEach(digests: Uint8Array, inputs: Uint8Array[], options: object, length: number): void {
  expect(digests.length).toBe(inputs.length * length);
  inputs.forEach((input, i) => {
    const want = b3.toHex(b3.hash(input, { ...options, length }));
    expect(b3.toHex(digests.subarray(i * length, (i + 1) * length)), `input ${i} (${input.length} bytes)`).toBe(want);
  });
}

describe.each(MODES)(`hashMany, $name (seed ${seed})`, ({ options }) => {
  it('equals hash() for a buffer of equal-sized inputs, at every boundary length and count', () => {
    for (const itemLength of LENGTHS.filter((n) => n > 0)) {
      for (const count of [1, 2, 3, 4, 5, 8, 17]) {
        const data = rng.bytes(itemLength * count);
        const inputs = Array.from({ length: count }, (_, i) => data.subarray(i * itemLength, (i + 1) * itemLength));
        for (const length of [32, 20, 64]) expectEach(hashMany(data, { ...options, itemLength, length }), inputs, options, length);
      }
    }
  });

  it('equals hash() for arrays of mixed lengths, runs of equal ones and strings', () => {
    for (let round = 0; round < 20; round++) {
      const inputs: Uint8Array[] = [];
      while (inputs.length < 40) {
        const length = rng.int(3) === 0 ? rng.int(20000) : LENGTHS[rng.int(LENGTHS.length)]!;
        for (let run = 1 + rng.int(6); run > 0; run--) inputs.push(rng.bytes(length));
      }
      expectEach(hashMany(inputs, options), inputs, options, 32);
    }
    const text = ['', 'a', 'é', 'x'.repeat(64), '🦀'.repeat(300)];
    expectEach(
      hashMany(text, options),
      text.map((s) => new TextEncoder().encode(s)),
      options,
      32,
    );
  });

  it('agrees with @noble/hashes', () => {
    const inputs = LENGTHS.map((n) => rng.bytes(n));
    const digests = hashMany(inputs, { ...options, length: 40 });
    const theirs =
      'key' in options
        ? { key: options.key, dkLen: 40 }
        : 'context' in options
          ? { context: new TextEncoder().encode(options.context), dkLen: 40 }
          : { dkLen: 40 };
    inputs.forEach((input, i) => {
      expect(b3.toHex(digests.subarray(i * 40, (i + 1) * 40))).toBe(b3.toHex(noble(input, theirs)));
    });
  });
});

describe('hashMany', () => {
  it('hashes batches larger than any one call (the staging buffer, the addon gather buffer)', () => {
    const itemLength = 4096;
    const data = rng.bytes(itemLength * 1200); // 4.7 MiB: past 4 MiB and the 1 MiB thread threshold
    const inputs = Array.from({ length: 1200 }, (_, i) => data.subarray(i * itemLength, (i + 1) * itemLength));
    expectEach(hashMany(data, { itemLength }), inputs, {}, 32);
    expectEach(hashMany(inputs), inputs, {}, 32);
    const large = [rng.bytes(70000), rng.bytes(64), rng.bytes(1 << 20), rng.bytes(64)];
    expectEach(hashMany(large, { length: 2000 }), large, {}, 2000);
  });

  it('writes into a given buffer, even one that holds the inputs', () => {
    const inputs = [rng.bytes(64), rng.bytes(64), rng.bytes(4096)];
    const into = new Uint8Array(200).fill(7);
    const out = hashMany(inputs, { into });
    expect(out.buffer).toBe(into.buffer);
    expect(out.length).toBe(96);
    expect(into.subarray(96).every((b) => b === 7)).toBe(true);
    expectEach(out, inputs, {}, 32);
    // Digests over the inputs themselves: each input is read before any is written.
    const data = rng.bytes(64 * 8);
    const copies = Array.from({ length: 8 }, (_, i) => data.slice(i * 64, (i + 1) * 64));
    hashMany(data, { itemLength: 64, into: data });
    expectEach(data.subarray(0, 256), copies, {}, 32);
  });

  it('returns an empty array for no inputs', () => {
    expect(hashMany([]).length).toBe(0);
    expect(hashMany(new Uint8Array(0), { itemLength: 64 }).length).toBe(0);
  });

  it('rejects bad arguments with the right error, naming them, and writes nothing', () => {
    const into = new Uint8Array(96).fill(9);
    const cases: [() => unknown, ErrorConstructor, RegExp][] = [
      [() => hashMany([new Uint8Array(4), 5 as never, new Uint8Array(4)], { into }), TypeError, /inputs\[1\]/],
      [() => hashMany([new Uint8Array(4), {} as never], { into }), TypeError, /inputs\[1\]/],
      [() => hashMany(new Uint8Array(64), { into }), TypeError, /itemLength/],
      [() => hashMany(new Uint8Array(64), { itemLength: 0, into }), RangeError, /itemLength/],
      [() => hashMany(new Uint8Array(64), { itemLength: 48, into }), RangeError, /itemLength/],
      [() => hashMany(new Uint8Array(64), { itemLength: '64' as never, into }), TypeError, /itemLength/],
      [() => hashMany([new Uint8Array(4)], { itemLength: 4, into }), TypeError, /itemLength/],
      [() => hashMany([new Uint8Array(4)], { length: -1, into }), RangeError, /length/],
      [() => hashMany([new Uint8Array(4)], { key: new Uint8Array(31), into }), RangeError, /key/],
      [() => hashMany([new Uint8Array(4)], { key: KEY, context: CONTEXT, into }), TypeError, /context/],
      [() => hashMany(new Array(4).fill(new Uint8Array(1)), { into }), RangeError, /into/],
      [() => hashMany([new Uint8Array(4)], new Uint8Array(32) as never), TypeError, /options/],
      [() => hashMany('abc' as never), TypeError, /inputs/],
    ];
    for (const [call, type, pattern] of cases) {
      const error = thrownBy(call);
      expect(error, String(call)).toBeInstanceOf(type);
      expect((error as Error).message).toMatch(pattern);
      expect(into.every((b) => b === 9)).toBe(true);
    }
    // Still works after the failures.
    const inputs = [new Uint8Array(64), new Uint8Array(64)];
    expectEach(hashMany(inputs), inputs, {}, 32);
  });

  it('hashes an input as it was when read, though a later element getter detaches it', () => {
    const first = rng.bytes(4096);
    const copy = first.slice();
    const inputs = [first, new Uint8Array(64)];
    Object.defineProperty(inputs, 1, {
      get() {
        structuredClone(first.buffer, { transfer: [first.buffer] });
        return new Uint8Array(64);
      },
    });
    expectEach(hashMany(inputs), [copy, new Uint8Array(64)], {}, 32);
    expect(first.length).toBe(0);
  });

  it('hashes the inputs the array had when the call began, whatever its getters do to its length', () => {
    const grown = [new Uint8Array(3), new Uint8Array(5)];
    Object.defineProperty(grown, 0, {
      get() {
        grown.push(new Uint8Array(7), new Uint8Array(9));
        return new Uint8Array(3);
      },
    });
    expectEach(hashMany(grown), [new Uint8Array(3), new Uint8Array(5)], {}, 32);
    const shrunk = [new Uint8Array(3), new Uint8Array(5), new Uint8Array(7)];
    Object.defineProperty(shrunk, 0, {
      get() {
        shrunk.length = 1;
        return new Uint8Array(3);
      },
    });
    const error = thrownBy(() => hashMany(shrunk));
    expect(error).toBeInstanceOf(TypeError);
    expect(String(error)).toMatch(/inputs\[1\]/);
  });

  // Two SharedArrayBuffer objects over one memory (structuredClone of one in
  // the same thread gives a second): no check of buffer identity sees that.
  const sharedClone = typeof SharedArrayBuffer === 'function' && typeof structuredClone === 'function';

  it.runIf(sharedClone)('hashes the inputs as they were when `into` is a second SharedArrayBuffer object over them', () => {
    // 4096 inputs of 64 bytes (several staging buffers, several lane
    // groups), digests written from the middle: before, the digests of early
    // inputs were written over later inputs not yet hashed.
    const itemLength = 64;
    const count = 4096;
    const shared = new SharedArrayBuffer(itemLength * count + 32 * count);
    const data = new Uint8Array(shared, 0, itemLength * count);
    data.set(rng.bytes(data.length));
    const copies = Array.from({ length: count }, (_, i) => data.slice(i * itemLength, (i + 1) * itemLength));
    const alias = structuredClone(shared);
    expect(alias).not.toBe(shared);
    const from = (itemLength * count) / 2;
    for (const [inputs, options] of [
      [data, { itemLength }],
      [copies.map((_, i) => new Uint8Array(shared, i * itemLength, itemLength)), {}],
    ] as const) {
      data.set(concatBytes(copies));
      const into = new Uint8Array(alias, from, 32 * count);
      const out = hashMany(inputs as Uint8Array, { ...options, into });
      expect(out.buffer).toBe(alias);
      expectEach(out, copies, {}, 32);
      // Bytes before `into` are inputs no digest may touch.
      expect(data.subarray(0, from)).toEqual(concatBytes(copies.slice(0, count / 2)));
    }
  });

  it('keys every input with the key as it was when the call began, even when `into` is over the key', () => {
    // Inputs hashed one at a time (64 KiB and more) and in batches, so the
    // key is loaded again after digests are out: before, the first digest
    // became the key of the rest.
    const inputs = [rng.bytes(70_000), rng.bytes(64), rng.bytes(100), rng.bytes(66_000), rng.bytes(3000)];
    const buffers: ArrayBufferLike[] = [new ArrayBuffer(32 * inputs.length)];
    if (sharedClone) buffers.push(new SharedArrayBuffer(32 * inputs.length));
    for (const buffer of buffers) {
      const key = new Uint8Array(buffer, 32, 32);
      key.set(KEY);
      const over = buffer instanceof ArrayBuffer ? buffer : structuredClone(buffer);
      const out = hashMany(inputs, { key, into: new Uint8Array(over) });
      expectEach(out, inputs, { key: KEY }, 32);
    }
  });
});
