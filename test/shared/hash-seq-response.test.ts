// iroh-blobs' responses back to back on one stream, on every backend: a
// BaoTreeResponseReader passed to one baoTreeDecodeRangesStream after
// another, and baoTreeDecodeHashSeq over a whole hash-seq response. The
// responses are built here as iroh-blobs' provider frames them (a u64 LE
// size, then the bao-tree encoding at chunk log 4; nothing for an empty
// range set); test/node/hash-seq-stream.test.ts holds the same framing to
// the bao-tree crate's encodings.
import {
  BaoTreeResponseReader,
  BaoVerifyError,
  baoTreeDecodeHashSeq,
  baoTreeDecodeRanges,
  baoTreeDecodeRangesStream,
  baoTreeEncodeRanges,
  type ChunkRangeList,
  type HashSeqPiece,
  hashSeq,
  type VerifiedPiece,
} from 'blake3-kit/bao';
import { describe, expect, it } from 'vitest';
import { concatBytes, loadBao, piecesOf, random, seed } from './setup.js';

const b3 = await loadBao();
const rng = random(seed);
const ALL: ChunkRangeList = [[0, Number.POSITIVE_INFINITY]];

/** One blob's response as iroh-blobs sends it; empty for an empty range set. */
function response(content: Uint8Array, ranges: ChunkRangeList): Uint8Array {
  if (ranges.every(([start, end]) => end <= start)) return new Uint8Array(0);
  const size = new Uint8Array(8);
  new DataView(size.buffer).setBigUint64(0, BigInt(content.length), true);
  return concatBytes([size, baoTreeEncodeRanges(content, ranges, { chunkLog: 4 }).encoding]);
}

/** A hash seq of `sizes`, and the response to `ranges` (by iroh offset),
 * with where each blob's response starts and ends in it. */
function hashSeqResponse(sizes: number[], ranges: ChunkRangeList[]) {
  const children = sizes.map((size) => rng.bytes(size));
  const seq = hashSeq(children.map((child) => b3.hash(child)));
  const parts = [seq, ...children].map((blob, index) => response(blob, ranges[index] ?? []));
  const spans: [number, number][] = [];
  let at = 0;
  for (const part of parts) spans.push([at, (at += part.length)]);
  return { children, seq, hash: b3.hash(seq), bytes: concatBytes(parts), spans };
}

async function drain<T>(stream: ReadableStream<T>): Promise<{ items: T[]; error?: unknown }> {
  const items: T[] = [];
  const reader = stream.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { items };
      items.push(value);
    }
  } catch (error) {
    return { items, error };
  }
}

const hexOf = (pieces: VerifiedPiece[]) => pieces.map(({ offset, bytes }) => `${offset}:${b3.toHex(bytes)}`);

const SIZES = [0, 1, 1024, 16 * 1024 + 1, 100 * 1024];
const RANGES: ChunkRangeList[] = [
  ALL,
  ALL,
  [],
  [[0, 1]],
  [[3, 17]],
  [
    [0, 2],
    [50, Number.POSITIVE_INFINITY],
  ],
];

describe(`hash-seq responses on one stream (seed ${seed})`, () => {
  it('a reader passed to one decode after another: each reads its own response and leaves the rest', async () => {
    const { children, seq, hash, bytes } = hashSeqResponse(SIZES, RANGES);
    const reader = new BaoTreeResponseReader(piecesOf(bytes, () => 1 + rng.int(3000)));
    const blobs = [seq, ...children];
    const hashes = [hash, ...children.map((child) => b3.hash(child))];
    for (let index = 0; index < blobs.length; index++) {
      const ranges = RANGES[index]!;
      if (ranges.length === 0) continue;
      const size = await reader.readSize();
      expect(size, `blob ${index}`).toBe(blobs[index]!.length);
      const { items, error } = await drain(baoTreeDecodeRangesStream(reader, hashes[index]!, size!, ranges, { chunkLog: 4 }));
      expect(error, `blob ${index}`).toBeUndefined();
      const alone = response(blobs[index]!, ranges).subarray(8);
      expect(hexOf(items), `blob ${index}`).toEqual(hexOf(baoTreeDecodeRanges(alone, hashes[index]!, size!, ranges, { chunkLog: 4 })));
    }
    expect(await reader.atEnd()).toBe(true);
    expect(await reader.readSize()).toBeUndefined();
  });

  it('one decode at a time, and none after one fails', async () => {
    const { hash, seq, bytes } = hashSeqResponse([5000], [ALL, ALL]);
    const reader = new BaoTreeResponseReader(piecesOf(bytes, () => 100));
    const size = await reader.readSize();
    const stream = baoTreeDecodeRangesStream(reader, hash, size!, ALL, { chunkLog: 4 });
    expect(() => baoTreeDecodeRangesStream(reader, hash, size!, ALL, { chunkLog: 4 })).toThrow(/in use/);
    await expect(reader.readSize()).rejects.toThrow(/in use/);
    expect(hexOf((await drain(stream)).items)).toEqual([`0:${b3.toHex(seq)}`]);
    // The next response decoded against the wrong hash: it fails, and the reader reads no more.
    const next = await reader.readSize();
    const { error } = await drain(baoTreeDecodeRangesStream(reader, hash, next!, ALL, { chunkLog: 4 }));
    expect(error).toBeInstanceOf(BaoVerifyError);
    await expect(reader.readSize()).rejects.toThrow(/reads no more/);
  });

  it('a size header cut short or past 2^53 is a BaoVerifyError', async () => {
    await expect(new BaoTreeResponseReader(piecesOf(new Uint8Array(5), () => 2)).readSize()).rejects.toThrow(BaoVerifyError);
    const huge = new Uint8Array(8).fill(0xff);
    await expect(new BaoTreeResponseReader(piecesOf(huge, () => 8)).readSize()).rejects.toThrow(/past 2\^53/);
  });

  it('baoTreeDecodeHashSeq: every blob asked for, in order, from pieces of any size', async () => {
    const { children, seq, hash, bytes } = hashSeqResponse(SIZES, RANGES);
    for (const piece of [() => 1 + rng.int(7), () => 1 + rng.int(40_000)]) {
      const { items, error } = await drain(baoTreeDecodeHashSeq(piecesOf(bytes, piece), hash, RANGES));
      expect(error).toBeUndefined();
      const byIndex = (index: number) => items.filter((item) => item.index === index);
      expect(b3.toHex(concatBytes(byIndex(0).map((item) => item.bytes)))).toBe(b3.toHex(seq));
      expect(byIndex(2)).toEqual([]); // its range set is empty: nothing sent
      for (let i = 0; i < children.length; i++) {
        const ranges = RANGES[i + 1]!;
        if (ranges.length === 0) continue;
        const mine = byIndex(i + 1);
        const alone = response(children[i]!, ranges).subarray(8);
        expect(hexOf(mine), `child ${i}`).toEqual(
          hexOf(baoTreeDecodeRanges(alone, b3.hash(children[i]!), children[i]!.length, ranges, { chunkLog: 4 })),
        );
        for (const item of mine) {
          expect(item.size).toBe(children[i]!.length);
          expect(b3.toHex(item.hash)).toBe(b3.toHex(b3.hash(children[i]!)));
        }
      }
    }
  });

  it('a changed byte in any blob errors with a BaoVerifyError naming it, after verified pieces only', async () => {
    const { children, hash, bytes, spans } = hashSeqResponse(SIZES, RANGES);
    for (let blob = 0; blob < spans.length; blob++) {
      const [start, end] = spans[blob]!;
      // Its encoding past the size header, where every byte is hashed; and
      // the size header of the HashSeq and of the empty child, whose ranges
      // reach their last chunk (a size header is vouched for only as far as
      // the ranges reach: bao-tree's and iroh's rule too).
      const encoded = end - start - 8;
      const positions = encoded > 0 ? [start + 8, end - 1, start + 8 + rng.int(encoded)] : [];
      if (blob <= 1) positions.push(start + rng.int(8));
      for (const at of positions) {
        const changed = bytes.slice();
        changed[at]! ^= 1 << rng.int(8);
        const { items, error } = await drain(
          baoTreeDecodeHashSeq(
            piecesOf(changed, () => 1 + rng.int(5000)),
            hash,
            RANGES,
          ),
        );
        const label = `blob ${blob}, byte ${at}`;
        expect(error, label).toBeInstanceOf(BaoVerifyError);
        expect(String(error), label).toMatch(blob === 0 ? /HashSeq|hash/ : new RegExp(`child ${blob - 1} \\(`));
        expect(
          items.every((item) => item.index <= blob),
          label,
        ).toBe(true);
        for (const item of items.filter((item) => item.index > 0)) {
          const child = children[item.index - 1]!;
          expect(b3.toHex(item.bytes), label).toBe(b3.toHex(child.subarray(item.offset, item.offset + item.bytes.length)));
        }
      }
    }
  });

  it('a stream cut anywhere fails; bytes after the last response fail after every blob was passed on', async () => {
    const { hash, bytes, spans } = hashSeqResponse(SIZES, RANGES);
    const cuts = [0, 4, 8, ...spans.map(([start]) => start), bytes.length - 1, ...Array.from({ length: 6 }, () => rng.int(bytes.length))];
    for (const cut of cuts) {
      const { error } = await drain(
        baoTreeDecodeHashSeq(
          piecesOf(bytes.subarray(0, cut), () => 1 + rng.int(5000)),
          hash,
          RANGES,
        ),
      );
      expect(error, `cut at ${cut} of ${bytes.length}`).toBeInstanceOf(BaoVerifyError);
    }
    const whole = await drain(
      baoTreeDecodeHashSeq(
        piecesOf(bytes, () => 4096),
        hash,
        RANGES,
      ),
    );
    const extra = await drain(
      baoTreeDecodeHashSeq(
        piecesOf(concatBytes([bytes, new Uint8Array(1)]), () => 4096),
        hash,
        RANGES,
      ),
    );
    expect(String(extra.error)).toMatch(/bytes past its last blob/);
    expect(extra.items.length).toBe(whole.items.length);
  });

  it('takes the HashSeq from options when the request skips it, checked against the hash', async () => {
    const ranges = [[], ALL, ALL];
    const { children, seq, hash, bytes } = hashSeqResponse([3000, 70_000], ranges);
    const { items, error } = await drain(
      baoTreeDecodeHashSeq(
        piecesOf(bytes, () => 999),
        hash,
        ranges,
        { hashSeq: seq },
      ),
    );
    expect(error).toBeUndefined();
    for (let i = 0; i < 2; i++)
      expect(b3.toHex(concatBytes(items.filter((item) => item.index === i + 1).map((item) => item.bytes)))).toBe(b3.toHex(children[i]!));
    const wrong = seq.slice();
    wrong[0]! ^= 1;
    expect(
      String(
        (
          await drain(
            baoTreeDecodeHashSeq(
              piecesOf(bytes, () => 999),
              hash,
              ranges,
              { hashSeq: wrong },
            ),
          )
        ).error,
      ),
    ).toMatch(/options.hashSeq does not match/);
    expect(
      (
        await drain(
          baoTreeDecodeHashSeq(
            piecesOf(bytes, () => 999),
            hash,
            ranges,
          ),
        )
      ).error,
    ).toBeInstanceOf(TypeError);
    // A function of the offset: all of everything, as iroh's ChunkRangesSeq::all().
    const all = hashSeqResponse([1, 2000], [ALL, ALL, ALL]);
    const got: HashSeqPiece[] = (
      await drain(
        baoTreeDecodeHashSeq(
          piecesOf(all.bytes, () => 64),
          all.hash,
          () => ALL,
        ),
      )
    ).items;
    expect(got.map((item) => item.index)).toEqual([0, 1, 2]);
  });

  it('refuses part of the HashSeq and one past maxHashSeqLength', async () => {
    const { hash, bytes } = hashSeqResponse(
      Array.from({ length: 40 }, () => 10),
      [ALL],
    );
    const part = await drain(
      baoTreeDecodeHashSeq(
        piecesOf(bytes, () => 500),
        hash,
        [[[1, 2]]],
      ),
    );
    expect(part.error).toBeInstanceOf(RangeError);
    const big = await drain(
      baoTreeDecodeHashSeq(
        piecesOf(bytes, () => 500),
        hash,
        [ALL],
        { maxHashSeqLength: 32 * 39 },
      ),
    );
    expect(String(big.error)).toMatch(/maxHashSeqLength/);
    expect(
      (
        await drain(
          baoTreeDecodeHashSeq(
            piecesOf(bytes, () => 500),
            hash,
            [ALL],
            { maxHashSeqLength: 32 * 40 },
          ),
        )
      ).error,
    ).toBeUndefined();
  });
});
