// BDASL (dasl.ing/bdasl.html, "Big DASL"), its examples with its own
// values: "Parsing BDASL CIDs" (hash type 0x1e), "Streaming Verification"
// (check as you go, check within ranges, to the kilobyte) and "Verifying
// HTTP Range Requests" ("Fulfilling Range Requests": bytes 900-1299 need
// chunks 0-1023 and 1024-2047; "Example": bytes=500-1600 is chunks 0 and 1,
// 524 + 577 bytes). Its start-chunk formula says ceiling where its example
// needs the floor: the example is followed (src/addressing/bao-tree/http-range.ts).
import {
  baoDecodeStream,
  baoEncode,
  baoFetchRange,
  baoTreeDecodeRanges,
  baoTreeEncodeRanges,
  cid,
  httpRangeBytes,
  httpRangeChunks,
  parseCid,
  type VerifiedPiece,
} from 'blake3-kit/bao';
import { CID } from 'multiformats/cid';
import { describe, expect, it } from 'vitest';
import { loadBao, piecesOf, random, seed, thrownBy } from './setup.js';

const b3 = await loadBao();
const rng = random(seed);

describe(`BDASL (seed ${seed})`, () => {
  it('Parsing BDASL CIDs: a DASL CID (CIDv1, raw, base32) whose hash type is 0x1e', () => {
    const digest = b3.hash(rng.bytes(3000));
    const text = cid(digest);
    // DASL's CID is 'b' + base32 of 0x01 (v1), 0x55 (raw), then the multihash: 0x1e, 0x20 (32 bytes).
    expect(text.startsWith('bafkr4')).toBe(true);
    const theirs = CID.parse(text);
    expect([theirs.version, theirs.code, theirs.multihash.code, theirs.multihash.size]).toEqual([1, 0x55, 0x1e, 32]);
    expect(b3.toHex(parseCid(text).digest)).toBe(b3.toHex(digest));
  });

  it('Parsing BDASL CIDs: the other DASL codec, DRISL (0x71), names its block by the same BLAKE3', () => {
    const block = rng.bytes(500);
    const digest = b3.hash(block);
    const text = cid(digest, { codec: 'drisl' });
    // 0x01, 0x71 (DRISL, dag-cbor's code), 0x1e, 0x20.
    expect(text.startsWith('bafyr4')).toBe(true);
    const theirs = CID.parse(text);
    expect([theirs.version, theirs.code, theirs.multihash.code, theirs.multihash.size]).toEqual([1, 0x71, 0x1e, 32]);
    const parsed = parseCid(text);
    expect(parsed.codec).toBe(0x71);
    expect(b3.toHex(parsed.digest)).toBe(b3.toHex(b3.hash(block)));
  });

  it('Streaming Verification: checked as it arrives, in whole kilobytes, and within ranges', async () => {
    const content = rng.bytes(10 * 1024 + 300);
    const { encoding, hash } = baoEncode(content);
    // Check as you go: each piece passed on is verified, the first before the last has arrived.
    const pieces: Uint8Array[] = [];
    const reader = baoDecodeStream(
      piecesOf(encoding, () => 700),
      hash,
    ).getReader();
    for (let step = await reader.read(); !step.done; step = await reader.read()) pieces.push(step.value);
    expect(pieces.length).toBeGreaterThan(1);
    expect(b3.toHex(b3.hash(Uint8Array.from(pieces.flatMap((piece) => [...piece]))))).toBe(b3.toHex(hash));
    // Check within ranges: chunks 3 and 7 alone, verified without the bytes before them, "rounded to the kilobyte".
    const ranged = baoTreeEncodeRanges(content, [
      [3, 4],
      [7, 8],
    ]);
    const got = baoTreeDecodeRanges(ranged.encoding, ranged.hash, content.length, [
      [3, 4],
      [7, 8],
    ]);
    expect(got.map(({ offset, bytes }) => [offset, bytes.length])).toEqual([
      [3 * 1024, 1024],
      [7 * 1024, 1024],
    ]);
    expect(ranged.encoding.length).toBeLessThan(content.length / 2);
  });

  it('Fulfilling Range Requests: bytes 900-1299 fetch chunks 0-1023 and 1024-2047 (2048 bytes), then return 400', async () => {
    const content = rng.bytes(5000);
    expect(httpRangeChunks({ start: 900, end: 1299 })).toEqual([0, 2]);
    const { encoding: outboard, hash } = baoEncode(content, { outboard: true });
    const asked: string[] = [];
    const fetch = (async (_url: string, init?: RequestInit) => {
      const range = new Headers(init?.headers).get('Range')!;
      asked.push(range);
      const [, first, last] = /^bytes=(\d+)-(\d+)$/.exec(range)!;
      return new Response(content.slice(Number(first), Number(last) + 1), { status: 206 });
    }) as typeof globalThis.fetch;
    const bytes = await baoFetchRange('x', hash, { outboard, start: 900, length: 1299 - 900 + 1, fetch });
    expect(asked).toEqual(['bytes=0-2047']);
    expect(bytes.length).toBe(400);
    expect(b3.toHex(bytes)).toBe(b3.toHex(content.subarray(900, 1300)));
  });

  it('Example: bytes=500-1600 retrieves chunks 0 and 1 and extracts 524 + 577 bytes', () => {
    const content = rng.bytes(4096);
    const range = { start: 500, end: 1600 };
    // The spec's formula, ⌈500 / 1024⌉ = 1, would start at chunk 1 and lose bytes 500-1023; its example starts at chunk 0.
    const chunks = httpRangeChunks(range);
    expect(chunks).toEqual([0, 2]);
    const { encoding, hash } = baoTreeEncodeRanges(content, [chunks], { chunkLog: 0 });
    const pieces: VerifiedPiece[] = baoTreeDecodeRanges(encoding, hash, content.length, [chunks], { chunkLog: 0 });
    // Chunk 0 (offset 0, 1024 bytes) and chunk 1 (offset 1024, 1024 bytes).
    expect(pieces.map(({ offset, bytes }) => [offset, bytes.length])).toEqual([
      [0, 1024],
      [1024, 1024],
    ]);
    // Chunk 0: chunk_data[500..1024], 524 bytes; chunk 1: chunk_data[0..577], 577 bytes
    // (the spec writes chunk 1's intersection [1024, 1600), but its 577 bytes are [1024, 1601): end is inclusive).
    const bytes = httpRangeBytes(pieces, range);
    expect(bytes.length).toBe(524 + 577);
    expect(b3.toHex(bytes.subarray(0, 524))).toBe(b3.toHex(pieces[0]!.bytes.subarray(500, 1024)));
    expect(b3.toHex(bytes.subarray(524))).toBe(b3.toHex(pieces[1]!.bytes.subarray(0, 577)));
    expect(b3.toHex(bytes)).toBe(b3.toHex(content.subarray(500, 1601)));
    // The same from iroh's chunk groups (16 KiB): one piece, cut the same way.
    const grouped = baoTreeEncodeRanges(content, [chunks]);
    const groupPieces = baoTreeDecodeRanges(grouped.encoding, grouped.hash, content.length, [chunks]);
    expect(b3.toHex(httpRangeBytes(groupPieces, range))).toBe(b3.toHex(bytes));
  });

  it('maps every byte range to the chunks that hold it, no more, and cuts them back', () => {
    const content = rng.bytes(9000);
    for (let round = 0; round < 60; round++) {
      const start = rng.int(9000);
      const end = rng.int(4) === 0 ? undefined : start + rng.int(3000);
      const range = { start: rng.int(10) === 0 ? undefined : start, end };
      const [first, last] = httpRangeChunks(range);
      const from = range.start ?? 0;
      expect(first * 1024 <= from && from < (first + 1) * 1024).toBe(true);
      if (end !== undefined) expect(end >= (last - 1) * 1024 && end < last * 1024, `end ${end}`).toBe(true);
      const options = { chunkLog: rng.int(5) };
      const { encoding, hash } = baoTreeEncodeRanges(content, [[first, last]], options);
      const pieces = baoTreeDecodeRanges(encoding, hash, content.length, [[first, last]], options);
      const label = `${JSON.stringify(range)}, chunkLog ${options.chunkLog}`;
      const to = end === undefined ? content.length : Math.min(end + 1, content.length);
      expect(b3.toHex(httpRangeBytes(pieces, range)), label).toBe(b3.toHex(content.subarray(from, to)));
    }
    // The formula's end chunk, ⌈end / 1024⌉, would drop byte 1024's chunk here.
    expect(httpRangeChunks({ start: 0, end: 1024 })).toEqual([0, 2]);
    expect(httpRangeChunks({ end: 99 })).toEqual([0, 1]);
    expect(httpRangeChunks({ start: 2048 })).toEqual([2, Number.POSITIVE_INFINITY]);
    expect(thrownBy(() => httpRangeChunks({ start: 10, end: 9 }))).toBeInstanceOf(RangeError);
    expect(thrownBy(() => httpRangeChunks({ start: -1 }))).toBeInstanceOf(RangeError);
    expect(thrownBy(() => httpRangeBytes([{ offset: 2048, bytes: new Uint8Array(1024) }], { start: 0, end: 10 }))).toBeInstanceOf(RangeError);
  });
});
