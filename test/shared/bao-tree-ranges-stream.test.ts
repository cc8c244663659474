// baoTreeDecodeRangesStream on every backend: the same verified pieces as
// the whole-buffer decoder, from sources in pieces of any size; a changed,
// missing or extra byte errors the stream after only verified pieces; a
// stalled source can be cancelled.
import { BaoVerifyError, baoTreeDecodeRanges, baoTreeDecodeRangesStream, baoTreeEncodeRanges, type VerifiedPiece } from 'blake3-kit/bao';
import { describe, expect, it } from 'vitest';
import { loadBao, piecesOf, random, randomChunkRanges, seed } from './setup.js';

const b3 = await loadBao();
const rng = random(seed);

type Ranges = [number, number][];

async function drain(stream: ReadableStream<VerifiedPiece>): Promise<{ pieces: VerifiedPiece[]; error?: unknown }> {
  const pieces: VerifiedPiece[] = [];
  const reader = stream.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { pieces };
      pieces.push(value);
    }
  } catch (error) {
    return { pieces, error };
  }
}

const hexOf = (pieces: VerifiedPiece[]) => pieces.map(({ offset, bytes }) => `${offset}:${b3.toHex(bytes)}`);

/** A blob, 1-3 random chunk ranges (some open, some past the end), a chunkLog from 0 to 6, keyed one time in four. */
function randomCase() {
  const size = rng.int(3) === 0 ? rng.int(5000) : rng.int(200_000);
  const content = rng.bytes(size);
  const ranges = randomChunkRanges(rng, Math.ceil(size / 1024));
  const options = { chunkLog: rng.int(7), key: rng.int(4) === 0 ? rng.bytes(32) : undefined };
  const { encoding, hash } = baoTreeEncodeRanges(content, ranges, options);
  return { size, content, ranges, options, encoding, hash };
}

describe(`baoTreeDecodeRangesStream (seed ${seed})`, () => {
  it.each(['1-byte', 'random'] as const)('passes on what baoTreeDecodeRanges returns, from %s pieces', async (kind) => {
    const piece = kind === '1-byte' ? () => 1 : () => 1 + rng.int(5000);
    for (let round = 0; round < (kind === '1-byte' ? 4 : 25); round++) {
      const { size, ranges, options, encoding, hash } = randomCase();
      const label = `size ${size}, chunkLog ${options.chunkLog}, ranges ${JSON.stringify(ranges)}${options.key ? ', keyed' : ''}`;
      const { pieces, error } = await drain(baoTreeDecodeRangesStream(piecesOf(encoding, piece), hash, size, ranges, options));
      expect(error, label).toBeUndefined();
      expect(hexOf(pieces), label).toEqual(hexOf(baoTreeDecodeRanges(encoding, hash, size, ranges, options)));
    }
  });

  it('errors at a changed, missing or extra byte, having passed on only verified pieces', async () => {
    for (let round = 0; round < 30; round++) {
      const { size, content, ranges, options, encoding, hash } = randomCase();
      if (encoding.length === 0) continue;
      const changed = encoding.slice();
      const at = rng.int(changed.length);
      changed[at]! ^= 1 << rng.int(8);
      const label = `size ${size}, byte ${at} of ${encoding.length}`;
      const extra = new Uint8Array(encoding.length + 1);
      extra.set(encoding);
      for (const bad of [changed, encoding.subarray(0, rng.int(encoding.length)), extra]) {
        const { pieces, error } = await drain(
          baoTreeDecodeRangesStream(
            piecesOf(bad, () => 1 + rng.int(3000)),
            hash,
            size,
            ranges,
            options,
          ),
        );
        expect(error, label).toBeInstanceOf(BaoVerifyError);
        for (const { offset, bytes } of pieces) expect(b3.toHex(bytes), label).toBe(b3.toHex(content.subarray(offset, offset + bytes.length)));
        // Where it failed: past every piece passed on.
        const { offset, chunk } = error as BaoVerifyError;
        if (offset !== undefined) {
          for (const piece of pieces) expect(piece.offset + piece.bytes.length, label).toBeLessThanOrEqual(offset);
          expect(chunk, label).toBe(Math.floor(offset / 1024));
        }
      }
    }
  });

  it('checks its arguments before reading anything', () => {
    const source = piecesOf(new Uint8Array(0), () => 1);
    const hash = new Uint8Array(32);
    expect(() => baoTreeDecodeRangesStream(source, hash.subarray(1), 10, [[0, 1]])).toThrow(RangeError);
    expect(() => baoTreeDecodeRangesStream(source, hash, -1, [[0, 1]])).toThrow(RangeError);
    expect(() => baoTreeDecodeRangesStream(source, hash, 10, [[2, 1]])).toThrow(RangeError);
    expect(() => baoTreeDecodeRangesStream(source, hash, 10, 'all' as never)).toThrow(TypeError);
    expect(() => baoTreeDecodeRangesStream('x' as never, hash, 10, [[0, 1]])).toThrow(TypeError);
    expect(() => baoTreeDecodeRangesStream(source, hash, 10, [[0, 1]], { key: new Uint8Array(3) })).toThrow(/options\.key/);
  });

  it('errors clearly when the source detaches a piece it is still reading', async () => {
    const content = rng.bytes(300_000);
    const ranges: Ranges = [[0, Number.POSITIVE_INFINITY]];
    const { encoding, hash } = baoTreeEncodeRanges(content, ranges);
    const piece = encoding.slice();
    let sent = false;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) return controller.close();
        sent = true;
        controller.enqueue(piece);
      },
    });
    const reader = baoTreeDecodeRangesStream(source, hash, content.length, ranges).getReader();
    const first = await reader.read(); // the first group, read from the piece
    expect(b3.toHex(first.value!.bytes)).toBe(b3.toHex(content.subarray(0, first.value!.bytes.length)));
    structuredClone(piece.buffer, { transfer: [piece.buffer] });
    await expect(reader.read()).rejects.toThrow(/detached or shrunk/);
  });

  it('cancels at once while a read of a stalled source is pending, and releases it', async () => {
    const content = rng.bytes(300_000);
    const ranges: Ranges = [[0, Number.POSITIVE_INFINITY]];
    const { encoding, hash } = baoTreeEncodeRanges(content, ranges);
    let cancelled: unknown;
    const stalled = new ReadableStream<Uint8Array>({
      // 19 groups of 16 KiB: the 5 parents above the first, the first
      // whole, part of the second.
      start: (controller) => controller.enqueue(encoding.slice(0, 20_000)),
      pull: () => new Promise(() => {}),
      cancel: (reason) => void (cancelled = reason),
    });
    const reader = baoTreeDecodeRangesStream(stalled, hash, content.length, ranges).getReader();
    const first = await reader.read(); // the first group, verified
    expect(b3.toHex(first.value!.bytes)).toBe(b3.toHex(content.subarray(0, first.value!.bytes.length)));
    const pending = reader.read();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await reader.cancel('enough');
    expect(cancelled).toBe('enough');
    expect((await pending).done).toBe(true);
  });
});
