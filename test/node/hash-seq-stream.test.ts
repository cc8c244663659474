// A whole iroh-blobs hash-seq response as the bao-tree crate encodes it
// (crate/bao-oracle `hash-seq`: iroh-blobs' provider framing, a u64 LE size
// and encode_ranges_validated at chunk log 4 per blob asked for), read by
// baoTreeDecodeHashSeq and by a BaoTreeResponseReader decode by decode.
// Children of 0, 1, 1024, 16 KiB + 1 and 100 KiB, one with an empty range
// set (nothing sent), ranges in part, past the end and open.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { hash, toHex } from 'blake3-kit';
import {
  BaoTreeResponseReader,
  BaoVerifyError,
  baoTreeDecodeHashSeq,
  baoTreeDecodeRangesStream,
  baoTreeEncodeRanges,
  type ChunkRangeList,
  type HashSeqPiece,
} from 'blake3-kit/bao';
import { describe, expect, it } from 'vitest';
import { concatBytes, loadBao, piecesOf, random, seed } from '../shared/setup.js';
import { root } from './packed.js';

await loadBao();
const rng = random(seed);
const OPEN = Number.POSITIVE_INFINITY;
const fromHex = (hex: string) => new Uint8Array(Buffer.from(hex, 'hex'));

const content = (len: number, salt: number) => Uint8Array.from({ length: len }, (_, i) => (i * 31 + salt) % 251);
const SIZES = [0, 1, 1024, 16 * 1024 + 1, 100 * 1024];
const CASES: { name: string; ranges: ChunkRangeList[] }[] = [
  {
    name: 'in part, one empty, one past the end',
    ranges: [
      [[0, OPEN]],
      [[0, OPEN]],
      [],
      [[0, 1]],
      [[3, 17]],
      [
        [0, 2],
        [50, OPEN],
      ],
    ],
  },
  { name: 'every blob whole', ranges: [[[0, OPEN]], [[0, OPEN]], [[0, OPEN]], [[0, OPEN]], [[0, OPEN]], [[0, OPEN]]] },
  { name: 'past the ends only (size proofs)', ranges: [[[0, OPEN]], [[9, 10]], [[9, 10]], [[99, OPEN]], [[17, 18]], [[200, 300]]] },
];

function oracle(ranges: ChunkRangeList[]): { hash: string; children: string[]; response: Uint8Array } {
  const json = (set: ChunkRangeList) => set.map(([start, end]) => [start, end === OPEN ? null : end]);
  const run = spawnSync(
    'cargo',
    ['run', '-q', '--release', '--manifest-path', join(root, 'crate', 'Cargo.toml'), '-p', 'blake3-kit-bao-oracle', '--', 'hash-seq'],
    {
      input: JSON.stringify({ seed, children: SIZES, ranges: ranges.map(json) }),
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      timeout: 300_000,
    },
  );
  expect(run.status, run.stderr).toBe(0);
  const answer = JSON.parse(run.stdout) as { hash: string; children: string[]; response: string };
  return { ...answer, response: fromHex(answer.response) };
}

/** The response framed here with our encoder: each blob's part. */
function framed(ranges: ChunkRangeList[], seq: Uint8Array, children: Uint8Array[]): Uint8Array[] {
  return [seq, ...children].map((blob, index) => {
    if (ranges[index]!.length === 0) return new Uint8Array(0);
    const size = new Uint8Array(8);
    new DataView(size.buffer).setBigUint64(0, BigInt(blob.length), true);
    return concatBytes([size, baoTreeEncodeRanges(blob, ranges[index]!, { chunkLog: 4 }).encoding]);
  });
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

/** What each blob's pieces must be: its content where they are. */
function expectContent(items: HashSeqPiece[], children: Uint8Array[], seq: Uint8Array, label: string) {
  for (const item of items) {
    const blob = item.index === 0 ? seq : children[item.index - 1]!;
    expect(item.size, label).toBe(blob.length);
    expect(toHex(item.bytes), `${label}, blob ${item.index} at ${item.offset}`).toBe(
      toHex(blob.subarray(item.offset, item.offset + item.bytes.length)),
    );
  }
}

describe(`iroh hash-seq responses from the bao-tree crate (seed ${seed})`, { timeout: 600_000 }, () => {
  const children = SIZES.map((size, i) => content(size, seed + i));
  const seq = concatBytes(children.map((child) => hash(child)));

  it.each(CASES)('baoTreeDecodeHashSeq reads them: $name', async ({ ranges }) => {
    const answer = oracle(ranges);
    expect(answer.children).toEqual(children.map((child) => toHex(hash(child))));
    expect(answer.hash).toBe(toHex(hash(seq)));
    // Our encoder framed as iroh-blobs' provider frames it: the same bytes.
    const ours = concatBytes(framed(ranges, seq, children));
    expect([ours.length, toHex(hash(ours))]).toEqual([answer.response.length, toHex(hash(answer.response))]);
    const { items, error } = await drain(
      baoTreeDecodeHashSeq(
        piecesOf(answer.response, () => 1 + rng.int(20_000)),
        fromHex(answer.hash),
        ranges,
      ),
    );
    expect(error).toBeUndefined();
    expectContent(items, children, seq, 'whole');
    // Each blob asked for is there (an empty blob as one empty piece); the one with no ranges is not.
    const seen = new Set(items.map((item) => item.index));
    for (const [index, set] of ranges.entries()) expect(seen.has(index), `blob ${index}`).toBe(set.length > 0);
    // The whole HashSeq, and child 4's last chunk (asked for, or past the end) in every case.
    expect(toHex(concatBytes(items.filter((item) => item.index === 0).map((item) => item.bytes)))).toBe(toHex(seq));
    expect(items.some((item) => item.index === 5 && item.offset + item.bytes.length === 100 * 1024)).toBe(true);
  });

  it('a reader decodes them one by one and ends where the stream does', async () => {
    const { ranges } = CASES[0]!;
    const answer = oracle(ranges);
    const reader = new BaoTreeResponseReader(piecesOf(answer.response, () => 1 + rng.int(3000)));
    const blobs = [seq, ...children];
    for (let index = 0; index < blobs.length; index++) {
      if (ranges[index]!.length === 0) continue;
      const size = await reader.readSize();
      expect(size).toBe(blobs[index]!.length);
      const { items, error } = await drain(baoTreeDecodeRangesStream(reader, hash(blobs[index]!), size!, ranges[index]!, { chunkLog: 4 }));
      expect(error, `blob ${index}`).toBeUndefined();
      expectContent(
        items.map((piece) => ({ ...piece, index, hash: new Uint8Array(32), size: size! })),
        children,
        seq,
        `blob ${index}`,
      );
    }
    expect(await reader.atEnd()).toBe(true);
  });

  it('a changed byte in any child fails naming it; a cut stream fails; a byte after the end fails after every blob', async () => {
    const { ranges } = CASES[0]!;
    const answer = oracle(ranges);
    const rootHash = fromHex(answer.hash);
    const starts = [0];
    for (const part of framed(ranges, seq, children)) starts.push(starts.at(-1)! + part.length);
    for (let index = 1; index < ranges.length; index++) {
      const [start, end] = [starts[index]!, starts[index + 1]!];
      // Its encoding past the size header (every byte of it is hashed), and
      // for the empty child (whose ranges reach its last chunk) the header.
      const encoded = end - start - 8;
      const positions = encoded > 0 ? [start + 8, end - 1, ...Array.from({ length: 8 }, () => start + 8 + rng.int(encoded))] : [];
      if (end > start && children[index - 1]!.length === 0) positions.push(start + rng.int(8));
      for (const at of positions) {
        const changed = answer.response.slice();
        changed[at]! ^= 1 << rng.int(8);
        const { items, error } = await drain(
          baoTreeDecodeHashSeq(
            piecesOf(changed, () => 1 + rng.int(5000)),
            rootHash,
            ranges,
          ),
        );
        expect(error, `byte ${at}`).toBeInstanceOf(BaoVerifyError);
        expect(String(error), `byte ${at}`).toMatch(new RegExp(`child ${index - 1} \\(${toHex(hash(children[index - 1]!)).slice(0, 8)}`));
        expectContent(items, children, seq, `byte ${at}`);
      }
    }
    for (const cut of [...starts.slice(1, -1), answer.response.length - 1, rng.int(answer.response.length)]) {
      const { error } = await drain(
        baoTreeDecodeHashSeq(
          piecesOf(answer.response.subarray(0, cut), () => 4096),
          rootHash,
          ranges,
        ),
      );
      expect(error, `cut at ${cut}`).toBeInstanceOf(BaoVerifyError);
    }
    const whole = await drain(
      baoTreeDecodeHashSeq(
        piecesOf(answer.response, () => 4096),
        rootHash,
        ranges,
      ),
    );
    const extra = await drain(
      baoTreeDecodeHashSeq(
        piecesOf(concatBytes([answer.response, Uint8Array.of(0)]), () => 4096),
        rootHash,
        ranges,
      ),
    );
    expect(String(extra.error)).toMatch(/bytes past its last blob/);
    expect(extra.items.length).toBe(whole.items.length);
  });
});
