// Fuzz: src/addressing/bao's verifiers against the crates' own on hostile input. Random
// contents around chunk and group edges and up to 300 KiB are encoded (our
// encoders, which test/node/bao-oracle.test.ts holds byte-identical to the
// crates'), then corrupted: bit flips in the header, the first nodes, the
// last chunk or anywhere; truncation; bytes appended; a changed length
// header; a wrong hash; slice, size, range, chunk_log and key parameters that
// differ from the encoding's. The corrupted inputs go to crate/bao-oracle
// (mode `decode`, all cases in one run): bao 0.13.1's decode, outboard Decoder
// and SliceDecoder, and bao-tree 0.17.0's DecodeResponseIter. Ours must
// agree accept for accept, with the same bytes (and for bao-tree the same
// pieces); the whole-buffer verifiers and the streaming ones, fed in random
// pieces (1-byte and empty ones too). A rejection must be a BaoVerifyError.
//
// Where we differ from the crates on purpose, mapped explicitly:
// - Bytes past the end: the crates' decoders read what the tree needs and
//   leave the rest unread; ours reject any byte past the last node (and
//   content or an outboard longer than its header says). The oracle reports
//   how much of each input its decoder read: we accept exactly when it
//   accepts and read all of every input.
// - A stream may pass on verified bytes before it errors (the crates'
//   readers do too): everything passed on before the error must be the
//   content's own bytes at their offsets; the verdict is how the stream ends.
// Same policy, no mapping: a length header that disagrees with the content
// is rejected by both wherever the walk meets the difference; a slice, or a
// bao-tree range encoding with a wrong size, that never reaches the end of
// the content is accepted by both (only the last chunk proves the length),
// and a length header past 2^53 - 1, which ours refuse before reading, fails
// the crates' checks as well.
//
// A failure lists its seed (BLAKE3_KIT_SEED=<seed> reproduces it), the case,
// what was done to it and both verdicts.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { hash, toHex } from 'blake3-kit';
import {
  baoDecode,
  baoDecodeOutboard,
  baoDecodeSlice,
  baoDecodeStream,
  baoEncode,
  baoSlice,
  BaoVerifyError,
  baoTreeDecodeRanges,
  baoTreeDecodeRangesStream,
  baoTreeEncodeRanges,
  type ByteSource,
  type VerifiedPiece,
} from 'blake3-kit/bao';
import { beforeAll, describe, expect, it } from 'vitest';
import { backend, concatBytes, loadBao, random, randomChunkRanges, seed } from '../shared/setup.js';
import { root } from './packed.js';

await loadBao();

type Rng = ReturnType<typeof random>;
type Ranges = [number, number][];

interface Case {
  kind: 'combined' | 'outboard' | 'slice' | 'tree';
  /** The true content (its bytes are what any verified output must hold). */
  content: Uint8Array;
  hash: Uint8Array;
  /** What both decoders are given: [encoding], [content, outboard], [slice]. */
  inputs: Uint8Array[];
  /** What was done to it, for a failure's message. */
  what: string;
  start?: number;
  length?: number;
  size?: number;
  ranges?: Ranges;
  chunkLog?: number;
  key?: Uint8Array;
}

interface Answer {
  ok: boolean;
  read: number[];
  output?: { len: number; blake3: string };
  pieces?: [number, number][];
  error?: string;
}

type Verdict = { ok: true; output: Uint8Array; pieces?: [number, number][] } | { ok: false; error: unknown };

/** Per kind: how many cases (each also decoded by the streaming verifier where there is one). */
const COUNTS = { combined: 200, outboard: 160, slice: 240, tree: 320 };
const MAX_LENGTH = 300 * 1024;

/** A content length: around a chunk edge, around a group edge (chunk_log 1
 * to 6), or anywhere up to MAX_LENGTH. */
function randomLength(rng: Rng): number {
  const near = (edge: number) => Math.max(0, edge + rng.int(3) - 1);
  const pick = rng.int(3);
  if (pick === 0) return near(rng.int(9) * 1024);
  if (pick === 1) return near((1 + rng.int(3)) * (1024 << (1 + rng.int(6))));
  return rng.int(MAX_LENGTH + 1);
}

/** A bit flipped at 1-3 places: in the header, the first nodes, the last
 * chunk or anywhere. */
function flip(rng: Rng, bytes: Uint8Array, header: boolean): string {
  const places: number[] = [];
  for (let n = 1 + rng.int(3); n > 0 && bytes.length > 0; n--) {
    const region = rng.int(4);
    const at =
      region === 0 && header
        ? rng.int(8)
        : region === 1
          ? rng.int(Math.min(bytes.length, 8 + 64 * 8))
          : region === 2
            ? bytes.length - 1 - rng.int(Math.min(bytes.length, 1100))
            : rng.int(bytes.length);
    bytes[at]! ^= 1 << rng.int(8);
    places.push(at);
  }
  return `bit flipped at ${places.join(', ')}`;
}

function setHeader(bytes: Uint8Array, length: bigint): void {
  new DataView(bytes.buffer, bytes.byteOffset, 8).setBigUint64(0, length, true);
}

/** `bytes` corrupted one way, or (one time in four) not at all; `header`:
 * it starts with a Bao length header worth changing. */
function corrupt(rng: Rng, bytes: Uint8Array, header: boolean): { bytes: Uint8Array; what: string } {
  const out = bytes.slice();
  if (rng.int(4) === 0 || bytes.length === 0) return { bytes: out, what: 'intact' };
  switch (rng.int(header ? 5 : 4)) {
    case 0:
    case 1:
      return { bytes: out, what: flip(rng, out, header) };
    case 2: {
      const at = [0, bytes.length - 1, rng.int(bytes.length), rng.int(Math.min(bytes.length, 80))][rng.int(4)]!;
      return { bytes: bytes.slice(0, at), what: `truncated to ${at} of ${bytes.length}` };
    }
    case 3: {
      const extra = rng.int(3) === 0 ? new Uint8Array(1 + rng.int(3)) : rng.bytes(1 + rng.int(1100));
      return { bytes: concatBytes([bytes, extra]), what: `${extra.length} bytes appended` };
    }
    default: {
      if (out.length < 8) return { bytes: out, what: 'intact (too short for a header change)' };
      const was = new DataView(out.buffer, 0, 8).getBigUint64(0, true);
      const deltas = [1n, -1n, 1024n, -1024n, 1025n, BigInt(rng.int(1 << 20)) - (1n << 19n)];
      const choices = [...deltas.map((d) => was + d), 0n, BigInt(rng.int(2 ** 31)) << 32n, 2n ** 53n, 2n ** 64n - 1n];
      const chosen = choices[rng.int(choices.length)]!;
      const length = chosen < 0n ? 0n : chosen;
      setHeader(out, length);
      return { bytes: out, what: `length header ${was} -> ${length}` };
    }
  }
}

function combinedCase(rng: Rng): Case {
  const content = rng.bytes(randomLength(rng));
  const { encoding, hash } = baoEncode(content);
  const { bytes, what } = corrupt(rng, encoding, true);
  return { kind: 'combined', content, ...wrongHash(rng, hash, what), inputs: [bytes] };
}

function outboardCase(rng: Rng): Case {
  const content = rng.bytes(randomLength(rng));
  const { encoding, hash } = baoEncode(content, { outboard: true });
  const which = rng.int(3);
  // One of the two corrupted (or not), or both.
  const tree = which === 1 ? { bytes: encoding, what: 'intact' } : corrupt(rng, encoding, true);
  const data = which === 0 ? { bytes: content, what: 'intact' } : corrupt(rng, content, false);
  return { kind: 'outboard', content, ...wrongHash(rng, hash, `outboard ${tree.what}; content ${data.what}`), inputs: [data.bytes, tree.bytes] };
}

function sliceCase(rng: Rng): Case {
  const content = rng.bytes(randomLength(rng));
  const { encoding, hash } = baoEncode(content);
  const span = () => [0, 1, rng.int(3000), rng.int(content.length + 1)][rng.int(4)]!;
  const start = rng.int(content.length + 1 + (rng.int(4) === 0 ? 5000 : 0));
  const length = span();
  const { bytes, what } = corrupt(rng, baoSlice(encoding, start, length), true);
  // One time in five the slice is decoded as another one.
  const other = rng.int(5) === 0;
  const at = other ? { start: rng.int(content.length + 2), length: span() } : { start, length };
  const asked = other ? `; made for [${start}, +${length}), decoded as [${at.start}, +${at.length})` : ` [${start}, +${length})`;
  return { kind: 'slice', content, ...wrongHash(rng, hash, what + asked), inputs: [bytes], ...at };
}

function treeCase(rng: Rng): Case {
  const content = rng.bytes(randomLength(rng));
  const chunks = Math.ceil(content.length / 1024);
  const ranges: Ranges = rng.int(12) === 0 ? [] : randomChunkRanges(rng, chunks);
  const chunkLog = rng.int(7);
  const key = rng.int(4) === 0 ? rng.bytes(32) : undefined;
  const { encoding, hash } = baoTreeEncodeRanges(content, ranges, { chunkLog, key });
  const { bytes, what } = corrupt(rng, encoding, false);
  // One time in four the decoder is asked something else than was encoded.
  const asked = { size: content.length, ranges, chunkLog, key };
  let changed = '';
  switch (rng.int(16)) {
    case 0:
      asked.size = Math.max(0, content.length + [1, -1, 1024, -1024, rng.int(5000) - 2500][rng.int(5)]!);
      changed = `; size ${content.length} -> ${asked.size}`;
      break;
    case 1:
      asked.ranges = randomChunkRanges(rng, chunks);
      changed = `; ranges -> ${JSON.stringify(asked.ranges)}`;
      break;
    case 2:
      asked.chunkLog = rng.int(7);
      changed = `; chunkLog -> ${asked.chunkLog}`;
      break;
    case 3:
      asked.key = key === undefined ? rng.bytes(32) : undefined;
      changed = key === undefined ? '; decoded keyed' : '; decoded unkeyed';
      break;
  }
  const label = `${what}, ranges ${JSON.stringify(ranges)} at chunkLog ${chunkLog}${key ? ', keyed' : ''}${changed}`;
  return { kind: 'tree', content, ...wrongHash(rng, hash, label), inputs: [bytes], ...asked };
}

/** The hash, one time in twenty with a bit flipped. */
function wrongHash(rng: Rng, root: Uint8Array, what: string): { hash: Uint8Array; what: string } {
  if (rng.int(20) !== 0) return { hash: root, what };
  const bad = root.slice();
  bad[rng.int(32)]! ^= 1 << rng.int(8);
  return { hash: bad, what: `${what}; wrong hash` };
}

/** The oracle's answers, all cases in one run. */
function oracle(cases: Case[]): Answer[] {
  const head = cases.map(({ kind, hash, inputs, start, length, size, ranges, chunkLog, key }) => ({
    kind,
    hash: toHex(hash),
    inputs: inputs.map((input) => input.length),
    start,
    length,
    size,
    chunkLog,
    ranges: ranges?.map(([from, to]) => [from, to === Number.POSITIVE_INFINITY ? null : to]),
    key: key === undefined ? undefined : toHex(key),
  }));
  const request = Buffer.concat([Buffer.from(`${JSON.stringify({ cases: head })}\n`), ...cases.flatMap((c) => c.inputs)]);
  const run = spawnSync(
    'cargo',
    ['run', '-q', '--release', '--manifest-path', join(root, 'crate', 'Cargo.toml'), '-p', 'blake3-kit-bao-oracle', '--', 'decode'],
    { input: request, encoding: 'utf8', maxBuffer: 1 << 28, timeout: 300_000 },
  );
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as Answer[];
}

/** `bytes` as a source in random pieces: 1-byte ones (small inputs), or a
 * mix of empty, 1-byte, small and large ones; a ReadableStream or an async
 * iterable. */
function piecesFrom(rng: Rng, bytes: Uint8Array): ByteSource {
  const ones = bytes.length <= 16 * 1024 && rng.int(3) === 0;
  const size = () => {
    if (ones) return 1;
    const pick = rng.int(10);
    return pick === 0 ? 0 : pick <= 2 ? 1 : pick <= 5 ? 1 + rng.int(64) : 1 + rng.int(40_000);
  };
  const boundaries: number[] = [];
  for (let at = 0; at < bytes.length; ) boundaries.push((at = Math.min(bytes.length, at + size())));
  if (rng.int(2) === 0) boundaries.push(bytes.length); // an empty piece at the end
  const pieces = boundaries.map((end, i) => bytes.slice(boundaries[i - 1] ?? 0, end));
  if (rng.int(2) === 0) {
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        const piece = pieces.shift();
        if (piece === undefined) controller.close();
        else controller.enqueue(piece);
      },
    });
  }
  return (async function* () {
    yield* pieces;
  })();
}

function whole(c: Case): Verdict {
  const options = { chunkLog: c.chunkLog, key: c.key };
  try {
    if (c.kind === 'combined') return { ok: true, output: baoDecode(c.inputs[0]!, c.hash) };
    if (c.kind === 'outboard') return { ok: true, output: baoDecodeOutboard(c.inputs[0]!, c.inputs[1]!, c.hash) };
    if (c.kind === 'slice') return { ok: true, output: baoDecodeSlice(c.inputs[0]!, c.hash, c.start!, c.length!) };
    return fromPieces(baoTreeDecodeRanges(c.inputs[0]!, c.hash, c.size!, c.ranges!, options));
  } catch (error) {
    return { ok: false, error };
  }
}

function fromPieces(pieces: VerifiedPiece[]): Verdict {
  return { ok: true, output: concatBytes(pieces.map((p) => p.bytes)), pieces: pieces.map((p) => [p.offset, p.bytes.length]) };
}

/** The streaming verifier's verdict; what it passed on before an error must
 * be the content's own bytes. */
async function streamed(c: Case, rng: Rng): Promise<Verdict & { forged?: string }> {
  const items: (Uint8Array | VerifiedPiece)[] = [];
  const stream: ReadableStream<Uint8Array | VerifiedPiece> =
    c.kind === 'tree'
      ? baoTreeDecodeRangesStream(piecesFrom(rng, c.inputs[0]!), c.hash, c.size!, c.ranges!, { chunkLog: c.chunkLog, key: c.key })
      : c.kind === 'combined'
        ? baoDecodeStream(piecesFrom(rng, c.inputs[0]!), c.hash)
        : baoDecodeStream(piecesFrom(rng, c.inputs[0]!), c.hash, { outboard: c.inputs[1]! });
  try {
    for await (const item of stream) items.push(item);
  } catch (error) {
    const pieces = c.kind === 'tree' ? (items as VerifiedPiece[]) : [{ offset: 0, bytes: concatBytes(items as Uint8Array[]) }];
    const forged = pieces.find(({ offset, bytes }) => toHex(hash(bytes)) !== toHex(hash(c.content.subarray(offset, offset + bytes.length))));
    return { ok: false, error, forged: forged && `passed on ${forged.bytes.length} bytes at ${forged.offset} that are not the content's` };
  }
  return c.kind === 'tree' ? fromPieces(items as VerifiedPiece[]) : { ok: true, output: concatBytes(items as Uint8Array[]) };
}

/** Why `ours` disagrees with the oracle's `answer`, or undefined. */
function disagreement(c: Case, answer: Answer, ours: Verdict): string | undefined {
  const readAll = answer.read.every((n, i) => n === c.inputs[i]!.length);
  const expected = answer.ok && readAll;
  if (ours.ok !== expected) {
    const theirs = !answer.ok
      ? `rejects (${answer.error})`
      : readAll
        ? 'accepts'
        : `accepts, but reads only ${answer.read.join('+')} of ${c.inputs.map((input) => input.length).join('+')} bytes (the rest: bytes past the end)`;
    return `ours ${ours.ok ? 'accepts' : `rejects (${String(ours.error)})`}, the crate ${theirs}`;
  }
  if (!ours.ok) return ours.error instanceof BaoVerifyError ? undefined : `rejects with ${String(ours.error)}, not a BaoVerifyError`;
  const mine = { len: ours.output.length, blake3: toHex(hash(ours.output)) };
  if (mine.len !== answer.output!.len || mine.blake3 !== answer.output!.blake3)
    return `both accept, but ours gives ${JSON.stringify(mine)}, the crate ${JSON.stringify(answer.output)}`;
  if (c.kind === 'tree' && JSON.stringify(ours.pieces) !== JSON.stringify(answer.pieces))
    return `both accept, but ours gives pieces ${JSON.stringify(ours.pieces)}, the crate ${JSON.stringify(answer.pieces)}`;
  return undefined;
}

describe(`src/addressing/bao's verifiers against the bao and bao-tree crates on corrupted input (seed ${seed}, ${backend})`, () => {
  const rng = random(seed);
  const make = { combined: combinedCase, outboard: outboardCase, slice: sliceCase, tree: treeCase };
  const cases = (Object.keys(COUNTS) as Case['kind'][]).flatMap((kind) => Array.from({ length: COUNTS[kind] }, () => make[kind](rng)));
  let answers: Answer[] = [];

  // The first run builds the oracle (cargo, release): minutes on a cold cache.
  beforeAll(() => {
    answers = oracle(cases);
    expect(answers).toHaveLength(cases.length);
  }, 300_000);

  const describeCase = (c: Case, i: number) => `seed ${seed}, case ${i}: ${c.kind}, length ${c.content.length}, ${c.what}`;

  it.each(['combined', 'outboard', 'slice', 'tree'] as const)('whole-buffer: %s', (kind) => {
    const failures: string[] = [];
    const verdicts = { accepted: 0, rejected: 0, trailing: 0 };
    cases.forEach((c, i) => {
      if (c.kind !== kind) return;
      const answer = answers[i]!;
      const ours = whole(c);
      verdicts[ours.ok ? 'accepted' : 'rejected']++;
      if (answer.ok && !ours.ok && answer.read.some((n, k) => n < c.inputs[k]!.length)) verdicts.trailing++;
      const why = disagreement(c, answer, ours);
      if (why !== undefined) failures.push(`${describeCase(c, i)}: ${why}`);
    });
    expect(failures.slice(0, 20), `${failures.length} disagreements`).toEqual([]);
    // Every verdict (and the mapping for bytes past the end) was exercised.
    expect(verdicts.accepted, JSON.stringify(verdicts)).toBeGreaterThan(0);
    expect(verdicts.rejected, JSON.stringify(verdicts)).toBeGreaterThan(0);
    expect(verdicts.trailing, JSON.stringify(verdicts)).toBeGreaterThan(0);
  });

  it.each(['combined', 'outboard', 'tree'] as const)('streaming, in random pieces: %s', async (kind) => {
    const failures: string[] = [];
    for (const [i, c] of cases.entries()) {
      if (c.kind !== kind) continue;
      const ours = await streamed(c, random(seed + 7919 * (i + 1)));
      const why = disagreement(c, answers[i]!, ours) ?? ours.forged;
      if (why !== undefined) failures.push(`${describeCase(c, i)}, streamed: ${why}`);
    }
    expect(failures.slice(0, 20), `${failures.length} disagreements`).toEqual([]);
  });
});
