// baoEncodeParallel takes a fetch Response as it takes any stream (its type
// says so), and baoEncodedLength checks its arguments as every function
// does; in every runtime.
import { toHex } from 'blake3-kit';
import { baoEncode, baoEncodedLength, baoEncodeParallel } from 'blake3-kit/bao';
import { describe, expect, it } from 'vitest';
import { loadBao, piecesOf, random, seed, thrownBy } from './setup.js';

await loadBao();
const rng = random(seed);

describe(`baoEncodeParallel(Response) (seed ${seed})`, () => {
  it('encodes a Response body as baoEncode encodes its bytes, combined and outboard', async () => {
    for (const length of [0, 1, 1025, 70_000 + rng.int(50_000)]) {
      const content = rng.bytes(length);
      for (const outboard of [false, true]) {
        const body = piecesOf(content, () => 1 + rng.int(20_000));
        const ours = await baoEncodeParallel(new Response(body), { outboard });
        const theirs = baoEncode(content, { outboard });
        expect(toHex(ours.encoding), `${length} bytes, outboard ${outboard}`).toBe(toHex(theirs.encoding));
        expect(toHex(ours.hash)).toBe(toHex(theirs.hash));
      }
    }
    // No body (a 204): the empty content.
    expect(toHex((await baoEncodeParallel(new Response(null, { status: 204 }))).hash)).toBe(toHex(baoEncode(new Uint8Array(0)).hash));
  });

  it('refuses a Response whose body was already read', async () => {
    const response = new Response('read once');
    await response.arrayBuffer();
    await expect(baoEncodeParallel(response)).rejects.toThrow(/already read/);
  });
});

describe('baoEncodedLength', () => {
  it('is the length of the encoding and of the outboard', () => {
    for (const length of [0, 1, 1024, 1025, 2048, 5000, 2 ** 40]) {
      const chunks = Math.max(1, Math.ceil(length / 1024));
      expect(baoEncodedLength(length)).toBe(8 + 64 * (chunks - 1) + length);
      expect(baoEncodedLength(length, { outboard: true })).toBe(8 + 64 * (chunks - 1));
      expect(baoEncodedLength(length, { outboard: false })).toBe(8 + 64 * (chunks - 1) + length);
    }
    expect(baoEncodedLength(5000)).toBe(baoEncode(new Uint8Array(5000)).encoding.length);
  });

  it('checks its arguments, naming them', () => {
    const cases: [() => unknown, ErrorConstructor, RegExp][] = [
      [() => baoEncodedLength('5' as never), TypeError, /length must be a number; got string/],
      [() => baoEncodedLength(5n as never), TypeError, /length must be a number; got bigint/],
      [() => baoEncodedLength(undefined as never), TypeError, /length must be a number/],
      [() => baoEncodedLength(-1), RangeError, /length must be a non-negative safe integer; got -1/],
      [() => baoEncodedLength(1.5), RangeError, /length must be a non-negative safe integer/],
      [() => baoEncodedLength(Number.NaN), RangeError, /length must be a non-negative safe integer/],
      [() => baoEncodedLength(2 ** 53), RangeError, /length must be a non-negative safe integer/],
      [() => baoEncodedLength(Number.POSITIVE_INFINITY), RangeError, /length must be a non-negative safe integer/],
      [() => baoEncodedLength(5, true as never), TypeError, /options must be a plain object/],
      [() => baoEncodedLength(5, { outboard: 1 as never }), TypeError, /options\.outboard must be a boolean; got number/],
      [() => baoEncodedLength(5, { outboard: 'yes' as never }), TypeError, /options\.outboard must be a boolean/],
    ];
    for (const [run, type, message] of cases) {
      const error = thrownBy(run);
      expect(error).toBeInstanceOf(type);
      expect(String(error)).toMatch(message);
      expect(String(error)).toMatch(/blake3-kit: /);
    }
  });
});
