// bao-tree range encodings on every backend: what a decoder gets back is the
// content of the asked chunks (or more, never less), verified; any changed
// byte, a short or long encoding, the wrong size or hash is a BaoVerifyError.
// Byte-for-byte agreement with bao-tree itself: test/node/bao-oracle.test.ts.
import { hash, keyedHash } from 'blake3-kit';
import { BaoVerifyError, baoTreeDecodeOutboard, baoTreeDecodeRanges, baoTreeEncodeRanges, baoTreeOutboard } from 'blake3-kit/bao';
import { describe, expect, it } from 'vitest';
import { bytePositions } from './bao-sweep.js';
import { loadBao, random, randomChunkRanges, seed, thrownBy } from './setup.js';

const b3 = await loadBao();
const rng = random(seed);

type Ranges = [number, number][];

/** Every chunk of `ranges` within the blob is in `pieces`, with its content. */
function expectCovered(pieces: { offset: number; bytes: Uint8Array }[], content: Uint8Array, ranges: Ranges): void {
  for (const piece of pieces) {
    expect(b3.toHex(piece.bytes)).toBe(b3.toHex(content.subarray(piece.offset, piece.offset + piece.bytes.length)));
  }
  const chunks = Math.ceil(content.length / 1024);
  for (const [start, end] of ranges) {
    for (let chunk = start; chunk < Math.min(end, chunks); chunk++) {
      const at = chunk * 1024;
      expect(
        pieces.some((p) => p.offset <= at && at < p.offset + p.bytes.length),
        `chunk ${chunk}`,
      ).toBe(true);
    }
  }
}

/** A random blob (small or up to ~300 KB), 1-3 random chunk ranges (some
 * open, some past the end) and a chunkLog from 0 to 6. */
function randomCase(): { size: number; content: Uint8Array; ranges: Ranges; chunkLog: number } {
  const size = rng.int(3) === 0 ? rng.int(5000) : rng.int(300_000);
  const content = rng.bytes(size);
  const ranges = randomChunkRanges(rng, Math.ceil(size / 1024));
  return { size, content, ranges, chunkLog: rng.int(7) };
}

describe(`bao-tree ranges (seed ${seed})`, () => {
  it('round-trips random range sets at every chunkLog, for random sizes', () => {
    for (let round = 0; round < 40; round++) {
      const { size, content, ranges, chunkLog } = randomCase();
      const { encoding, hash: root } = baoTreeEncodeRanges(content, ranges, { chunkLog });
      expect(b3.toHex(root)).toBe(b3.toHex(hash(content)));
      expectCovered(baoTreeDecodeRanges(encoding, root, size, ranges, { chunkLog }), content, ranges);
    }
  });

  it('encodes the same bytes from a stored outboard, pre- or post-order, hashing only the groups it sends', () => {
    for (let round = 0; round < 30; round++) {
      const { size, content, ranges, chunkLog } = randomCase();
      const plain = baoTreeEncodeRanges(content, ranges, { chunkLog });
      for (const order of ['pre', 'post'] as const) {
        const { outboard } = baoTreeOutboard(content, { chunkLog, order });
        const stored = baoTreeEncodeRanges(content, ranges, { chunkLog, outboard, order });
        const label = `size ${size}, chunkLog ${chunkLog}, ${order}-order, ranges ${JSON.stringify(ranges)}`;
        expect(b3.toHex(stored.encoding), label).toBe(b3.toHex(plain.encoding));
        expect(b3.toHex(stored.hash), label).toBe(b3.toHex(plain.hash));
      }
    }
  });

  it('reads a post-order outboard by its own layout: the nodes on the path, checked', () => {
    const content = rng.bytes(40 * 16 * 1024); // 40 groups at chunkLog 4: 39 parents
    const { outboard: post } = baoTreeOutboard(content, { order: 'post' });
    const { outboard: pre } = baoTreeOutboard(content);
    const ranges: Ranges = [[16 * 37, 16 * 38]]; // group 37, in the root's right subtree
    const sent = baoTreeEncodeRanges(content, ranges, { outboard: post, order: 'post' }).encoding;
    expect(b3.toHex(sent)).toBe(b3.toHex(baoTreeEncodeRanges(content, ranges, { outboard: pre }).encoding));
    // The root is the last node; the right subtree's (groups 32-39, 7 nodes)
    // is just before it; the left subtree's 31 come first and are not read.
    const root = post.length - 64;
    for (const [at, caught] of [
      [root + 40, true],
      [root - 64 + 5, true],
      [3, false],
    ] as const) {
      const changed = post.slice();
      changed[at]! ^= 1;
      const result = thrownBy(() => baoTreeEncodeRanges(content, ranges, { outboard: changed, order: 'post' }));
      if (caught) expect(result, `byte ${at}`).toBeInstanceOf(BaoVerifyError);
      else expect(result, `byte ${at}`).toBeUndefined();
    }
    // The pre-order outboard read as post-order is caught.
    expect(thrownBy(() => baoTreeEncodeRanges(content, ranges, { outboard: pre, order: 'post' }))).toBeInstanceOf(BaoVerifyError);
    const wrongOrder = thrownBy(() => baoTreeEncodeRanges(content, ranges, { outboard: post, order: 'in' as never }));
    expect(wrongOrder).toBeInstanceOf(TypeError);
    expect(String(wrongOrder)).toMatch(/options\.order/);
  });

  it('checks what it sends against the outboard, and with options.hash reads nothing the ranges miss', () => {
    const content = rng.bytes(40 * 16 * 1024); // 40 groups at chunkLog 4
    const { outboard, hash: root } = baoTreeOutboard(content);
    const ranges: Ranges = [[16 * 5, 16 * 6]]; // group 5
    const sent = baoTreeEncodeRanges(content, ranges, { outboard }).encoding;
    expect(b3.toHex(baoTreeEncodeRanges(content, ranges, { outboard, hash: root }).encoding)).toBe(b3.toHex(sent));
    // With the root hash, content the ranges miss is not hashed: a changed
    // byte there goes unseen. Without it, all of it is hashed for the root.
    const elsewhere = content.slice();
    elsewhere[30 * 16 * 1024]! ^= 1;
    expect(b3.toHex(baoTreeEncodeRanges(elsewhere, ranges, { outboard, hash: root }).encoding)).toBe(b3.toHex(sent));
    expect(thrownBy(() => baoTreeEncodeRanges(elsewhere, ranges, { outboard }))).toBeInstanceOf(BaoVerifyError);
    expect(baoTreeDecodeRanges(sent, root, content.length, ranges).length).toBe(1);
    // A changed byte in a group it sends, or a changed node on the path, is caught.
    const inside = content.slice();
    inside[5 * 16 * 1024 + 7]! ^= 1;
    expect(thrownBy(() => baoTreeEncodeRanges(inside, ranges, { outboard }))).toBeInstanceOf(BaoVerifyError);
    const path = outboard.slice();
    path[64 + 3]! ^= 1; // the root's left child: the node above groups 0-31
    expect(thrownBy(() => baoTreeEncodeRanges(content, ranges, { outboard: path }))).toBeInstanceOf(BaoVerifyError);
    const wrongSize = thrownBy(() => baoTreeEncodeRanges(content, ranges, { outboard: outboard.subarray(64) }));
    expect(wrongSize).toBeInstanceOf(RangeError);
    expect(String(wrongSize)).toMatch(/options\.outboard/);
    expect(thrownBy(() => baoTreeEncodeRanges(content, ranges, { outboard: 'x' as never }))).toBeInstanceOf(TypeError);
  });

  it('never returns a hash it did not check: a wrong root node or options.hash is a BaoVerifyError', () => {
    const content = rng.bytes(40 * 16 * 1024);
    const { outboard: pre, hash: root } = baoTreeOutboard(content);
    const { outboard: post } = baoTreeOutboard(content, { order: 'post' });
    const otherRoot = b3.hash(rng.bytes(10));
    // Group 5 lies left of the root's split: its right half is sent unchecked
    // by the walk below the root.
    const ranges: Ranges = [[16 * 5, 16 * 6]];
    for (const [outboard, order, rootAt] of [
      [pre, 'pre', 0],
      [post, 'post', post.length - 64],
    ] as const) {
      for (const half of [0, 32]) {
        const wrongRoot = outboard.slice();
        wrongRoot[rootAt + half + 5]! ^= 1;
        for (const hash of [undefined, root]) {
          const result = thrownBy(() => baoTreeEncodeRanges(content, ranges, { outboard: wrongRoot, order, hash }));
          expect(result, `${order}-order, root node's ${half ? 'right' : 'left'} half, hash ${hash ? 'given' : 'not given'}`).toBeInstanceOf(
            BaoVerifyError,
          );
        }
      }
      const { hash } = baoTreeEncodeRanges(content, ranges, { outboard, order });
      expect(b3.toHex(hash)).toBe(b3.toHex(root));
      expect(thrownBy(() => baoTreeEncodeRanges(content, ranges, { outboard, order, hash: otherRoot }))).toBeInstanceOf(BaoVerifyError);
    }
    // Without an outboard, and for a blob of one group, options.hash is checked too.
    expect(thrownBy(() => baoTreeEncodeRanges(content, ranges, { hash: otherRoot }))).toBeInstanceOf(BaoVerifyError);
    const small = rng.bytes(1000);
    expect(thrownBy(() => baoTreeEncodeRanges(small, [[0, 1]], { outboard: new Uint8Array(0), hash: otherRoot }))).toBeInstanceOf(BaoVerifyError);
    expect(b3.toHex(baoTreeEncodeRanges(small, [[0, 1]], { hash: b3.hash(small) }).hash)).toBe(b3.toHex(b3.hash(small)));
    const short = thrownBy(() => baoTreeEncodeRanges(content, ranges, { outboard: pre, hash: root.subarray(1) }));
    expect(short).toBeInstanceOf(RangeError);
    expect(String(short)).toMatch(/options\.hash/);
  });

  it('keys every node with options.key, as bao-tree keyed_*: outboards, ranges and their decoding', () => {
    const key = rng.bytes(32);
    for (const size of [0, 1, 1024, 1025, 16 * 1024, 16 * 1024 + 1, 40 * 16 * 1024 + 3, rng.int(300_000)]) {
      const content = rng.bytes(size);
      const keyed = keyedHash(key, content);
      const label = `size ${size}`;
      for (const order of ['pre', 'post'] as const) {
        const { outboard, hash: root } = baoTreeOutboard(content, { key, order });
        expect(b3.toHex(root), label).toBe(b3.toHex(keyed));
        expect(b3.toHex(baoTreeDecodeOutboard(content, outboard, root, { key, order })), label).toBe(b3.toHex(content));
        if (outboard.length > 0) {
          expect(b3.toHex(outboard), label).not.toBe(b3.toHex(baoTreeOutboard(content, { order }).outboard));
          // Verified against the keyed root, but hashed plain: rejected.
          expect(
            thrownBy(() => baoTreeDecodeOutboard(content, outboard, root, { order })),
            label,
          ).toBeInstanceOf(BaoVerifyError);
        }
      }
      const ranges: Ranges = [
        [1, 3],
        [20, Number.POSITIVE_INFINITY],
      ];
      const { encoding, hash: root } = baoTreeEncodeRanges(content, ranges, { key });
      expect(b3.toHex(root), label).toBe(b3.toHex(keyed));
      const { outboard } = baoTreeOutboard(content, { key, order: 'post' });
      expect(b3.toHex(baoTreeEncodeRanges(content, ranges, { key, outboard, order: 'post' }).encoding), label).toBe(b3.toHex(encoding));
      expectCovered(baoTreeDecodeRanges(encoding, root, size, ranges, { key }), content, ranges);
      const otherKey = key.slice();
      otherKey[0]! ^= 1;
      expect(
        thrownBy(() => baoTreeDecodeRanges(encoding, root, size, ranges, { key: otherKey })),
        label,
      ).toBeInstanceOf(BaoVerifyError);
      expect(
        thrownBy(() => baoTreeDecodeRanges(encoding, root, size, ranges)),
        label,
      ).toBeInstanceOf(BaoVerifyError);
    }
    const short = thrownBy(() => baoTreeOutboard(new Uint8Array(10), { key: new Uint8Array(31) }));
    expect(short).toBeInstanceOf(RangeError);
    expect(String(short)).toMatch(/options\.key/);
    expect(thrownBy(() => baoTreeEncodeRanges(new Uint8Array(10), [[0, 1]], { key: 'k' as never }))).toBeInstanceOf(TypeError);
  });

  it('sends the whole blob for [0, Infinity), and nothing for no ranges', () => {
    const content = rng.bytes(100_000);
    const { encoding, hash: root } = baoTreeEncodeRanges(content, [[0, Number.POSITIVE_INFINITY]]);
    const pieces = baoTreeDecodeRanges(encoding, root, content.length, [[0, Number.POSITIVE_INFINITY]]);
    expect(pieces.reduce((n, p) => n + p.bytes.length, 0)).toBe(content.length);
    expect(baoTreeEncodeRanges(content, []).encoding.length).toBe(0);
    expect(baoTreeEncodeRanges(content, [[5, 5]]).encoding.length).toBe(0);
    expect(baoTreeDecodeRanges(new Uint8Array(0), root, content.length, [])).toEqual([]);
  });

  it('answers a range past the end with the last chunk: a proof of the size', () => {
    const content = rng.bytes(5 * 1024 + 300);
    const { encoding, hash: root } = baoTreeEncodeRanges(content, [[1000, 1001]], { chunkLog: 0 });
    const pieces = baoTreeDecodeRanges(encoding, root, content.length, [[1000, 1001]], { chunkLog: 0 });
    expect(pieces).toHaveLength(1);
    expect(pieces[0]!.offset).toBe(5 * 1024);
    expect(pieces[0]!.bytes.length).toBe(300);
    // Claiming another size fails.
    expect(thrownBy(() => baoTreeDecodeRanges(encoding, root, content.length + 1024, [[1000, 1001]], { chunkLog: 0 }))).toBeInstanceOf(
      BaoVerifyError,
    );
  });

  it('rejects every changed byte, and short, long or misattributed encodings', () => {
    const content = rng.bytes(40 * 1024 + 17);
    const ranges: Ranges = [
      [3, 5],
      [30, 31],
    ];
    const { encoding, hash: root } = baoTreeEncodeRanges(content, ranges, { chunkLog: 2 });
    for (const i of bytePositions(encoding.length)) {
      const bad = encoding.slice();
      bad[i]! ^= 1;
      expect(
        thrownBy(() => baoTreeDecodeRanges(bad, root, content.length, ranges, { chunkLog: 2 })),
        `byte ${i}`,
      ).toBeInstanceOf(BaoVerifyError);
    }
    const decode = (bytes: Uint8Array, h = root, r = ranges) => thrownBy(() => baoTreeDecodeRanges(bytes, h, content.length, r, { chunkLog: 2 }));
    expect(decode(encoding.subarray(0, encoding.length - 1))).toBeInstanceOf(BaoVerifyError);
    expect(decode(new Uint8Array([...encoding, 0]))).toBeInstanceOf(BaoVerifyError);
    expect(decode(encoding, hash(new Uint8Array(1)))).toBeInstanceOf(BaoVerifyError);
    expect(decode(encoding, root, [[3, 6]])).toBeInstanceOf(BaoVerifyError);
    // Whole groups: at chunkLog 2 the 8 chunks from 8 have a parent above
    // their two groups; at 3 they are one group, sent without it.
    const open: Ranges = [[8, Number.POSITIVE_INFINITY]];
    const groups = baoTreeEncodeRanges(content, open, { chunkLog: 2 }).encoding;
    expect(baoTreeDecodeRanges(groups, root, content.length, open, { chunkLog: 2 }).length).toBeGreaterThan(1);
    expect(thrownBy(() => baoTreeDecodeRanges(groups, root, content.length, open, { chunkLog: 3 }))).toBeInstanceOf(BaoVerifyError);
  });

  it('checks its arguments', () => {
    const cases: [() => unknown, ErrorConstructor, RegExp][] = [
      [() => baoTreeEncodeRanges(new Uint8Array(10), 'all' as never), TypeError, /ranges/],
      [() => baoTreeEncodeRanges(new Uint8Array(10), [[1]] as never), TypeError, /ranges\[0\]/],
      [() => baoTreeEncodeRanges(new Uint8Array(10), [[2, 1]]), RangeError, /ranges\[0\]/],
      [() => baoTreeEncodeRanges(new Uint8Array(10), [[-1, 1]]), RangeError, /ranges\[0\]/],
      [() => baoTreeEncodeRanges(new Uint8Array(10), [[0, 1]], { chunkLog: 17 }), RangeError, /chunkLog/],
      [() => baoTreeDecodeRanges(new Uint8Array(0), new Uint8Array(32), -1, [[0, 1]]), RangeError, /size/],
      [() => baoTreeDecodeRanges(new Uint8Array(0), new Uint8Array(31), 10, [[0, 1]]), RangeError, /hash/],
    ];
    for (const [call, type, pattern] of cases) {
      const error = thrownBy(call);
      expect(error, String(call)).toBeInstanceOf(type);
      expect((error as Error).message).toMatch(pattern);
    }
  });
});
