// Differential tests against @noble/hashes, an independent implementation.
import { blake3 as noble } from '@noble/hashes/blake3.js';
import { describe, expect, it } from 'vitest';
import { CONTEXT, concatBytes, KEY, load, random, seed } from './setup.js';

const b3 = await load();
const utf8 = new TextEncoder();

const modes = [
  { name: 'hash', ours: {}, theirs: {} },
  { name: 'keyed_hash', ours: { key: KEY }, theirs: { key: KEY } },
  { name: 'derive_key', ours: { context: CONTEXT }, theirs: { context: utf8.encode(CONTEXT) } },
] as const;

/** Every length within ±64 of each multiple of 1024 up to 16 KiB. */
const boundaryLengths: number[] = [];
for (let multiple = 1024; multiple <= 16 * 1024; multiple += 1024) {
  for (let length = multiple - 64; length <= multiple + 64; length++) boundaryLengths.push(length);
}

describe.each(modes)('$name against @noble/hashes (seed $seed)'.replace('$seed', String(seed)), ({ ours, theirs }) => {
  const rng = random(seed);
  const source = rng.bytes(256 * 1024 + 64);

  it('every length within ±64 of multiples of 1024 up to 16 KiB', () => {
    for (const length of boundaryLengths) {
      // A changing start keeps the inputs from sharing prefixes.
      const input = source.subarray(length % 61, (length % 61) + length);
      const expected = noble(input, theirs);
      const actual = b3.hash(input, ours);
      if (!equal(actual, expected)) expect.fail(`length ${length}: ${b3.toHex(actual)} != ${b3.toHex(expected)}`);
    }
  });

  it('random lengths up to 256 KiB, with random output lengths', () => {
    for (let i = 0; i < 48; i++) {
      const length = i < 8 ? rng.int(256) : rng.int(256 * 1024 + 1);
      const outLength = rng.int(4) === 0 ? rng.int(300) : 32;
      const input = source.subarray(rng.int(64), undefined).subarray(0, length);
      expect(b3.toHex(b3.hash(input, { ...ours, length: outLength })), `length ${length}`).toBe(
        b3.toHex(noble(input, { ...theirs, dkLen: outLength })),
      );
    }
  });

  it('random update splits, including 3-way splits and empty updates', () => {
    for (let i = 0; i < 64; i++) {
      const length = rng.int(i % 2 ? 20_000 : 140_000);
      const input = source.subarray(0, length);
      const expected = b3.toHex(noble(input, theirs));
      const cuts = [rng.int(length + 1), rng.int(length + 1)].sort((a, b) => a - b);
      using hasher = b3.createHasher(ours);
      hasher.update(input.subarray(0, cuts[0]));
      if (i % 3 === 0) hasher.update(new Uint8Array(0));
      hasher.update(input.subarray(cuts[0], cuts[1])).update(input.subarray(cuts[1]));
      expect(b3.toHex(hasher.digest()), `length ${length} cut at ${cuts}`).toBe(expected);
    }
    // Many small random pieces, the shape of a network stream.
    using hasher = b3.createHasher(ours);
    let offset = 0;
    while (offset < 70_000) {
      const step = rng.int(3) === 0 ? 0 : rng.int(rng.int(2) ? 70 : 5000);
      hasher.update(source.subarray(offset, offset + step));
      offset += step;
    }
    expect(b3.toHex(hasher.digest())).toBe(b3.toHex(noble(source.subarray(0, offset), theirs)));
  });

  it('XOF reads at random positions and sizes equal slices of one long output', () => {
    const input = source.subarray(0, rng.int(5000));
    const long = noble(input, { ...theirs, dkLen: 200_000 });
    using hasher = b3.createHasher(ours).update(input);
    using reader = hasher.xof();
    for (let i = 0; i < 100; i++) {
      const position = rng.int(long.length);
      const size = Math.min(rng.int(i % 10 === 0 ? 100_000 : 300), long.length - position);
      reader.position = i % 2 ? BigInt(position) : position;
      const read = i % 3 === 0 ? reader.readInto(new Uint8Array(size)) : reader.read(size);
      if (!equal(read, long.subarray(position, position + size))) expect.fail(`read ${size} at ${position}`);
      expect(reader.position).toBe(BigInt(position + size));
    }
    // Sequential reads continue where the last one ended.
    reader.position = 7;
    const pieces = [reader.read(57), reader.read(1), reader.read(70_000)];
    expect(equal(concatBytes(pieces), long.subarray(7, 7 + 57 + 1 + 70_000))).toBe(true);
  });
});

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
