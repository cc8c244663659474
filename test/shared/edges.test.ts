import { blake3 as noble } from '@noble/hashes/blake3.js';
import { describe, expect, it } from 'vitest';
import { KEY, load, pattern } from './setup.js';

const b3 = await load();
const { hash, createHasher, toHex } = b3;
const reference = (input: Uint8Array, opts = {}) => toHex(noble(input, opts));
const STAGING = 64 * 1024;

describe('staging-buffer boundaries', () => {
  it.each([STAGING - 1, STAGING, STAGING + 1, 2 * STAGING - 1, 2 * STAGING, 2 * STAGING + 1, 3 * STAGING + 1023])(
    'length %i: one-shot, streaming and long output',
    (length) => {
      const input = pattern(length, 7);
      const expected = reference(input);
      expect(toHex(hash(input))).toBe(expected);
      expect(toHex(createHasher().update(input).digest())).toBe(expected);
      const long = noble(input, { dkLen: STAGING + 65 });
      expect(toHex(hash(input, { length: STAGING + 65 }))).toBe(toHex(long));
      expect(toHex(hash(input, { length: STAGING }))).toBe(toHex(long.subarray(0, STAGING)));
    },
  );

  it('strings around the staging buffer, with multi-byte characters at the seams', () => {
    const units = Math.floor(STAGING / 3);
    for (const text of ['a'.repeat(units), 'a'.repeat(units + 1), '€'.repeat(units + 5), `x${'😀'.repeat(units)}`, 'é'.repeat(STAGING)]) {
      const bytes = new TextEncoder().encode(text);
      expect(toHex(hash(text))).toBe(reference(bytes));
      expect(toHex(createHasher().update(text).digest())).toBe(reference(bytes));
    }
  });
});

describe('inputs', () => {
  it('accepts Buffer-like subarrays with an odd byteOffset and leaves them unchanged', () => {
    const backing = pattern(5000, 3);
    const copy = backing.slice();
    const view = backing.subarray(13, 4013);
    expect(view.byteOffset).toBe(13);
    expect(toHex(hash(view))).toBe(reference(copy.subarray(13, 4013)));
    expect(toHex(createHasher().update(view).digest())).toBe(reference(copy.subarray(13, 4013)));
    expect(backing).toEqual(copy);
  });

  it('hashes ArrayBuffer, DataView and other typed arrays by their bytes', () => {
    const bytes = pattern(300);
    const expected = reference(bytes);
    expect(toHex(hash(bytes.slice().buffer))).toBe(expected);
    expect(toHex(hash(new DataView(bytes.slice().buffer)))).toBe(expected);
    expect(toHex(hash(new Uint16Array(bytes.slice().buffer)))).toBe(expected);
    const offsetView = new DataView(pattern(310).buffer, 5, 300);
    expect(toHex(hash(offsetView))).toBe(reference(pattern(310).subarray(5, 305)));
  });

  it('hashes strings as UTF-8, lone surrogates as U+FFFD like TextEncoder', () => {
    for (const text of ['', 'abc', 'żółć', '日本語', '🦀 crab', '\ud800', 'a\udc00b', '\ud83d']) {
      const bytes = new TextEncoder().encode(text);
      expect(toHex(hash(text)), text).toBe(reference(bytes));
      expect(toHex(b3.keyedHash(KEY, text))).toBe(reference(bytes, { key: KEY }));
    }
  });

  it('accepts SharedArrayBuffer-backed views where they exist', () => {
    if (typeof SharedArrayBuffer === 'undefined') return;
    const shared = new Uint8Array(new SharedArrayBuffer(1000));
    shared.set(pattern(1000));
    expect(toHex(hash(shared))).toBe(reference(pattern(1000)));
    expect(toHex(hash(shared.buffer))).toBe(reference(pattern(1000)));
  });

  it('returns fresh arrays, never views of wasm memory', () => {
    const a = hash('a');
    const b = hash('b');
    expect(a.buffer).not.toBe(b.buffer);
    expect(a.byteOffset).toBe(0);
    expect(a.buffer.byteLength).toBe(32);
    const before = toHex(a);
    hash(pattern(1000));
    expect(toHex(a)).toBe(before);
  });
});

describe('hashers', () => {
  it('interleaved hashers in different modes do not disturb each other', () => {
    const plain = createHasher();
    const keyed = createHasher({ key: KEY });
    const derived = createHasher({ context: 'ctx A' });
    const input = pattern(200_000);
    for (let i = 0; i < input.length; i += 10_000) {
      plain.update(input.subarray(i, i + 10_000));
      hash(input.subarray(0, i)); // one-shots between updates
      keyed.update(input.subarray(i, i + 10_000));
      b3.deriveKey('ctx B', input.subarray(i, i + 10)); // another context in the key area
      derived.update(input.subarray(i, i + 10_000));
    }
    expect(toHex(plain.digest())).toBe(reference(input));
    expect(toHex(keyed.digest())).toBe(reference(input, { key: KEY }));
    expect(toHex(derived.digest())).toBe(reference(input, { context: new TextEncoder().encode('ctx A') }));
    for (const h of [plain, keyed, derived]) h.dispose();
  });

  it('clone() is independent in both directions', () => {
    const original = createHasher({ key: KEY }).update('shared prefix ');
    const copy = original.clone();
    original.update('original');
    copy.update('copy');
    expect(toHex(original.digest())).toBe(toHex(b3.keyedHash(KEY, 'shared prefix original')));
    expect(toHex(copy.digest())).toBe(toHex(b3.keyedHash(KEY, 'shared prefix copy')));
    original.dispose();
    expect(toHex(copy.update('!').digest())).toBe(toHex(b3.keyedHash(KEY, 'shared prefix copy!')));
    copy.dispose();
  });

  it('digest() is non-destructive and reset() keeps the mode', () => {
    using hasher = createHasher({ context: 'app v1' });
    hasher.update('abc');
    const first = toHex(hasher.digest());
    expect(toHex(hasher.digest())).toBe(first);
    hasher.update('def');
    expect(toHex(hasher.digest())).toBe(toHex(b3.deriveKey('app v1', 'abcdef')));
    hasher.reset().update('xyz');
    expect(toHex(hasher.digest())).toBe(toHex(b3.deriveKey('app v1', 'xyz')));
  });

  it('small updates gathered in JS are never lost or reordered', () => {
    const input = pattern(100_000, 11);
    const text = 'ż€😀a'.repeat(40); // multi-byte, ~300 bytes per string update
    const textBytes = new TextEncoder().encode(text);
    const fed: Uint8Array[] = [];
    using hasher = createHasher();
    let offset = 0;
    for (let i = 0; offset < input.length; i++) {
      const piece = input.subarray(offset, offset + [1, 63, 64, 1000, 1023, 1024, 5000, 0][i % 8]!);
      hasher.update(piece);
      fed.push(piece);
      if (i % 5 === 0) {
        hasher.update(text);
        fed.push(textBytes);
      }
      if (i % 37 === 0) {
        // Reading state in the middle flushes; it must not change the result.
        const copy = hasher.clone();
        expect(toHex(copy.digest())).toBe(toHex(hasher.digest()));
        copy.dispose();
      }
      offset += piece.length || 1;
    }
    const all = new Uint8Array(fed.reduce((n, p) => n + p.length, 0));
    fed.reduce((at, p) => (all.set(p, at), at + p.length), 0);
    expect(toHex(hasher.digest())).toBe(reference(all));
    using reader = hasher.xof();
    expect(toHex(reader.read(50))).toBe(toHex(noble(all, { dkLen: 50 })));
  });

  it('reset() drops input that was still gathered in JS', () => {
    using hasher = createHasher({ key: KEY });
    hasher.update('never hashed').update(new Uint8Array(10));
    hasher.reset().update('abc');
    expect(toHex(hasher.digest())).toBe(toHex(b3.keyedHash(KEY, 'abc')));
  });

  it('digestInto fills the whole buffer and returns it', () => {
    using hasher = createHasher().update('abc');
    const out = new Uint8Array(100);
    expect(hasher.digestInto(out)).toBe(out);
    expect(toHex(out)).toBe(toHex(hash('abc', { length: 100 })));
    const window = new Uint8Array(50).subarray(10, 42);
    hasher.digestInto(window);
    expect(toHex(window)).toBe(toHex(hash('abc')));
  });

  it('an XOF reader is a snapshot: later updates do not change it', () => {
    using hasher = createHasher().update('abc');
    using reader = hasher.xof();
    hasher.update('more');
    expect(toHex(reader.read(64))).toBe(toHex(hash('abc', { length: 64 })));
  });

  it('reads at the very end of the 2^64 - 1 byte output', () => {
    using reader = createHasher().update('abc').xof();
    const last = 2n ** 64n - 2n;
    reader.position = last - 63n;
    const tail = reader.read(64);
    reader.position = last;
    expect(toHex(reader.read(1))).toBe(toHex(tail.subarray(63)));
    expect(reader.position).toBe(2n ** 64n - 1n);
    expect(reader.read(0)).toHaveLength(0);
  });

  it('works with `using` and Symbol.dispose', () => {
    let escaped: InstanceType<typeof b3.Hasher>;
    {
      using hasher = createHasher();
      escaped = hasher;
    }
    expect(escaped.disposed).toBe(true);
    const dispose = (Symbol as { dispose?: symbol }).dispose ?? Symbol.for('Symbol.dispose');
    const hasher = new b3.Hasher();
    (hasher as unknown as Record<symbol, () => void>)[dispose]!();
    expect(hasher.disposed).toBe(true);
  });
});
