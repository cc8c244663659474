// The streaming Bao decoder: encodings arriving in 1-byte and random pieces,
// combined and outboard; a corruption anywhere errors the stream, and what
// came out before it is exactly the verified prefix of the content.
import { baoDecodeStream, baoEncode, BaoVerifyError, baoTreeDecodeRangesStream, baoTreeEncodeRanges, baoTreeOutboard } from 'blake3-kit/bao';
import { describe, expect, it } from 'vitest';
import { combinedNodePositions } from './bao-sweep.js';
import { concatBytes, loadBao, piecesOf, random, seed } from './setup.js';

await loadBao();
const rng = random(seed);

/** Everything the stream gives before it ends or errors. */
async function drain(stream: ReadableStream<Uint8Array>): Promise<{ out: Uint8Array; error?: unknown }> {
  const parts: Uint8Array[] = [];
  const reader = stream.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { out: concatBytes(parts) };
      parts.push(value);
    }
  } catch (error) {
    return { out: concatBytes(parts), error };
  }
}

describe(`baoDecodeStream (seed ${seed})`, () => {
  const sizes = [0, 1, 1023, 1024, 1025, 2049, 5000, 70_000];

  it.each(['1-byte', 'random'] as const)('decodes combined and outboard encodings arriving in %s pieces', async (kind) => {
    const size = kind === '1-byte' ? () => 1 : () => 1 + rng.int(3000);
    for (const length of sizes) {
      const content = rng.bytes(length);
      const { encoding, hash } = baoEncode(content);
      expect((await drain(baoDecodeStream(piecesOf(encoding, size), hash))).out).toEqual(content);
      const { encoding: outboard } = baoEncode(content, { outboard: true });
      expect((await drain(baoDecodeStream(piecesOf(content, size), hash, { outboard }))).out).toEqual(content);
    }
  });

  it('stops at a corruption, having passed on only verified bytes', async () => {
    const content = rng.bytes(70_000);
    const { encoding, hash } = baoEncode(content);
    // A byte in every parent and leaf in node-simd, else the spines and a sample.
    for (const at of combinedNodePositions(content.length)) {
      const bad = encoding.slice();
      bad[at]! ^= 1 << rng.int(8);
      const { out, error } = await drain(
        baoDecodeStream(
          piecesOf(bad, () => 1 + rng.int(5000)),
          hash,
        ),
      );
      expect(error, `flip at ${at}`).toBeInstanceOf(BaoVerifyError);
      expect(out).toEqual(content.subarray(0, out.length));
      expect(out.length % 1024).toBe(0);
    }
  });

  it('says where: the offset and chunk of the error lie at or before the changed byte, past all it passed on', async () => {
    const content = rng.bytes(1_100_000);
    const { encoding: outboard, hash } = baoEncode(content, { outboard: true });
    for (let trial = 0; trial < 8; trial++) {
      const at = rng.int(content.length);
      const bad = content.slice();
      bad[at]! ^= 1 << rng.int(8);
      const { out, error } = await drain(
        baoDecodeStream(
          piecesOf(bad, () => 1 + rng.int(100_000)),
          hash,
          { outboard },
        ),
      );
      expect(error, `flip at ${at}`).toBeInstanceOf(BaoVerifyError);
      const { offset, chunk } = error as BaoVerifyError;
      expect(offset, `flip at ${at}`).toBeLessThanOrEqual(at);
      expect(offset, `flip at ${at}`).toBeGreaterThanOrEqual(out.length);
      // Within one batch (256 KiB) of the flip.
      expect(at - offset!, `flip at ${at}`).toBeLessThan(256 * 1024);
      expect(chunk).toBe(Math.floor(offset! / 1024));
    }
  });

  it('rejects truncation, extra bytes, a wrong hash, and verifies the empty input before it ends', async () => {
    const content = rng.bytes(3000);
    const { encoding, hash } = baoEncode(content);
    for (const bad of [encoding.subarray(0, encoding.length - 1), encoding.subarray(0, 5), new Uint8Array([...encoding, 7])]) {
      expect(
        (
          await drain(
            baoDecodeStream(
              piecesOf(bad, () => 100),
              hash,
            ),
          )
        ).error,
      ).toBeInstanceOf(BaoVerifyError);
    }
    const wrong = hash.slice();
    wrong[31]! ^= 1;
    expect(
      (
        await drain(
          baoDecodeStream(
            piecesOf(encoding, () => 100),
            wrong,
          ),
        )
      ).error,
    ).toBeInstanceOf(BaoVerifyError);
    const empty = baoEncode(new Uint8Array(0));
    expect(
      (
        await drain(
          baoDecodeStream(
            piecesOf(empty.encoding, () => 1),
            empty.hash,
          ),
        )
      ).error,
    ).toBeUndefined();
    expect(
      (
        await drain(
          baoDecodeStream(
            piecesOf(empty.encoding, () => 1),
            hash,
          ),
        )
      ).error,
    ).toBeInstanceOf(BaoVerifyError);
  });

  it('takes async iterables too, and cancelling it cancels the source', async () => {
    const content = rng.bytes(10_000);
    const { encoding, hash } = baoEncode(content);
    async function* generate() {
      for (let at = 0; at < encoding.length; at += 777) yield encoding.subarray(at, at + 777);
    }
    expect((await drain(baoDecodeStream(generate(), hash))).out).toEqual(content);
    let cancelled: unknown;
    let at = 0;
    const source = new ReadableStream<Uint8Array>({
      // The encoding in 2000-byte pieces, then a source that stalls.
      pull: (controller) => (at < encoding.length ? controller.enqueue(encoding.subarray(at, (at += 2000))) : new Promise(() => {})),
      cancel: (reason) => void (cancelled = reason ?? 'cancelled'),
    });
    const reader = baoDecodeStream(source, hash).getReader();
    await reader.read();
    await reader.cancel('enough');
    expect(cancelled).toBe('enough');
  });

  it('reads a fetch Response through its body', async () => {
    const content = rng.bytes(70_000);
    const { encoding, hash } = baoEncode(content);
    const { out, error } = await drain(baoDecodeStream(new Response(encoding as Uint8Array<ArrayBuffer>), hash));
    expect(error).toBeUndefined();
    expect(out).toEqual(content);
    const used = new Response(encoding as Uint8Array<ArrayBuffer>);
    await used.arrayBuffer();
    expect(() => baoDecodeStream(used, hash)).toThrow(/already read/);
  });

  it('cancels at once while a read of a stalled source is pending, and releases it', async () => {
    const { encoding, hash } = baoEncode(rng.bytes(300_000));
    let cancelled: unknown;
    const stalled = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(encoding.slice(0, 100_000)),
      pull: () => new Promise(() => {}),
      cancel: (reason) => void (cancelled = reason),
    });
    const reader = baoDecodeStream(stalled, hash).getReader();
    const pending = reader.read(); // waits on the source's next piece
    await new Promise((resolve) => setTimeout(resolve, 20));
    await reader.cancel('enough');
    expect(cancelled).toBe('enough');
    expect((await pending).done).toBe(true);
    async function* silent() {
      yield encoding.subarray(0, 100_000);
      await new Promise(() => {});
    }
    const fromGenerator = baoDecodeStream(silent(), hash).getReader();
    const waiting = fromGenerator.read();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await fromGenerator.cancel('enough');
    expect((await waiting).done).toBe(true);
  });
});

describe('baoDecodeStream and memory the caller changes', () => {
  // A forged last chunk arrives; the caller's outboard vouches for the
  // genuine content while the stream checks its root node, then its root
  // node's right half (the value the last subtree is checked against)
  // becomes the forged content's. Each node is copied when it is read and
  // checked, so the change is never used and the forgery fails.
  it('uses only outboard nodes it copied and checked', async () => {
    const content = rng.bytes(3 * 1024 + 100);
    const forged = content.slice();
    forged[content.length - 20]! ^= 1;
    const { hash } = baoEncode(content);
    const genuine = baoEncode(content, { outboard: true }).encoding;
    const forgedOutboard = baoEncode(forged, { outboard: true }).encoding;
    const outboard = genuine.slice();
    const source: AsyncIterable<Uint8Array> = {
      async *[Symbol.asyncIterator]() {
        // The first read comes after the root node's check.
        outboard.set(forgedOutboard.subarray(8 + 32), 8 + 32);
        yield forged;
      },
    };
    const { out, error } = await drain(baoDecodeStream(source, hash, { outboard }));
    expect(error).toBeInstanceOf(BaoVerifyError);
    expect(out).toEqual(content.subarray(0, out.length));
  });
});

/** A source with `prefix`, then empty pieces always ready until `ms` have
 * passed; counts the pieces it gives. Its iterator has no return(): it
 * cannot be told to stop, only no longer read. */
function endlessEmpty(prefix: Uint8Array, ms = 2000) {
  const state = { pieces: 0, exhausted: false };
  const until = Date.now() + ms;
  const source: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({
      async next() {
        if (Date.now() >= until) {
          state.exhausted = true;
          return { value: undefined, done: true as const };
        }
        return { value: state.pieces++ === 0 ? prefix : new Uint8Array(0), done: false as const };
      },
    }),
  };
  return { source, state };
}

describe('streaming verifiers and the event loop', () => {
  const content = rng.bytes(5000);
  const { encoding, hash } = baoEncode(content);
  const { encoding: outboard } = baoEncode(content, { outboard: true });
  const tree = baoTreeOutboard(content);
  const ranges = [[0, 5]] as const;
  const rangeEncoding = baoTreeEncodeRanges(content, ranges).encoding;
  const cases: [string, (source: AsyncIterable<Uint8Array>) => ReadableStream<unknown>, Uint8Array][] = [
    ['baoDecodeStream, combined, empty pieces only', (source) => baoDecodeStream(source, hash), new Uint8Array(0)],
    ['baoDecodeStream, combined, after a valid prefix', (source) => baoDecodeStream(source, hash), encoding.subarray(0, 200)],
    ['baoDecodeStream, outboard, after a valid prefix', (source) => baoDecodeStream(source, hash, { outboard }), content.subarray(0, 200)],
    [
      'baoTreeDecodeRangesStream, empty pieces only',
      (source) => baoTreeDecodeRangesStream(source, tree.hash, content.length, ranges),
      new Uint8Array(0),
    ],
  ];
  expect(rangeEncoding.length).toBeGreaterThan(200);

  // Each source is read in microtasks alone unless the reader gives the
  // event loop a turn: the timer below would fire only once the source ran
  // out, two seconds later, and cancel() would never reach it before.
  it.each(cases)('%s: timers run while the source is read, and cancel() ends the reading', async (_, decode, prefix) => {
    const { source, state } = endlessEmpty(prefix);
    const reader = decode(source).getReader();
    const read = reader.read().then(
      (result) => result,
      (error: unknown) => ({ error }),
    );
    const exhaustedWhenTimerRan = await new Promise<boolean>((resolve) => setTimeout(() => resolve(state.exhausted), 20));
    expect(exhaustedWhenTimerRan).toBe(false);
    await reader.cancel('enough');
    expect(await read).toEqual({ value: undefined, done: true });
    // Reading stopped with the cancel: no piece is asked for after it.
    const piecesAtCancel = state.pieces;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(state.pieces).toBeLessThanOrEqual(piecesAtCancel + 1);
    expect(state.exhausted).toBe(false);
  });
});
