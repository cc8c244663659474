// Subtree chaining values merged in the tree's shape equal serial hashing:
// the arithmetic every parallel path relies on, checked on one thread.
import { mergeNonRoot, rootFromPieces, chainingValueAtOffset } from '../../src/wasm/subtree.js';
import { leftSubtreeLength } from '../../src/tree/geometry.js';
import { MODE_DERIVE_KEY, MODE_HASH, MODE_KEYED } from '../../src/modes.js';
import { keyArea, core } from '../../src/wasm/core.js';
import { describe, expect, it } from 'vitest';
import { KEY, load, pattern, random, seed } from '../shared/setup.js';

const b3 = await load();

function contextKey(context: string): Uint8Array {
  b3.deriveKey(context, ''); // loads the context key into the key area
  return keyArea.slice();
}

const modes = [
  { name: 'hash', mode: MODE_HASH, key: undefined, options: {} },
  { name: 'keyed', mode: MODE_KEYED, key: KEY, options: { key: KEY } },
  { name: 'derive_key', mode: MODE_DERIVE_KEY, key: contextKey('subtree ctx'), options: { context: 'subtree ctx' } },
] as const;

function viaPieces(input: Uint8Array, pieceLength: number, m: (typeof modes)[number], outLength = 32): Uint8Array {
  const cvs: Uint8Array[] = [];
  for (let offset = 0; offset < input.length; offset += pieceLength) {
    cvs.push(chainingValueAtOffset(m.mode, m.key, offset, input.subarray(offset, offset + pieceLength)));
  }
  return rootFromPieces(m.mode, m.key, cvs, pieceLength, input.length, outLength);
}

describe.each(modes)(`subtrees in $name mode (seed ${seed})`, (m) => {
  it('match serial hashing around piece boundaries, with extended output', () => {
    const piece = 4096;
    const input = pattern(piece * 9 + 1025, 3);
    for (const length of [
      piece + 1,
      piece + 1023,
      piece + 1024,
      piece + 1025,
      2 * piece - 1,
      2 * piece,
      2 * piece + 1,
      3 * piece,
      5 * piece + 7,
      8 * piece,
      9 * piece + 1025,
    ]) {
      const bytes = input.subarray(0, length);
      expect(b3.toHex(viaPieces(bytes, piece, m)), `length ${length}`).toBe(b3.toHex(b3.hash(bytes, m.options)));
    }
    const bytes = input.subarray(0, 7 * piece + 3);
    expect(b3.toHex(viaPieces(bytes, piece, m, 70_000))).toBe(b3.toHex(b3.hash(bytes, { ...m.options, length: 70_000 })));
  });

  it('match serial hashing for random lengths and piece sizes', () => {
    const rng = random(seed);
    for (let i = 0; i < 20; i++) {
      const piece = 1024 * 2 ** rng.int(7);
      const length = piece + 1 + rng.int(piece * 12);
      const bytes = pattern(length, i);
      expect(b3.toHex(viaPieces(bytes, piece, m)), `length ${length} piece ${piece}`).toBe(b3.toHex(b3.hash(bytes, m.options)));
    }
  });
});

describe('tree arithmetic', () => {
  it('splits like the official left_subtree_len', () => {
    expect(leftSubtreeLength(1025)).toBe(1024);
    expect(leftSubtreeLength(2048)).toBe(1024);
    expect(leftSubtreeLength(2049)).toBe(2048);
    expect(leftSubtreeLength(2 ** 50 + 1)).toBe(2 ** 50);
    expect(leftSubtreeLength(2 ** 50)).toBe(2 ** 49);
  });

  it('merging never disturbs live hashers', () => {
    const input = pattern(5000, 1); // large enough for the hasher to hold a wasm slot
    using hasher = b3.createHasher().update(input);
    expect(core!.slots_in_use()).toBeGreaterThan(0);
    mergeNonRoot(MODE_HASH, undefined, new Uint8Array(32), new Uint8Array(32));
    expect(b3.toHex(hasher.digest())).toBe(b3.toHex(b3.hash(input)));
  });
});
