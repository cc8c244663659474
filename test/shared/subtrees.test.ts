// The public subtree API (hazmat's model) on every backend: any valid tree of
// subtree chaining values and merges gives hash() of the whole, in all three
// modes; every misuse is a RangeError or TypeError naming the argument.
import { blake3 as noble } from '@noble/hashes/blake3.js';
import { toHex } from 'blake3-kit';
import { leftSubtreeLength, maxSubtreeLength, mergeSubtrees, mergeSubtreesRoot, subtreeChainingValue } from 'blake3-kit/bao';
import { describe, expect, it } from 'vitest';
import { CONTEXT, KEY, loadBao, pattern, random, seed, thrownBy } from './setup.js';

const b3 = await loadBao();

const modes = [
  { name: 'hash', options: {}, noble: {} },
  { name: 'keyed_hash', options: { key: KEY }, noble: { key: KEY } },
  { name: 'derive_key', options: { context: CONTEXT }, noble: { context: new TextEncoder().encode(CONTEXT) } },
] as const;

const rng = random(seed);

function fail(run: () => unknown, type: ErrorConstructor, message: RegExp) {
  const caught = thrownBy(run);
  expect(caught).toBeInstanceOf(type);
  expect((caught as Error).message).toMatch(message);
}

/** The chaining value of input[offset, offset + size), split into subtrees
 * down to a random depth. */
function cv(input: Uint8Array, offset: number, size: number, options: object): Uint8Array {
  if (size <= 1024 || rng.int(3) === 0) return subtreeChainingValue(input.subarray(offset, offset + size), { ...options, offset });
  const left = leftSubtreeLength(size);
  return mergeSubtrees(cv(input, offset, left, options), cv(input, offset + left, size - left, options), options);
}

describe(`subtrees merge into the hash of the whole (seed ${seed})`, () => {
  const sizes = [1025, 2048, 2049, 3071, 3072, 4096, 4097, 8191, 16_385, 65_536, 100_000, 1 << 20];
  for (let i = 0; i < 8; i++) sizes.push(1025 + rng.int(300_000));

  it.each(modes)('$name, random tree shapes, with extended output', ({ options, noble: theirs }) => {
    for (const size of sizes) {
      const input = pattern(size);
      const left = leftSubtreeLength(size);
      const root = mergeSubtreesRoot(cv(input, 0, left, options), cv(input, left, size - left, options), { ...options, length: 131 });
      expect(toHex(root), `size ${size}`).toBe(toHex(noble(input, { ...theirs, dkLen: 131 })));
      expect(toHex(root.subarray(0, 32))).toBe(toHex(b3.hash(input, options)));
    }
  });

  it('a part hashed whole at offset 0 equals its split tree', () => {
    const input = pattern(8192);
    const whole = subtreeChainingValue(input);
    const halves = mergeSubtrees(subtreeChainingValue(input.subarray(0, 4096)), subtreeChainingValue(input.subarray(4096), { offset: 4096 }));
    expect(toHex(whole)).toBe(toHex(halves));
    // Strings are hashed as UTF-8, as hash() does.
    expect(toHex(subtreeChainingValue('abc'))).toBe(toHex(subtreeChainingValue(new TextEncoder().encode('abc'))));
  });

  it('offsets may be bigints, up to the end of the tree', () => {
    const chunk = pattern(1024);
    expect(toHex(subtreeChainingValue(chunk, { offset: 2048n }))).toBe(toHex(subtreeChainingValue(chunk, { offset: 2048 })));
    // The last chunk of the longest input BLAKE3 takes (2^64 - 1 bytes).
    expect(subtreeChainingValue(chunk.subarray(1), { offset: 2n ** 64n - 1024n })).toHaveLength(32);
    fail(() => subtreeChainingValue(chunk, { offset: 2n ** 64n - 1024n }), RangeError, /2\^64/);
  });
});

describe('the sizes of the tree', () => {
  it('leftSubtreeLength is the largest power of two of chunks below the length', () => {
    expect([1025, 2048, 2049, 4096, 4097, 1 << 20, (1 << 20) + 1].map((n) => leftSubtreeLength(n))).toEqual([
      1024,
      1024,
      2048,
      2048,
      4096,
      1 << 19,
      1 << 20,
    ]);
    expect(leftSubtreeLength(2n ** 63n + 1n)).toBe(2n ** 63n);
  });

  it('maxSubtreeLength is 1024 times the largest power of two dividing the chunk index', () => {
    expect([1024, 2048, 3072, 4096, 6144, 1 << 30].map((n) => maxSubtreeLength(n))).toEqual([1024n, 2048n, 1024n, 4096n, 2048n, 1n << 30n]);
    expect(maxSubtreeLength(0)).toBeUndefined();
  });
});

describe('misuse is an error naming the argument, and loses nothing', () => {
  const chunk = pattern(1024);

  it('RangeError for offsets and lengths that break the tree', () => {
    fail(() => subtreeChainingValue(chunk, { offset: 1000 }), RangeError, /options\.offset must be a multiple of 1024/);
    fail(() => subtreeChainingValue(pattern(2048), { offset: 1024 }), RangeError, /subtree at offset 1024 holds at most 1024 bytes/);
    fail(() => subtreeChainingValue(pattern(1025), { offset: 3072 }), RangeError, /at most 1024/);
    fail(() => subtreeChainingValue(new Uint8Array(0)), RangeError, /at least one byte/);
    fail(() => subtreeChainingValue(chunk, { offset: -1024 }), RangeError, /options\.offset/);
    fail(() => subtreeChainingValue(chunk, { offset: 2n ** 64n }), RangeError, /options\.offset/);
    fail(() => mergeSubtrees(new Uint8Array(31), new Uint8Array(32)), RangeError, /left must be a 32-byte chaining value/);
    fail(() => mergeSubtreesRoot(new Uint8Array(32), new Uint8Array(33)), RangeError, /right must be a 32-byte/);
    fail(() => mergeSubtreesRoot(new Uint8Array(32), new Uint8Array(32), { length: -1 }), RangeError, /options\.length/);
    fail(() => leftSubtreeLength(1024), RangeError, /more than 1024/);
    fail(() => maxSubtreeLength(100), RangeError, /offset must be a multiple of 1024/);
    fail(() => subtreeChainingValue(chunk, { key: new Uint8Array(31) }), RangeError, /options\.key must be 32 bytes/);
  });

  it('TypeError for wrong types', () => {
    fail(() => subtreeChainingValue(42 as never), TypeError, /input/);
    fail(() => subtreeChainingValue(chunk, { offset: '1024' as never }), TypeError, /options\.offset/);
    fail(() => subtreeChainingValue(chunk, KEY as never), TypeError, /options must be a plain object/);
    fail(() => mergeSubtrees('x'.repeat(32) as never, new Uint8Array(32)), TypeError, /left/);
    fail(() => mergeSubtrees(new Uint8Array(32), new Uint8Array(32), { key: KEY, context: CONTEXT }), TypeError, /cannot be used together/);
  });

  it('hashing goes on right after a failed call', () => {
    const hasher = b3.createHasher().update(chunk);
    thrownBy(() => subtreeChainingValue(pattern(4096), { offset: 1024 }));
    thrownBy(() => mergeSubtrees(new Uint8Array(1), new Uint8Array(32), { key: KEY }));
    expect(toHex(hasher.digest())).toBe(toHex(noble(chunk)));
    expect(toHex(mergeSubtreesRoot(subtreeChainingValue(chunk), subtreeChainingValue(chunk, { offset: 1024 })))).toBe(
      toHex(noble(new Uint8Array([...chunk, ...chunk]))),
    );
  });
});
