// 1 GiB one-shot and streaming, checked against the official crate. One peer
// aborts with out-of-memory at 10 MiB one-shot and then returns wrong
// digests; here every size goes through the fixed staging buffer.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { load } from '../shared/setup.js';

const b3 = await load();
const GiB = 2 ** 30;
const lengths = [10 * 2 ** 20, GiB + 1];

/** Digests of the official input pattern, from the official crate. */
function officialPatternHashes(): Map<number, string> {
  const manifest = fileURLToPath(new URL('../../crate/Cargo.toml', import.meta.url));
  const args = ['run', '-q', '--release', '--manifest-path', manifest, '-p', 'blake3-kit-vectors', '--', '--pattern'];
  const out = execFileSync('cargo', [...args, ...lengths.map(String)], { encoding: 'utf8' });
  return new Map(
    out
      .trim()
      .split('\n')
      .map((line) => [Number(line.split(' ')[0]), line.split(' ')[1]!]),
  );
}

/** Byte i is i % 251, filled by doubling copies (a byte loop takes seconds). */
function pattern(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  const seed = Math.min(length, 251 * 64);
  for (let i = 0; i < seed; i++) bytes[i] = i % 251;
  for (let filled = seed; filled < length; ) {
    const copy = Math.min(filled - (filled % 251), length - filled);
    bytes.copyWithin(filled, 0, copy);
    filled += copy;
  }
  return bytes;
}

describe('large inputs', () => {
  const expected = officialPatternHashes();
  const input = pattern(GiB + 1);

  it.each(lengths)('%i bytes one-shot', (length) => {
    expect(b3.toHex(b3.hash(input.subarray(0, length)))).toBe(expected.get(length));
    expect(b3.toHex(b3.hash('abc'))).toBe('6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85');
  });

  it('1 GiB + 1 streaming in uneven updates', () => {
    using hasher = b3.createHasher();
    const step = 7 * 2 ** 20 + 13;
    for (let offset = 0; offset < input.length; offset += step) hasher.update(input.subarray(offset, offset + step));
    expect(b3.toHex(hasher.digest())).toBe(expected.get(GiB + 1));
  });
});
