// Bad input: the right error class, a message naming the argument, and no
// state lost anywhere.
import { MAX_OUTPUT_LENGTH } from 'blake3-kit';
import { describe, expect, it } from 'vitest';
import { KEY, load, thrownBy } from './setup.js';

const b3 = await load();
const { hash, keyedHash, deriveKey, createHasher, toHex } = b3;

function throwsNaming(run: () => unknown, type: ErrorConstructor, name: RegExp) {
  const caught = thrownBy(run);
  expect(caught).toBeInstanceOf(type);
  expect((caught as Error).constructor).toBe(type);
  expect((caught as Error).message).toMatch(name);
}

describe('TypeError for wrong types', () => {
  it.each([
    ['a number', 42],
    ['null', null],
    ['undefined', undefined],
    ['a plain object', { length: 3 }],
    ['an array of numbers', [1, 2, 3]],
    ['a boolean', true],
  ])('input that is %s', (_, input) => {
    throwsNaming(() => hash(input as never), TypeError, /input/);
    throwsNaming(() => createHasher().update(input as never), TypeError, /input/);
    throwsNaming(() => keyedHash(KEY, input as never), TypeError, /input/);
  });

  it('a context that is not a string', () => {
    for (const context of [42, null, new TextEncoder().encode('ctx'), {}]) {
      throwsNaming(() => deriveKey(context as never, 'x'), TypeError, /context/);
      throwsNaming(() => hash('x', { context: context as never }), TypeError, /options\.context/);
      throwsNaming(() => createHasher({ context: context as never }), TypeError, /options\.context/);
    }
  });

  it('a key that is not bytes, options that are not an object, a non-number length', () => {
    throwsNaming(() => keyedHash('k'.repeat(32) as never, 'x'), TypeError, /key/);
    throwsNaming(() => hash('x', { key: 5 as never }), TypeError, /options\.key/);
    throwsNaming(() => hash('x', 'opts' as never), TypeError, /options/);
    throwsNaming(() => hash('x', null as never), TypeError, /options/);
    throwsNaming(() => hash('x', { length: '32' as never }), TypeError, /options\.length/);
    throwsNaming(() => hash('x', { length: 32n as never }), TypeError, /options\.length/);
    throwsNaming(() => hash('x', { key: KEY, context: 'c' }), TypeError, /key.*context/);
    throwsNaming(() => createHasher().digestInto('out' as never), TypeError, /out/);
    throwsNaming(
      () =>
        createHasher()
          .xof()
          .read('8' as never),
      TypeError,
      /length/,
    );
  });

  it('a position that is not a bigint or number', () => {
    using reader = createHasher().xof();
    throwsNaming(() => (reader.position = '5' as never), TypeError, /position/);
  });
});

describe('RangeError for wrong lengths and ranges', () => {
  it.each([31, 33, 0, 64])('a %i-byte key', (size) => {
    throwsNaming(() => keyedHash(new Uint8Array(size), 'x'), RangeError, /key.*32 bytes/);
    throwsNaming(() => hash('x', { key: new Uint8Array(size) }), RangeError, /options\.key/);
    throwsNaming(() => createHasher({ key: new Uint8Array(size) }), RangeError, /options\.key/);
  });

  it.each([-1, 1.5, NaN, Infinity, MAX_OUTPUT_LENGTH + 1])('output length %d', (length) => {
    throwsNaming(() => hash('x', { length }), RangeError, /options\.length/);
    throwsNaming(() => createHasher().digest({ length }), RangeError, /options\.length/);
    throwsNaming(() => createHasher().xof().read(length), RangeError, /length/);
  });

  it('positions outside [0, 2^64); reads go on past the end of the output (output-edges.test.ts)', () => {
    using reader = createHasher().xof();
    for (const position of [-1n, 2n ** 64n, -1, 2 ** 53, 0.5]) {
      throwsNaming(() => (reader.position = position), RangeError, /position/);
    }
    expect(reader.position).toBe(0n);
    reader.position = 2n ** 64n - 10n;
    expect(reader.read(20)).toHaveLength(20);
    expect(reader.position).toBe(2n ** 64n + 10n);
  });

  it('a context longer than the staging buffer', () => {
    throwsNaming(() => deriveKey('c'.repeat(64 * 1024 + 1), 'x'), RangeError, /context/);
    expect(deriveKey('c'.repeat(64 * 1024), 'x')).toHaveLength(32);
  });
});

describe('after a failure', () => {
  it('a disposed hasher or reader throws a clear Error, and dispose is idempotent', () => {
    const hasher = createHasher();
    const reader = hasher.xof();
    hasher.dispose();
    hasher.dispose();
    reader.dispose();
    for (const call of [
      () => hasher.update('x'),
      () => hasher.digest(),
      () => hasher.digestInto(new Uint8Array(32)),
      () => hasher.xof(),
      () => hasher.reset(),
      () => hasher.clone(),
    ]) {
      throwsNaming(call, Error, /hasher has been disposed/);
    }
    throwsNaming(() => reader.read(1), Error, /XOF reader has been disposed/);
    throwsNaming(() => (reader.position = 1n), Error, /disposed/);
  });

  it('every hasher keeps its state through throwing calls', () => {
    const plain = createHasher().update('abc');
    const keyed = createHasher({ key: KEY }).update('abc');
    const failing: (() => unknown)[] = [
      () => plain.update(7 as never),
      () => keyed.update(null as never),
      () => plain.digest({ length: -1 }),
      () => keyed.digestInto(undefined as never),
      () => hash('abc', { key: new Uint8Array(31) }),
      () => hash('abc', { context: 5 as never }),
      () => keyedHash(new Uint8Array(3), 'abc'),
      () => createHasher({ key: KEY, context: 'x' }),
    ];
    for (const call of failing) expect(call).toThrow();
    expect(toHex(plain.update('def').digest())).toBe(toHex(hash('abcdef')));
    expect(toHex(keyed.update('def').digest())).toBe(toHex(keyedHash(KEY, 'abcdef')));
    expect(toHex(hash('abcdef'))).toBe(toHex(createHasher().update('abcdef').digest()));
    plain.dispose();
    keyed.dispose();
  });

  it('XofReader cannot be constructed directly', () => {
    throwsNaming(() => new b3.XofReader(undefined as never, undefined as never, 0), TypeError, /Hasher\.xof/);
  });
});

describe('names', () => {
  it('exported classes keep their names in the built bundle', async () => {
    // The suite runs from src/ in Node; the bundle is what users import.
    // Specifiers in variables: the type checker must not need dist/ built.
    const bundle = typeof window === 'undefined' ? '../../dist/node.js' : '/dist/browser.js';
    const built: Partial<typeof import('../../src/entries/node.js')> & typeof import('../../src/entries/browser.js') = await import(
      /* @vite-ignore */ bundle
    );
    await built.init();
    expect(built.Hasher.name).toBe('Hasher');
    expect(built.XofReader.name).toBe('XofReader');
    if (built.FileTruncatedError) expect(built.FileTruncatedError.name).toBe('FileTruncatedError');
    const hasher = built.createHasher();
    expect(hasher.constructor.name).toMatch(/^(Native)?Hasher$/);
    hasher.dispose();
  });
});

describe('outputs and hex sources take no strings', () => {
  it('says so instead of listing strings among the accepted types', () => {
    const cases: [string, () => unknown][] = [
      ['bytes', () => toHex('abc' as never)],
      ['out', () => createHasher().digestInto('abc' as never)],
      [
        'out',
        () =>
          createHasher()
            .xof()
            .readInto('abc' as never),
      ],
    ];
    for (const [name, run] of cases) {
      throwsNaming(run, TypeError, new RegExp(`${name}.*Uint8Array, ArrayBufferView or ArrayBuffer; got string \\(strings are not accepted here\\)`));
    }
  });
});
