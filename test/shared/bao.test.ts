// Bao (the bao crate 0.13's format) against its official test vectors, in
// every section: hash, encode, outboard, seek and slice, with every
// corruption offset; on every backend.
import { hash, toHex } from 'blake3-kit';
import {
  baoDecode,
  baoDecodeOutboard,
  baoDecodeSlice,
  baoEncode,
  baoEncodedLength,
  baoSlice,
  baoSliceOutboard,
  baoTreeDecodeOutboard,
  baoTreeOutboard,
  BaoVerifyError,
} from 'blake3-kit/bao';
import { describe, expect, it } from 'vitest';
import vectors from '../bao/vectors.json';
import { leafPositions, outboardPositions } from './bao-sweep.js';
import { loadBao, thrownBy } from './setup.js';

await loadBao();

/** The vectors' input: a 4-byte little-endian counter from 1, cut to `length`. */
function input(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i + 4 <= length; i += 4) view.setUint32(i, i / 4 + 1, true);
  for (let i = length - (length % 4), n = length / 4 + 1; i < length; i++) bytes[i] = ((Math.floor(n) >>> (8 * (i % 4))) & 0xff) as number;
  return bytes;
}

const flipped = (bytes: Uint8Array, at: number) => {
  const copy = bytes.slice();
  copy[at]! ^= 1;
  return copy;
};
const badHash = (digest: Uint8Array) => flipped(digest, 0);

function rejects(run: () => unknown) {
  const caught = thrownBy(run);
  expect(caught).toBeInstanceOf(BaoVerifyError);
}

describe('official bao vectors', () => {
  it('hash: the root is plain BLAKE3', () => {
    for (const { input_len, bao_hash } of vectors.hash) expect(toHex(hash(input(input_len)))).toBe(bao_hash);
  });

  it.each(vectors.encode)('encode, $input_len bytes: the encoding, its decode, and every corruption', (c) => {
    const content = input(c.input_len);
    const { encoding, hash: root } = baoEncode(content);
    expect(toHex(root)).toBe(c.bao_hash);
    expect(encoding.length).toBe(c.output_len);
    expect(baoEncodedLength(c.input_len)).toBe(c.output_len);
    expect(toHex(hash(encoding))).toBe(c.encoded_blake3);
    expect(baoDecode(encoding, root)).toEqual(content);
    rejects(() => baoDecode(encoding, badHash(root)));
    for (const at of c.corruptions) rejects(() => baoDecode(flipped(encoding, at), root));
  });

  it.each(vectors.outboard)('outboard, $input_len bytes: the outboard, its decode, and every corruption', (c) => {
    const content = input(c.input_len);
    const { encoding: outboard, hash: root } = baoEncode(content, { outboard: true });
    expect(toHex(root)).toBe(c.bao_hash);
    expect(outboard.length).toBe(c.output_len);
    expect(toHex(hash(outboard))).toBe(c.encoded_blake3);
    expect(baoDecodeOutboard(content, outboard, root)).toEqual(content);
    rejects(() => baoDecodeOutboard(content, outboard, badHash(root)));
    for (const at of c.outboard_corruptions) rejects(() => baoDecodeOutboard(content, flipped(outboard, at), root));
    for (const at of c.input_corruptions) rejects(() => baoDecodeOutboard(flipped(content, at), outboard, root));
  });

  it.each(vectors.seek)('seek, $input_len bytes: the content from every offset, through slices', (c) => {
    const content = input(c.input_len);
    const { encoding, hash: root } = baoEncode(content);
    for (const offset of c.seek_offsets) {
      const from = Math.min(offset, content.length);
      const slice = baoSlice(encoding, offset, content.length);
      expect(baoDecodeSlice(slice, root, offset, content.length)).toEqual(content.subarray(from));
    }
  });

  it.each(vectors.slice)('slice, $input_len bytes: extracted (combined and outboard), decoded, and every corruption', (c) => {
    const content = input(c.input_len);
    const { encoding, hash: root } = baoEncode(content);
    const { encoding: outboard } = baoEncode(content, { outboard: true });
    expect(toHex(root)).toBe(c.bao_hash);
    for (const s of c.slices) {
      const slice = baoSlice(encoding, s.start, s.len);
      expect(slice.length).toBe(s.output_len);
      expect(toHex(hash(slice))).toBe(s.output_blake3);
      expect(baoSliceOutboard(content, outboard, s.start, s.len)).toEqual(slice);
      const from = Math.min(content.length, s.start);
      expect(baoDecodeSlice(slice, root, s.start, s.len)).toEqual(content.subarray(from, from + Math.min(content.length - from, s.len)));
      rejects(() => baoDecodeSlice(slice, badHash(root), s.start, s.len));
      for (const at of s.corruptions) rejects(() => baoDecodeSlice(flipped(slice, at), root, s.start, s.len));
    }
  });
});

describe('malformed encodings are rejected before any byte is returned', () => {
  const content = input(5000);
  const { encoding, hash: root } = baoEncode(content);

  it('truncated, extended, or with a length header off by one either way', () => {
    rejects(() => baoDecode(encoding.subarray(0, encoding.length - 1), root));
    rejects(() => baoDecode(new Uint8Array([...encoding, 0]), root));
    rejects(() => baoDecode(encoding.subarray(0, 7), root));
    for (const delta of [-1, 1]) {
      const changed = encoding.slice();
      new DataView(changed.buffer).setBigUint64(0, BigInt(content.length + delta), true);
      rejects(() => baoDecode(changed, root));
    }
    const slice = baoSlice(encoding, 2000, 100);
    rejects(() => baoDecodeSlice(slice.subarray(0, slice.length - 1), root, 2000, 100));
    rejects(() => baoDecodeSlice(new Uint8Array([...slice, 0]), root, 2000, 100));
  });

  it('names the node that does not match, in combined and outboard encodings, aligned or not', () => {
    // 8 chunks in pre-order: P(0, 8K) P(0, 4K) P(0, 2K) C0 C1 P(2K, 2K) C2 C3 ...
    const eight = input(8 * 1024);
    const { encoding: whole, hash: eightRoot } = baoEncode(eight);
    const { encoding: outboard } = baoEncode(eight, { outboard: true });
    const nodeAt = 8 + 3 * 64 + 2048; // P(2K, 2K) in the combined encoding
    for (const shift of [0, 1]) {
      const changed = new Uint8Array(whole.length + shift).subarray(shift);
      changed.set(whole);
      changed[nodeAt + 5]! ^= 1;
      expect(String(thrownBy(() => baoDecode(changed, eightRoot)))).toMatch(/tree node above byte 2048 /);
      const changedOutboard = new Uint8Array(outboard.length + shift).subarray(shift);
      changedOutboard.set(outboard);
      changedOutboard[8 + 4 * 64 + 40]! ^= 1; // the fifth parent, P(4K, 4K)
      expect(String(thrownBy(() => baoDecodeOutboard(eight, changedOutboard, eightRoot)))).toMatch(/tree node above byte 4096 /);
    }
  });

  it('arguments of the wrong kind or range are TypeError or RangeError', () => {
    expect(thrownBy(() => baoDecode('x' as never, root))).toBeInstanceOf(TypeError);
    expect(thrownBy(() => baoDecode(encoding, new Uint8Array(31)))).toBeInstanceOf(RangeError);
    expect(thrownBy(() => baoSlice(encoding, -1, 10))).toBeInstanceOf(RangeError);
    expect(thrownBy(() => baoDecodeSlice(encoding, root, 0, 1.5))).toBeInstanceOf(RangeError);
  });
});

describe('bao-tree outboards (chunk groups, no length prefix, pre- or post-order)', () => {
  const sizes = [0, 1, 1024, 1025, 16 * 1024, 16 * 1024 + 1, 100_000, 1 << 20];

  it('at chunkLog 0 in pre-order, equal bao outboards without the header', () => {
    for (const size of sizes) {
      const content = input(size);
      const tree = baoTreeOutboard(content, { chunkLog: 0 });
      const bao = baoEncode(content, { outboard: true });
      expect(tree.outboard).toEqual(bao.encoding.subarray(8));
      expect(tree.hash).toEqual(bao.hash);
    }
  });

  it.each([0, 1, 2, 4, 6])(
    'chunkLog %i: (groups - 1) x 64 bytes, both orders decode, parents and groups guarded (every one in node-simd)',
    (chunkLog) => {
      const group = 1024 << chunkLog;
      for (const size of sizes) {
        const content = input(size);
        const groups = Math.max(1, Math.ceil(size / group));
        for (const order of ['pre', 'post'] as const) {
          const { outboard, hash: root } = baoTreeOutboard(content, { chunkLog, order });
          expect(outboard.length).toBe((groups - 1) * 64);
          expect(toHex(root)).toBe(toHex(hash(content)));
          expect(baoTreeDecodeOutboard(content, outboard, root, { chunkLog, order })).toEqual(content);
          for (const at of outboardPositions(size, chunkLog, order))
            rejects(() => baoTreeDecodeOutboard(content, flipped(outboard, at), root, { chunkLog, order }));
          for (const at of leafPositions(size, group))
            rejects(() => baoTreeDecodeOutboard(flipped(content, at), outboard, root, { chunkLog, order }));
        }
        if (size > group) {
          // The orders differ once there are two parents or more.
          const pre = baoTreeOutboard(content, { chunkLog }).outboard;
          const post = baoTreeOutboard(content, { chunkLog, order: 'post' }).outboard;
          expect(post.subarray(post.length - 64)).toEqual(pre.subarray(0, 64)); // the root: first in pre, last in post
        }
      }
    },
  );
});
