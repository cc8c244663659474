// baoEncodeStream: the same encoding as baoEncode from pieces of any size,
// from streams, async iterables and Blobs; progress, and abort.
import { baoEncode, baoEncodeStream } from 'blake3-kit/bao';
import { describe, expect, it } from 'vitest';
import { loadBao, piecesOf, random, seed } from './setup.js';

await loadBao();
const rng = random(seed);

describe(`baoEncodeStream (seed ${seed})`, () => {
  const sizes = [0, 1, 1024, 1025, 65_535, 65_536, 65_537, 131_072, 200_000, 1 << 20];

  it('equals baoEncode, combined and outboard, for pieces of random size', async () => {
    for (const size of sizes) {
      const content = rng.bytes(size);
      const cut = () => 1 + rng.int(rng.int(2) ? 300 : 100_000);
      for (const outboard of [false, true]) {
        const streamed = await baoEncodeStream(piecesOf(content, cut), { outboard });
        const whole = baoEncode(content, { outboard });
        expect(streamed.hash, `size ${size}`).toEqual(whole.hash);
        expect(streamed.encoding, `size ${size} outboard ${outboard}`).toEqual(whole.encoding);
      }
    }
  });

  it('takes Blobs and async iterables, and reports progress up to the total', async () => {
    const content = rng.bytes(300_000);
    const whole = baoEncode(content, { outboard: true });
    const seen: number[] = [];
    const fromBlob = await baoEncodeStream(new Blob([content]), { outboard: true, onProgress: (done) => seen.push(done) });
    expect(fromBlob.encoding).toEqual(whole.encoding);
    expect(seen.at(-1)).toBe(content.length);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    async function* generate() {
      for (let at = 0; at < content.length; at += 4097) yield content.subarray(at, at + 4097);
    }
    expect((await baoEncodeStream(generate(), { outboard: true })).encoding).toEqual(whole.encoding);
  });

  it('rejects at once on an abort while the source never answers a read, and releases it', async () => {
    let cancelled: unknown;
    const stalled = new ReadableStream<Uint8Array>({
      start: (c) => c.enqueue(new Uint8Array(10_000)),
      pull: () => new Promise(() => {}),
      cancel: (reason) => void (cancelled = reason),
    });
    const stop = new AbortController();
    setTimeout(() => stop.abort(new Error('gave up waiting')), 50);
    await expect(baoEncodeStream(stalled, { signal: stop.signal })).rejects.toThrow('gave up waiting');
    expect((cancelled as Error).message).toBe('gave up waiting');
    async function* silent() {
      yield new Uint8Array(10);
      await new Promise(() => {});
    }
    await expect(baoEncodeStream(silent(), { outboard: true, signal: AbortSignal.timeout(50) })).rejects.toThrow(/time|abort/i);
  });

  it('rejects with the reason when aborted, and cancels its source', async () => {
    const controller = new AbortController();
    let cancelled: unknown;
    const source = new ReadableStream<Uint8Array>({
      pull: (c) => {
        c.enqueue(new Uint8Array(10_000));
        controller.abort(new Error('stop here'));
      },
      cancel: (reason) => void (cancelled = reason),
    });
    await expect(baoEncodeStream(source, { signal: controller.signal })).rejects.toThrow('stop here');
    expect((cancelled as Error).message).toBe('stop here');
    await expect(
      baoEncodeStream(
        piecesOf(new Uint8Array(10), () => 5),
        { signal: AbortSignal.abort() },
      ),
    ).rejects.toThrow();
    await expect(
      baoEncodeStream(
        piecesOf(new Uint8Array(10), () => 5),
        { onProgress: 5 as never },
      ),
    ).rejects.toBeInstanceOf(TypeError);
  });
});
