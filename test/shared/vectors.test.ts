import { describe, expect, it } from 'vitest';
import vectors from '../vectors.json';
import { CONTEXT, KEY, load, pattern } from './setup.js';

const b3 = await load();
const { hash, keyedHash, deriveKey, createHasher, toHex } = b3;

type Case = (typeof vectors.cases)[number];
const modes = {
  hash: { options: {}, oneShot: (input: Uint8Array, length?: number) => hash(input, { length }) },
  keyed_hash: { options: { key: KEY }, oneShot: (input: Uint8Array, length?: number) => keyedHash(KEY, input, { length }) },
  derive_key: {
    options: { context: CONTEXT },
    oneShot: (input: Uint8Array, length?: number) => deriveKey(CONTEXT, input, { length }),
  },
} as const;

describe('official test vectors', () => {
  it('use the official key, context and 35 lengths', () => {
    expect(vectors.key).toBe(new TextDecoder().decode(KEY));
    expect(vectors.context_string).toBe(CONTEXT);
    expect(vectors.cases).toHaveLength(35);
  });

  for (const [mode, { options, oneShot }] of Object.entries(modes)) {
    describe(mode, () => {
      it.each(vectors.cases.map((c: Case) => [c.input_len, c] as const))('length %i', (length, c) => {
        const expected = c[mode as keyof typeof modes];
        const input = pattern(length);
        expect(toHex(oneShot(input, 131))).toBe(expected);
        expect(toHex(oneShot(input))).toBe(expected.slice(0, 64));
        expect(toHex(hash(input, { ...options, length: 131 }))).toBe(expected);

        using hasher = createHasher(options);
        // Odd-sized updates cross block and chunk boundaries mid-call.
        for (let i = 0; i < length; i += 997) hasher.update(input.subarray(i, i + 997));
        expect(toHex(hasher.digest({ length: 131 }))).toBe(expected);
        expect(toHex(hasher.digest())).toBe(expected.slice(0, 64));
        using reader = hasher.xof();
        expect(toHex(reader.read(100)) + toHex(reader.read(31))).toBe(expected);
      });
    });
  }
});
