// The verifiers against a racing writer: a worker flips the bytes of a
// SharedArrayBuffer (an encoding, content, an outboard, a slice, a range
// encoding, or the pieces of a stream) between their genuine and forged
// values in a tight loop while the main thread decodes views of it. A
// decoder may fail, but whatever it returns or passes on must be the
// genuine content: it verifies a copy of its own and returns exactly that
// copy. Before each verifier copied first, 0.7-0.8 s per case gave up to 76
// forged results (baoDecodeSlice, baoTreeDecodeRanges, baoTreeDecodeOutboard
// in both orders, baoDecodeStream with a one-chunk leaf or a raced outboard)
// on each of wasm-simd, wasm-scalar and native.
import { Worker } from 'node:worker_threads';
import {
  baoDecode,
  baoDecodeOutboard,
  baoDecodeSlice,
  baoDecodeStream,
  baoEncode,
  baoSlice,
  baoTreeDecodeOutboard,
  baoTreeDecodeRanges,
  baoTreeDecodeRangesStream,
  baoTreeEncodeRanges,
  baoTreeOutboard,
} from 'blake3-kit/bao';
import { describe, expect, it } from 'vitest';
import { backend, concatBytes, loadBao, random, seed } from '../shared/setup.js';

await loadBao();
const rng = random(seed);
/** How long each decoder is raced. */
const RACE_MS = Number(process.env.BLAKE3_KIT_RACE_MS) || 700;

// Ten chunks, the last one short. The forgery changes one byte near the
// end of the content, so near the end of every encoding of it. Where the
// content is raced, only that byte flips (the parents stay genuine, so a
// check that sees the genuine byte passes): a decoder that hashes the
// caller's bytes and copies them out afterwards returns the forged one.
const content = rng.bytes(9 * 1024 + 100);
const FROM_END = 20;
const forged = (bytes: Uint8Array) => {
  const out = bytes.slice();
  out[out.length - FROM_END]! ^= 0x40;
  return out;
};
const raced = (genuine: Uint8Array) => ({ genuine, forged: forged(genuine) });
const forgedContent = forged(content);
const tree = { chunkLog: 1 };
const ranges = [[8, 10]] as const; // the last 2 KiB group, forged byte included
const rangeBytes = content.subarray(8 * 1024);

const { encoding, hash } = baoEncode(content);
const oneChunk = baoEncode(content.subarray(0, 1000));
const outboard = { genuine: baoEncode(content, { outboard: true }).encoding, forged: baoEncode(forgedContent, { outboard: true }).encoding };
const treeOutboard = { genuine: baoTreeOutboard(content, tree), forged: baoTreeOutboard(forgedContent, tree) };
const postOutboard = baoTreeOutboard(content, { ...tree, order: 'post' }).outboard;
const treeHash = treeOutboard.genuine.hash;
const rangeEncoding = baoTreeEncodeRanges(content, ranges, tree).encoding;
const SLICE = [8 * 1024, 1200] as const;
// An outboard whose root node vouches for the genuine content until the
// right half flips to the forged content's: after a check of the root node
// the forged last subtree then matches the half kept from it. A decoder
// that reads its outboard as it goes passes the forged content on.
const rootRight = [8 + 32, 8 + 64] as const;
const rootFlipped = { genuine: outboard.forged.slice(), forged: outboard.forged };
rootFlipped.genuine.set(outboard.genuine.subarray(...rootRight), rootRight[0]);

/** `bytes` (a view of the raced memory) as an async iterable of views of
 * it, in pieces of 1 to 3000 bytes: the decoder reads the writer's memory
 * as a receive buffer would hand it on. */
function piecesOfView(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  return {
    async *[Symbol.asyncIterator]() {
      for (let at = 0; at < bytes.length; ) {
        const end = Math.min(bytes.length, at + 1 + rng.int(3000));
        yield bytes.subarray(at, end);
        at = end;
      }
    },
  };
}

async function drain<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  for (const reader = stream.getReader(); ; ) {
    const { value, done } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

const piecesBytes = (pieces: { offset: number; bytes: Uint8Array }[]) => {
  expect(pieces[0]?.offset).toBe(8 * 1024);
  return concatBytes(pieces.map((piece) => piece.bytes));
};

interface Race {
  name: string;
  /** The raced memory's genuine and forged values. */
  genuine: Uint8Array;
  forged: Uint8Array;
  /** What a decoder passes on when it accepts a view of the raced memory. */
  decode(view: Uint8Array): Uint8Array | Promise<Uint8Array>;
  expected: Uint8Array;
}

const races: Race[] = [
  { name: 'baoDecode, encoding raced', ...raced(encoding), decode: (v) => baoDecode(v, hash), expected: content },
  { name: 'baoDecodeOutboard, content raced', ...raced(content), decode: (v) => baoDecodeOutboard(v, outboard.genuine, hash), expected: content },
  { name: 'baoDecodeOutboard, outboard raced', ...outboard, decode: (v) => baoDecodeOutboard(forgedContent, v, hash), expected: content },
  {
    name: 'baoDecodeSlice, slice raced',
    ...raced(baoSlice(encoding, ...SLICE)),
    decode: (v) => baoDecodeSlice(v, hash, ...SLICE),
    expected: content.subarray(SLICE[0], SLICE[0] + SLICE[1]),
  },
  {
    name: 'baoTreeDecodeRanges, encoding raced',
    ...raced(rangeEncoding),
    decode: (v) => piecesBytes(baoTreeDecodeRanges(v, treeHash, content.length, ranges, tree)),
    expected: rangeBytes,
  },
  {
    name: 'baoTreeDecodeOutboard (pre-order), content raced',
    ...raced(content),
    decode: (v) => baoTreeDecodeOutboard(v, treeOutboard.genuine.outboard, treeHash, tree),
    expected: content,
  },
  {
    name: 'baoTreeDecodeOutboard (post-order), content raced',
    ...raced(content),
    decode: (v) => baoTreeDecodeOutboard(v, postOutboard, treeHash, { ...tree, order: 'post' }),
    expected: content,
  },
  {
    name: 'baoTreeDecodeOutboard (pre-order), outboard raced',
    genuine: treeOutboard.genuine.outboard,
    forged: treeOutboard.forged.outboard,
    decode: (v) => baoTreeDecodeOutboard(forgedContent, v, treeHash, tree),
    expected: content,
  },
  {
    name: 'baoDecodeStream (combined), pieces raced',
    ...raced(encoding),
    decode: async (v) => concatBytes(await drain(baoDecodeStream(piecesOfView(v), hash))),
    expected: content,
  },
  {
    // One chunk: read as a leaf, not in a batch.
    name: 'baoDecodeStream (combined, one chunk), pieces raced',
    ...raced(oneChunk.encoding),
    decode: async (v) => concatBytes(await drain(baoDecodeStream(piecesOfView(v), oneChunk.hash))),
    expected: content.subarray(0, 1000),
  },
  {
    name: 'baoDecodeStream (outboard), content pieces raced',
    ...raced(content),
    decode: async (v) => concatBytes(await drain(baoDecodeStream(piecesOfView(v), hash, { outboard: outboard.genuine }))),
    expected: content,
  },
  {
    // The forged content arrives; the outboard it is checked with changes.
    name: 'baoDecodeStream (outboard), outboard raced',
    ...rootFlipped,
    decode: async (v) => concatBytes(await drain(baoDecodeStream(piecesOfView(forgedContent), hash, { outboard: v }))),
    expected: content,
  },
  {
    name: 'baoTreeDecodeRangesStream, pieces raced',
    ...raced(rangeEncoding),
    decode: async (v) => piecesBytes(await drain(baoTreeDecodeRangesStream(piecesOfView(v), treeHash, content.length, ranges, tree))),
    expected: rangeBytes,
  },
];

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i]);

/** Decodes views of the raced memory for RACE_MS while the worker flips it. */
async function run(race: Race): Promise<{ accepted: number; forged: number; rejected: number }> {
  expect(race.genuine.length).toBe(race.forged.length);
  const indices: number[] = [];
  for (let i = 0; i < race.genuine.length; i++) if (race.genuine[i] !== race.forged[i]) indices.push(i);
  expect(indices.length).toBeGreaterThan(0);
  const memory = new SharedArrayBuffer(race.genuine.length);
  const view = new Uint8Array(memory);
  view.set(race.genuine);
  const control = new SharedArrayBuffer(8);
  const flags = new Int32Array(control);
  const workerData = {
    memory,
    control,
    indices: Int32Array.from(indices),
    genuine: Uint8Array.from(indices, (i) => race.genuine[i]!),
    forged: Uint8Array.from(indices, (i) => race.forged[i]!),
    // One byte is always seen whole: flip it as often as can be.
    maxHold: indices.length === 1 ? 20 : 2000,
  };
  const worker = new Worker(new URL('./workers/bao-race-flipper.mjs', import.meta.url), { workerData });
  const counts = { accepted: 0, forged: 0, rejected: 0 };
  try {
    while (Atomics.load(flags, 1) === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    for (const end = Date.now() + RACE_MS; Date.now() < end; ) {
      let out: Uint8Array;
      try {
        out = await race.decode(view);
      } catch {
        counts.rejected++;
        continue;
      }
      counts.accepted++;
      if (!sameBytes(out, race.expected)) counts.forged++;
    }
  } finally {
    Atomics.store(flags, 0, 1);
    await worker.terminate();
  }
  return counts;
}

describe(`verifiers against a racing writer (${backend}, seed ${seed})`, () => {
  it.each(races.map((race) => [race.name, race] as const))('%s: nothing forged is passed on', async (_, race) => {
    const counts = await run(race);
    // The race was real: the writer's forged bytes were seen.
    expect(counts.rejected, JSON.stringify(counts)).toBeGreaterThan(0);
    expect(counts.forged, JSON.stringify(counts)).toBe(0);
  });
});

// A Node Buffer's slice() is a view: a decoder that "copied" with it would
// hand back the caller's own memory.
describe('results are memory of their own, given Node Buffers too', () => {
  const cases: [string, Buffer, () => Uint8Array | Promise<Uint8Array>][] = [];
  const add = (name: string, input: Uint8Array, decode: (input: Buffer) => Uint8Array | Promise<Uint8Array>) => {
    const buffer = Buffer.from(input);
    cases.push([name, buffer, () => decode(buffer)]);
  };
  add('baoDecode', encoding, (v) => baoDecode(v, hash));
  add('baoDecodeOutboard', content, (v) => baoDecodeOutboard(v, outboard.genuine, hash));
  add('baoDecodeSlice', baoSlice(encoding, ...SLICE), (v) => baoDecodeSlice(v, hash, ...SLICE));
  add('baoTreeDecodeRanges', rangeEncoding, (v) => baoTreeDecodeRanges(v, treeHash, content.length, ranges, tree)[0]!.bytes);
  add('baoTreeDecodeOutboard', content, (v) => baoTreeDecodeOutboard(v, treeOutboard.genuine.outboard, treeHash, tree));
  add('baoTreeDecodeOutboard (post-order)', content, (v) => baoTreeDecodeOutboard(v, postOutboard, treeHash, { ...tree, order: 'post' }));
  add('baoDecodeStream', oneChunk.encoding, async (v) => (await drain(baoDecodeStream(piecesOfView(v), oneChunk.hash)))[0]!);

  it.each(cases)('%s', async (_, input, decode) => {
    const out = await decode();
    const before = out.slice();
    expect(out.buffer).not.toBe(input.buffer);
    input.fill(0);
    expect(out).toEqual(before);
  });
});
