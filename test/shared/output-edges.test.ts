// Extended output read at and across the end of BLAKE3's 2^64 - 1 output
// bytes, on every backend: as the official crate's OutputReader, whose
// block counter goes on past it (and as b3sum prints it for --seek there),
// against test/output-edges.json, which the official crate writes.
import { describe, expect, it } from 'vitest';
import edges from '../output-edges.json';
import { CONTEXT, KEY, load, pattern } from './setup.js';

const b3 = await load();
const modes = [
  ['hash', undefined],
  ['keyed_hash', { key: KEY }],
  ['derive_key', { context: CONTEXT }],
] as const;

describe('output across the end of the 2^64 - 1 output bytes', () => {
  it('uses the vectors key and context', () => {
    expect(edges.key).toBe(new TextDecoder().decode(KEY));
    expect(edges.context_string).toBe(CONTEXT);
  });

  for (const [name, options] of modes) {
    it.each(edges.cases.map((c) => [`${c.input_len} B at ${c.position}, ${c.length} bytes`, c] as const))(`${name}: %s`, (_, c) => {
      using hasher = b3.createHasher(options).update(pattern(c.input_len));
      using reader = hasher.xof();
      const start = BigInt(c.position);
      reader.position = start;
      expect(b3.toHex(reader.read(c.length))).toBe(c[name]);
      expect(reader.position).toBe(start + BigInt(c.length));
      // In two reads, the second starting past the end.
      reader.position = start;
      const first = Math.min(c.length, Number(2n ** 64n - 1n - start) + 1);
      const joined = new Uint8Array([...reader.read(first), ...reader.read(c.length - first)]);
      expect(b3.toHex(joined)).toBe(c[name]);
    });
  }
});
