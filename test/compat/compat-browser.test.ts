// The browser compat entry beyond blake3's own browser tests: the error
// before load(), Hash results, the three encodings, the same state as the
// main entry's init(), and blake3-wasm's classes (2.x's BaseHash and
// BaseHashReader, 3.x's WasmHasher and HashRaw), which the browser hasher
// and reader extend (test/compat/compat-extra.test.ts compares them with
// theirs in Node).

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

  it('the hasher is a BrowserHasher, WasmHasher (3.x) and BaseHash (2.x); its reader a BrowserHashReader and BaseHashReader', () => {
    const hasher = compat.createKeyed(new Uint8Array(32).fill(1));
    expect(hasher).toBeInstanceOf(compat.BrowserHasher);
    expect(hasher).toBeInstanceOf(compat.WasmHasher);
    expect(hasher).toBeInstanceOf(compat.BaseHash);
    const reader = hasher.update('x').reader();
    expect(reader).toBeInstanceOf(compat.BrowserHashReader);
    expect(reader).toBeInstanceOf(compat.BaseHashReader);
    expect(reader.toArray()).toEqual(compat.keyedHash(new Uint8Array(32).fill(1), 'x'));
  });

  it('subclasses of BaseHash, BaseHashReader and WasmHasher work as in blake3-wasm', () => {
    const calls: string[] = [];
    const inner = compat.createHash();
    const implementation = {
      update: (bytes: Uint8Array) => void (calls.push(`update ${bytes.length}`), inner.update(bytes)),
      digest: (into: Uint8Array) => void (calls.push(`digest ${into.length}`), into.set(inner.digest({ length: into.length }))),
      reader: () => ({ fill: (target: Uint8Array) => target.fill(7), set_position: (to: bigint) => void calls.push(`seek ${to}`) }),
      free: () => void calls.push('free'),
    };
    class Sevens extends compat.BaseHashReader<Uint8Array> {
      protected alloc(bytes: number): Uint8Array {
        return new Uint8Array(bytes);
      }
    }
    const hasher = new compat.BaseHash(
      implementation,
      (n): Uint8Array => new Uint8Array(n),
      (internal) => new Sevens(internal),
    );
    expect(hasher.update('héllo').digest({ length: 40, dispose: false })).toEqual(new Uint8Array(compat.hash('héllo', { length: 40 })));
    const reader = hasher.reader({ dispose: true });
    expect(reader.read(3)).toEqual(new Uint8Array([7, 7, 7]));
    // reader({ dispose: true }) frees the hasher; the reader lives on.
    expect(calls).toEqual(['update 6', 'digest 40', 'free', 'seek 3']);

    class Plain extends compat.WasmHasher<Uint8Array> {
      protected alloc(n: number): Uint8Array {
        return new Uint8Array(n);
      }
    }
    const plain = new Plain(compat.getWasm(), compat.HashRaw.derive(new TextEncoder().encode('ctx')));
    expect(plain.update('abc').digest()).toEqual(new Uint8Array(compat.deriveKey('ctx', 'abc')));
    expect(plain.digest()).not.toBeInstanceOf(compat.Hash);
    expect(compat.hashOneShot(new TextEncoder().encode('abc'), 50)).toEqual(new Uint8Array(compat.hash('abc', { length: 50 })));
  });
});
