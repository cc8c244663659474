// The browser compat entry beyond blake3's own browser tests: the error
// before load(), Hash results, the three encodings, and the same state as
// the main entry's init().

import * as compat from 'blake3-kit/compat';
import { describe, expect, it } from 'vitest';

// This file runs in a page of its own (vitest isolates browser test files):
// nothing has loaded the wasm before the first test.
describe('blake3-kit/compat in the browser', () => {
  it('throws a clear error before load()', () => {
    expect(() => compat.hash('abc')).toThrow(/call `await load\(\)` before hashing/);
    expect(() => compat.createHash()).toThrow(/await load\(\)/);
  });

  it('load() resolves to the API, and init() from blake3-kit gets the same backend', async () => {
    const api = await compat.load();
    expect(api.hash).toBe(compat.hash);
    expect(await compat.default()).toBe(api);
    const main = await import('blake3-kit');
    const inUse = main.backend();
    expect(inUse).toMatch(/^wasm-/);
    expect((await main.init()).backend).toBe(inUse);
    expect(main.toHex(main.hash('abc'))).toBe(compat.hash('abc').toString());
  });

  it('returns Hash objects (Uint8Array with equals and toString) from every output', () => {
    const hasher = compat.createHash().update('hello');
    for (const value of [
      compat.hash('hello'),
      compat.keyedHash(new Uint8Array(32), 'x'),
      compat.deriveKey('c', 'x'),
      hasher.digest(),
      hasher.reader().read(32),
      hasher.reader().toArray(),
    ]) {
      expect(value).toBeInstanceOf(compat.Hash);
      expect(value).toBeInstanceOf(Uint8Array);
    }
    expect(compat.hash('hello').equals(hasher.digest())).toBe(true);
    expect(compat.hash('hello').equals(compat.hash('hello!'))).toBe(false);
    expect(compat.hash('hello').equals('not bytes')).toBe(false);
  });

  it('encodes hex, base64 (long outputs too) and utf8, and refuses others with a TypeError', () => {
    const long = compat.hash('hello', { length: 200_000 });
    const binary = Array.from(long, (byte) => String.fromCharCode(byte)).join('');
    expect(long.toString('base64')).toBe(btoa(binary));
    expect(compat.hash('hello').toString('hex')).toBe('ea8f163db38682925e4491c5e58d4bb3506ef8c14eb78a86e908c5624a67200f');
    expect(compat.createHash().update('hello').digest('utf8')).toBe(new TextDecoder().decode(compat.hash('hello')));
    expect(() => compat.hash('hello').toString('latin1' as 'hex')).toThrow(TypeError);
    expect(() => compat.createHash().digest('latin1' as 'hex')).toThrow(/unknown encoding "latin1"/);
  });
});
