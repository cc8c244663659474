// src/addressing/bao against the upstream crates themselves (crate/bao-oracle): the bao
// crate 0.13.1's combined encodings, outboards and slices, and bao-tree
// 0.17.0's pre- and post-order outboards and range encodings (random chunk
// range sets, open ones and ones past the end) at chunk_log 0 to 6, and its
// keyed ones (keyed_outboard, keyed_encode_ranges_validated) at 0, 2 and 4,
// for lengths around chunk and group boundaries, two of 12 levels and
// random ones. Both sides generate the same content from a seed; the
// oracle answers with BLAKE3s of its outputs.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { hash, keyedHash, toHex } from 'blake3-kit';
import { baoEncode, baoSlice, baoTreeDecodeRanges, baoTreeEncodeRanges, baoTreeOutboard } from 'blake3-kit/bao';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { loadBao, random, seed } from '../shared/setup.js';
import { root } from './packed.js';

interface Digest {
  len: number;
  blake3: string;
}
interface OracleTree {
  chunkLog: number;
  pre: Digest;
  post: Digest;
  ranges: Digest[];
}
interface OracleCase {
  len: number;
  hash: string;
  encoded: Digest;
  outboard: Digest;
  slices: Digest[];
  trees: OracleTree[];
  keyed: { hash: string; trees: OracleTree[] };
}

await loadBao();

const content = (len: number) => Uint8Array.from({ length: len }, (_, i) => (i * 31 + seed) % 251);
const digestOf = (bytes: Uint8Array): Digest => ({ len: bytes.length, blake3: toHex(hash(bytes)) });

/** Lengths at and either side of every chunk edge up to 20 chunks, of
 * group edges for chunk_log 1 to 6 at 1, 2, 3 and 5 groups (one group, a
 * power of two, and not), two of more than 2^11 chunks (12 levels, every
 * chunk_log multi-level), and 8 random ones up to 1 MiB. Was: +-2 around
 * chunk edges, 1 to 5 groups and 30 random lengths up to 2 MiB, 169
 * lengths in 102 s; the random megabytes were most of it (~1.3 s of JS
 * each). */
function lengths(rng: ReturnType<typeof random>): number[] {
  const all = new Set([0, 1, 2, 1023, 1024, 1025, (2 << 20) + 1, 3 << 19]);
  for (let k = 1; k <= 20; k++) for (let d = -1; d <= 1; d++) all.add(k * 1024 + d);
  for (let chunkLog = 1; chunkLog <= 6; chunkLog++) {
    for (const m of [1, 2, 3, 5]) for (const d of [-1, 0, 1]) all.add(m * (1024 << chunkLog) + d);
  }
  for (let i = 0; i < 8; i++) all.add(rng.int(1 << 20));
  return [...all].filter((n) => n >= 0).sort((a, b) => a - b);
}

/** Chunk range sets for a blob of `chunks` chunks, as the oracle takes them
 * (null: an open end): single chunks, spans, open ranges, several ranges at
 * once, and ranges past the end. */
function rangeSets(rng: ReturnType<typeof random>, chunks: number): [number, number | null][][] {
  const at = () => rng.int(chunks + 3);
  const sets: [number, number | null][][] = [[[0, null]], [[0, 1]], [[Math.max(0, chunks - 1), chunks]], [[chunks + 5, chunks + 9]], [[at(), null]]];
  for (let i = 0; i < 6; i++) {
    const set: [number, number | null][] = [];
    for (let n = 1 + rng.int(4); n > 0; n--) {
      const start = at();
      set.push([start, rng.int(5) === 0 ? null : start + 1 + rng.int(40)]);
    }
    sets.push(set);
  }
  return sets;
}

const asChunkRanges = (set: [number, number | null][]) => set.map(([start, end]) => [start, end ?? Number.POSITIVE_INFINITY] as const);

/** Our bao-tree outboards (both orders) and range encodings (from the
 * content, and from the outboard) against the oracle's, and what each
 * encoding carries decoded; returns how many range encodings it checked. */
function checkTrees(
  bytes: Uint8Array,
  root: Uint8Array,
  ranges: [number, number | null][][],
  trees: OracleTree[],
  key: Uint8Array | undefined,
  label: string,
): number {
  let checked = 0;
  for (const { chunkLog, pre, post, ranges: theirs } of trees) {
    const { outboard: preOutboard } = baoTreeOutboard(bytes, { chunkLog, key });
    expect(digestOf(preOutboard), `${label} chunkLog ${chunkLog} pre`).toEqual(pre);
    expect(digestOf(baoTreeOutboard(bytes, { chunkLog, order: 'post', key }).outboard), `${label} chunkLog ${chunkLog} post`).toEqual(post);
    for (const [k, set] of ranges.entries()) {
      const chunkRanges = asChunkRanges(set);
      const { encoding } = baoTreeEncodeRanges(bytes, chunkRanges, { chunkLog, key });
      const where = `${label} chunkLog ${chunkLog} ranges ${JSON.stringify(set)}`;
      expect(digestOf(encoding), where).toEqual(theirs[k]);
      const fromOutboard = baoTreeEncodeRanges(bytes, chunkRanges, { chunkLog, outboard: preOutboard, key }).encoding;
      expect(digestOf(fromOutboard), `${where}, from the outboard`).toEqual(theirs[k]);
      // And what it carries is the content, verified.
      for (const piece of baoTreeDecodeRanges(encoding, root, bytes.length, chunkRanges, { chunkLog, key })) {
        if (toHex(piece.bytes) !== toHex(bytes.subarray(piece.offset, piece.offset + piece.bytes.length)))
          expect.fail(`${where}: piece at ${piece.offset}`);
      }
      checked++;
    }
  }
  return checked;
}

describe.runIf(inject('flavour') === 'simd')(`src/addressing/bao against the bao and bao-tree crates (seed ${seed})`, () => {
  const rng = random(seed);
  const key = rng.bytes(32);
  const cases = lengths(rng).map((len) => ({
    len,
    slices: [
      [rng.int(len + 1), rng.int(5000)],
      [rng.int(len + 1), 0],
      [len + rng.int(3000), rng.int(100)],
      [Math.max(0, len - 1), 1],
      [rng.int(len + 1), rng.int(len + 1)],
    ],
    ranges: rangeSets(rng, Math.ceil(len / 1024)),
  }));

  // One run of the oracle for every case; a test per format, so that a
  // failure names the format.
  let oracle: OracleCase[];
  beforeAll(() => {
    const run = spawnSync('cargo', ['run', '-q', '--release', '--manifest-path', join(root, 'crate', 'Cargo.toml'), '-p', 'blake3-kit-bao-oracle'], {
      input: JSON.stringify({ seed, key: [...key], cases }),
      encoding: 'utf8',
      maxBuffer: 1 << 28,
      timeout: 300_000,
    });
    expect(run.stderr).toBe('');
    oracle = JSON.parse(run.stdout) as OracleCase[];
    expect(oracle).toHaveLength(cases.length);
  }, 300_000);

  it(`the bao crate: combined encodings, outboards and slices, on ${cases.length} lengths`, () => {
    for (const [i, { len, slices }] of cases.entries()) {
      const theirs = oracle[i]!;
      const bytes = content(len);
      const { encoding, hash: root } = baoEncode(bytes);
      const label = `length ${len}`;
      expect(toHex(root), label).toBe(theirs.hash);
      expect(digestOf(encoding), label).toEqual(theirs.encoded);
      expect(digestOf(baoEncode(bytes, { outboard: true }).encoding), label).toEqual(theirs.outboard);
      expect(
        slices.map(([start, count]) => digestOf(baoSlice(encoding, start!, count!))),
        label,
      ).toEqual(theirs.slices);
    }
  });

  it(`bao-tree: pre- and post-order outboards and range encodings at chunk_log 0 to 6, on ${cases.length} lengths`, () => {
    let rangeEncodings = 0;
    for (const [i, { len, ranges }] of cases.entries()) {
      const bytes = content(len);
      rangeEncodings += checkTrees(bytes, hash(bytes), ranges, oracle[i]!.trees, undefined, `length ${len}`);
    }
    expect(rangeEncodings).toBeGreaterThan(1000);
  }, 300_000);

  it(`bao-tree keyed (keyed_outboard, keyed_encode_ranges_validated) at chunk_log 0, 2 and 4, on ${cases.length} lengths`, () => {
    let rangeEncodings = 0;
    for (const [i, { len, ranges }] of cases.entries()) {
      const theirs = oracle[i]!;
      const bytes = content(len);
      const label = `length ${len} keyed`;
      expect(toHex(keyedHash(key, bytes)), label).toBe(theirs.keyed.hash);
      rangeEncodings += checkTrees(bytes, keyedHash(key, bytes), ranges, theirs.keyed.trees, key, label);
    }
    expect(rangeEncodings).toBeGreaterThan(100);
  }, 300_000);
});
