// What blake3's own tests (ts/, blake3/) leave out, for the Node compat
// entry: every output against blake3-wasm 2.1.5 itself (node_modules), every
// encoding, the digest overloads, reader seeking, disposal, and the errors
// where ours are deliberately clearer (docs/migrating.md).

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import * as loaded from 'blake3-kit/compat';
import * as reference from 'blake3-wasm';
import { describe, expect, it } from 'vitest';
import type * as NodeCompat from '../../src/compat-node.js';

// Types from the Node entry: tsc resolves the package's own name through
// its exports map to the default (browser) condition's declarations.
const b3 = loaded as unknown as typeof NodeCompat;
const root = fileURLToPath(new URL('../..', import.meta.url));
/** Their hash(): declared as Buffer | string, a Buffer in fact. */
const refHash = (input: string | Buffer, options?: { length?: number }) => reference.hash(input, options) as Buffer;

const LENGTHS = [0, 1, 63, 64, 65, 1023, 1024, 1025, 2048, 4096, 4097, 100 * 1024];
const KEY = Buffer.from('whats the Elvish word for friend');
const CONTEXT = 'blake3-kit compat 2026-11-27 context';
const ENCODINGS: BufferEncoding[] = ['hex', 'base64', 'base64url', 'latin1', 'binary', 'utf8', 'utf-8', 'ucs2', 'utf16le', 'ascii'];

function randomLengths(count: number): number[] {
  return Array.from({ length: count }, () => Math.floor(Math.random() * 20_000));
}

describe('outputs equal blake3-wasm 2.1.5', () => {
  for (const length of [...LENGTHS, ...randomLengths(8)]) {
    it(`${length} bytes: hash, keyedHash, deriveKey, the hasher over random splits, extended output`, () => {
      const input = randomBytes(length);
      expect(b3.hash(input)).toEqual(refHash(input));
      expect(b3.hash(input, { length: 131 })).toEqual(refHash(input, { length: 131 }));
      expect(b3.keyedHash(KEY, input)).toEqual(reference.keyedHash(KEY, input));
      expect(b3.deriveKey(CONTEXT, input, { length: 64 })).toEqual(reference.deriveKey(CONTEXT, input, { length: 64 }));
      const ours = b3.createHash();
      const theirs = reference.createHash();
      for (let at = 0; at < length; ) {
        const next = Math.min(length, at + Math.floor(Math.random() * 3000));
        ours.update(input.subarray(at, next));
        theirs.update(input.subarray(at, next));
        at = next;
      }
      expect(ours.digest({ length: 1000 })).toEqual(theirs.digest({ length: 1000 }));
    });
  }

  it('hashes inputs as theirs converts them: strings, ArrayBuffers, typed arrays by element, arrays of numbers', () => {
    const bytes = randomBytes(100);
    const shared = new SharedArrayBuffer(100);
    new Uint8Array(shared).set(bytes);
    const inputs: unknown[] = [
      '',
      'héllo wörld ☃ 𝄞',
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + 100),
      shared,
      new Uint16Array([1, 2, 300, 65535]),
      new Float64Array([1.5, 300]),
      [1, 2, 3, 255, 256],
    ];
    for (const input of inputs) {
      expect(b3.hash(input as string)).toEqual(refHash(input as string));
      expect(
        b3
          .createHash()
          .update(input as string)
          .digest(),
      ).toEqual(
        reference
          .createHash()
          .update(input as string)
          .digest(),
      );
    }
  });

  it('keyed and derive_key hashers, and 3.x byte contexts and string keys', () => {
    const input = randomBytes(5000);
    expect(b3.createKeyed(KEY).update(input).digest()).toEqual(reference.createKeyed(KEY).update(input).digest());
    expect(b3.createDeriveKey(CONTEXT).update(input).digest()).toEqual(reference.createDeriveKey(CONTEXT).update(input).digest());
    // 3.x: the context as bytes, the key as a string.
    expect(b3.deriveKey(Buffer.from(CONTEXT), input)).toEqual(reference.deriveKey(CONTEXT, input));
    expect(b3.keyedHash(KEY.toString('latin1'), input)).toEqual(reference.keyedHash(KEY, input));
  });
});

describe('encodings', () => {
  const input = randomBytes(3000);
  for (const encoding of ENCODINGS) {
    it(`${encoding}: digest, reader.toString and update(string, encoding) as theirs`, () => {
      expect(b3.createHash().update(input).digest(encoding)).toBe(reference.createHash().update(input).digest(encoding));
      expect(b3.createHash().update(input).digest(encoding, { length: 77 })).toBe(
        reference.createHash().update(input).digest(encoding, { length: 77 }),
      );
      expect(b3.createHash().update(input).reader().toString(encoding)).toBe(reference.createHash().update(input).reader().toString(encoding));
      const text = input.toString(encoding);
      expect(b3.createHash().update(text, encoding).digest()).toEqual(reference.createHash().update(text, encoding).digest());
    });
  }

  it('throws a TypeError for an unknown encoding and leaves the hasher usable', () => {
    const hasher = b3.createHash().update('abc');
    expect(() => hasher.digest('nope' as BufferEncoding)).toThrow(TypeError);
    expect(hasher.digest('hex')).toBe(b3.hash('abc').toString('hex'));
  });
});

describe('digest overloads and disposal', () => {
  const expected = refHash('hello', { length: 48 });

  it('digest(), digest(options), digest(undefined, options), digest(encoding, options)', () => {
    const hasher = b3.createHash().update('hel').update('lo');
    expect(hasher.digest()).toEqual(expected.subarray(0, 32));
    expect(hasher.digest({ length: 48 })).toEqual(expected);
    expect(hasher.digest(undefined, { length: 16 })).toEqual(expected.subarray(0, 16));
    expect(hasher.digest('hex', { length: 48 })).toBe(expected.toString('hex'));
    expect(hasher.digest('base64')).toBe(expected.subarray(0, 32).toString('base64'));
    expect(hasher.digest({ length: 0 })).toEqual(Buffer.alloc(0));
  });

  it('a hasher stays usable after digest() and reader() (3.x); { dispose: true } frees it (2.x)', () => {
    const hasher = b3.createHash().update('hel');
    const reader = hasher.reader();
    hasher.digest();
    hasher.update('lo');
    expect(hasher.digest()).toEqual(expected.subarray(0, 32));
    // The reader is a snapshot: 'hel', not 'hello'.
    expect(reader.read(32)).toEqual(refHash('hel'));
    expect(hasher.digest({ length: 48, dispose: true })).toEqual(expected);
    expect(() => hasher.update('x')).toThrow(/after dispose/);
    expect(() => hasher.digest()).toThrow(/after dispose/);
    expect(() => hasher.reader()).toThrow(/after dispose/);
    const other = b3.createHash().update('hello');
    expect(other.reader({ dispose: true }).toBuffer()).toEqual(expected.subarray(0, 32));
    expect(() => other.update('x')).toThrow(/after dispose/);
  });

  it('dispose() twice, on hashers and readers, is harmless', () => {
    const hasher = b3.createHash();
    const reader = hasher.update('x').reader();
    hasher.dispose();
    hasher.dispose();
    reader.dispose();
    reader.dispose();
    expect(() => reader.read(1)).toThrow(/after dispose/);
  });

  it('is a Transform stream whose output is the digest', async () => {
    const input = randomBytes(200_000);
    const hasher = b3.createHash();
    const out: Buffer[] = [];
    await pipeline(Readable.from([input.subarray(0, 70_000), input.subarray(70_000)]), hasher, async (digests: AsyncIterable<Buffer>) => {
      for await (const digest of digests) out.push(digest);
    });
    expect(Buffer.concat(out)).toEqual(refHash(input));
  });

  it('using() disposes after a value, a throw and a promise', async () => {
    let disposed = 0;
    const thing = { dispose: () => void disposed++ };
    expect(b3.using(thing, () => 42)).toBe(42);
    expect(() =>
      b3.using(thing, () => {
        throw new Error('x');
      }),
    ).toThrow('x');
    expect(await b3.using(thing, async () => 7)).toBe(7);
    expect(disposed).toBe(3);
  });
});

describe('reader', () => {
  const hasher = () => b3.createHash().update('hello');
  const theirs = () => reference.createHash().update('hello').reader();

  it('reads, seeks and reads into buffers as theirs, past 2^32 too', () => {
    const reader = hasher().reader();
    const ref = theirs();
    for (const position of [0n, 1n, 63n, 64n, 65n, 1000n, 2n ** 32n + 5n, 2n ** 40n]) {
      reader.position = position;
      ref.position = position;
      expect(reader.read(100)).toEqual(ref.read(100));
      expect(reader.position).toBe(position + 100n);
    }
    const into = Buffer.alloc(70);
    reader.position = 5n;
    expect(reader.readInto(into)).toBe(70);
    expect(into).toEqual(refHash('hello', { length: 75 }).subarray(5));
    expect(reader.view(3)).toEqual(refHash('hello', { length: 78 }).subarray(75));
  });

  it('toBuffer() and toString() read the first 32 bytes from wherever the position is', () => {
    const reader = hasher().reader();
    reader.position = 42n;
    expect(reader.toBuffer()).toEqual(refHash('hello'));
    expect(reader.position).toBe(32n);
    expect(reader.toString()).toBe(refHash('hello').toString('hex'));
  });

  it('iterates in 1024-byte steps (3.x)', () => {
    const reader = hasher().reader();
    const steps: Uint8Array[] = [];
    for (const step of reader) {
      steps.push(step);
      if (steps.length === 3) break;
    }
    expect(Buffer.concat(steps)).toEqual(refHash('hello', { length: 3072 }));
  });

  it('position: a bigint in [0, 2^64 - 1]; reads stop at the end with a RangeError', () => {
    const reader = hasher().reader();
    expect(() => {
      reader.position = 5 as unknown as bigint;
    }).toThrow(TypeError);
    expect(() => {
      reader.position = -1n;
    }).toThrow(RangeError);
    expect(() => {
      reader.position = 2n ** 64n;
    }).toThrow(RangeError);
    reader.position = b3.maxHashBytes - 3n;
    expect(reader.read(3)).toEqual(expectEnd());
    expect(reader.position).toBe(b3.maxHashBytes);
    expect(() => reader.read(1)).toThrow(RangeError);
    expect(() => reader.read(-1)).toThrow(RangeError);
    expect(() => reader.read('a' as unknown as number)).toThrow(TypeError);
  });

  /** The last 3 bytes of BLAKE3('hello') output, from theirs. */
  function expectEnd(): Buffer {
    const ref = theirs();
    ref.position = b3.maxHashBytes - 3n;
    return ref.read(3);
  }
});

describe('errors name the argument', () => {
  it('inputs theirs would hash as no bytes or zero bytes are TypeErrors', () => {
    for (const input of [5, null, undefined, {}, new DataView(new ArrayBuffer(4)), () => 0]) {
      expect(() => b3.hash(input as unknown as string)).toThrow(/input must be/);
      expect(() => b3.createHash().update(input as unknown as string)).toThrow(/data must be/);
    }
    expect(() => b3.hash(5 as unknown as string)).toThrow(TypeError);
  });

  it('keys, contexts, lengths and options', () => {
    expect(() => b3.keyedHash(Buffer.alloc(31), 'x')).toThrow(RangeError);
    expect(() => b3.keyedHash(Buffer.alloc(31), 'x')).toThrow(/key must be 32 bytes/);
    expect(() => b3.createKeyed(Buffer.alloc(33))).toThrow(RangeError);
    expect(() => b3.deriveKey(Buffer.from([0xff, 0xfe]), 'x')).toThrow(/context bytes must be UTF-8/);
    expect(() => b3.hash('x', { length: -1 })).toThrow(RangeError);
    expect(() => b3.hash('x', { length: 1.5 })).toThrow(/options.length/);
    expect(() => b3.hash('x', { length: '32' as unknown as number })).toThrow(TypeError);
    expect(() => b3.hash('x', 'hex' as unknown as object)).toThrow(TypeError);
    expect(() => b3.createHash().digest({ length: -2 })).toThrow(RangeError);
  });
});

describe('the Node platform', () => {
  it('returns Buffers from the functions, digest, read and toBuffer', () => {
    const hasher = b3.createHash().update('x');
    for (const value of [
      b3.hash('x'),
      b3.keyedHash(KEY, 'x'),
      b3.deriveKey('c', 'x'),
      hasher.digest(),
      hasher.reader().read(5),
      hasher.reader().toBuffer(),
    ]) {
      expect(Buffer.isBuffer(value)).toBe(true);
    }
  });

  it('is loaded at import; load() resolves to the API; init() from blake3-kit gets the same backend', async () => {
    const main = await import('blake3-kit');
    const inUse = main.backend();
    expect(inUse).toBeDefined();
    expect(await b3.load()).toBe(await b3.default());
    expect((await b3.load()).hash).toBe(b3.hash);
    expect((await main.init()).backend).toBe(inUse);
    expect(main.toHex(main.hash('abc'))).toBe(b3.hash('abc').toString('hex'));
  });

  it('loads with require() from CommonJS, with no top-level await (dist/compat-node.js)', () => {
    const code = "const b3 = require('blake3-kit/compat'); console.log(b3.hash('abc').toString('hex'), typeof b3.createHash().pipe)";
    const out = execFileSync(process.execPath, ['-e', code], { cwd: root, encoding: 'utf8' }).trim();
    expect(out).toBe(`${refHash('abc').toString('hex')} function`);
  });
});
