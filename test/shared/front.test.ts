// One front over every backend: the Hasher that createHasher() returns, the
// exported class and the one init() hands out are the same, and work alike.
import { Hasher, XofReader, createHasher } from 'blake3-kit';
import { describe, expect, it } from 'vitest';
import { CONTEXT, KEY, load, pattern } from './setup.js';

const b3 = await load();

describe('one Hasher and one XofReader', () => {
  it('createHasher(), new Hasher() and b3.Hasher are one class', () => {
    expect(b3.Hasher).toBe(Hasher);
    expect(b3.XofReader).toBe(XofReader);
    expect(b3.createHasher).toBe(createHasher);
    for (const options of [undefined, { key: KEY }, { context: CONTEXT }]) {
      for (const made of [createHasher(options), new Hasher(options), new b3.Hasher(options), b3.createHasher(options)]) {
        expect(made.constructor).toBe(Hasher);
        expect(made).toBeInstanceOf(Hasher);
        made.dispose();
      }
    }
  });

  it('new Hasher() hashes as hash() does, whatever state the backend makes', () => {
    // 100 bytes stay in the JS batch; 1 MiB makes backend state.
    for (const length of [100, 1 << 20]) {
      const input = pattern(length);
      using hasher = new Hasher({ key: KEY });
      hasher.update(input.subarray(0, 10)).update(input.subarray(10));
      expect(b3.toHex(hasher.digest({ length: 40 }))).toBe(b3.toHex(b3.hash(input, { key: KEY, length: 40 })));
      using reader = hasher.xof();
      expect(reader).toBeInstanceOf(XofReader);
      expect(b3.toHex(reader.read(40))).toBe(b3.toHex(b3.hash(input, { key: KEY, length: 40 })));
      using copy = hasher.clone();
      expect(copy.constructor).toBe(Hasher);
      expect(b3.toHex(copy.update('x').digest())).toBe(b3.toHex(b3.hash(new Uint8Array([...input, 120]), { key: KEY })));
    }
  });

  it('a key changed after the hasher was made does not reach it', () => {
    const key = KEY.slice();
    using hasher = new Hasher({ key });
    key.fill(0);
    expect(b3.toHex(hasher.update('abc').digest())).toBe(b3.toHex(b3.keyedHash(KEY, 'abc')));
  });
});
