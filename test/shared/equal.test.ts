// equal(), the README's MAC comparison: the bytes of any view or buffer,
// never elements or properties; anything that is not bytes is a TypeError.
import { equal, hash } from 'blake3-kit';
import { describe, expect, it } from 'vitest';
import { load, random, seed, thrownBy } from './setup.js';

await load();
const rng = random(seed);

describe(`equal (seed ${seed})`, () => {
  it('compares the bytes of every kind of view and buffer', () => {
    const mac = hash('message');
    const forged = mac.slice();
    forged[31]! ^= 1;
    // A MAC as it usually arrives: `await res.arrayBuffer()`.
    expect(equal(mac.buffer.slice(0), forged.buffer.slice(0))).toBe(false);
    expect(equal(mac.buffer.slice(0), mac.slice().buffer)).toBe(true);
    expect(equal(mac, forged.buffer)).toBe(false);
    expect(equal(mac, mac.slice().buffer)).toBe(true);
    expect(equal(new DataView(mac.buffer), new DataView(forged.buffer))).toBe(false);
    expect(equal(new DataView(mac.slice().buffer), mac)).toBe(true);
    expect(equal(new Float64Array([0.5]), new Float64Array([0.7]))).toBe(false);
    expect(equal(new Float64Array([0.5]), new Float64Array([0.5]))).toBe(true);
    // Byte lengths, not element counts.
    expect(equal(new Uint8Array(2), new Uint16Array(2))).toBe(false);
    expect(equal(new Uint8Array(4), new Uint16Array(2))).toBe(true);
    expect(equal(new Uint8Array(0), new ArrayBuffer(0))).toBe(true);
    if (typeof SharedArrayBuffer === 'function') {
      const a = new SharedArrayBuffer(32);
      const b = new SharedArrayBuffer(32);
      new Uint8Array(a).set(mac);
      new Uint8Array(b).set(forged);
      expect(equal(a, b)).toBe(false);
      new Uint8Array(b).set(mac);
      expect(equal(a, b)).toBe(true);
    }
    for (let trial = 0; trial < 50; trial++) {
      const bytes = rng.bytes(8 * (1 + rng.int(8)));
      const other = bytes.slice();
      other[rng.int(other.length)]! ^= 1 << rng.int(8);
      expect(equal(new BigUint64Array(bytes.buffer), new DataView(other.buffer))).toBe(false);
      expect(equal(new Int32Array(bytes.buffer), other.buffer)).toBe(false);
      expect(equal(new Int32Array(bytes.buffer), bytes.slice().buffer)).toBe(true);
    }
  });

  it('throws a TypeError naming the argument for what is not bytes', () => {
    const cases: [unknown, unknown, string][] = [
      ['abcd', 'abce', 'a'],
      [hash('x'), 'x'.repeat(32), 'b'],
      [{ length: 32 }, { length: 32 }, 'a'],
      [new Uint8Array(1), { length: 1, 0: 0 }, 'b'],
      [[1, 2], [1, 2], 'a'],
      [32, 32, 'a'],
      [new Uint8Array(0), null, 'b'],
      [undefined, new Uint8Array(0), 'a'],
    ];
    for (const [a, b, name] of cases) {
      const error = thrownBy(() => equal(a as never, b as never));
      expect(error).toBeInstanceOf(TypeError);
      expect(String(error)).toMatch(new RegExp(`^TypeError: blake3-kit: ${name} must be`));
    }
  });

  it('refuses a view of a detached buffer rather than reading it as empty', () => {
    const buffer = new ArrayBuffer(32);
    const view = new Uint8Array(buffer);
    structuredClone(buffer, { transfer: [buffer] });
    expect(thrownBy(() => equal(view, new Uint8Array(0)))).toBeInstanceOf(TypeError);
  });
});
