// baoFetchRange with a fetch of our own standing in for servers that honour
// Range, ignore it, send too little, fail, or lie; in every runtime.
import { baoEncode, baoFetchRange, BaoVerifyError } from 'blake3-kit';
import { describe, expect, it } from 'vitest';
import { load, random, seed } from './setup.js';

await load();
const rng = random(seed);

type Server = (first: number, end: number, content: Uint8Array) => Response;
const honest: Server = (first, end, content) => new Response(content.slice(first, end), { status: 206 });

/** A fetch serving `content` through `server` for Range requests. */
function fetcher(content: Uint8Array, server: Server = honest): typeof fetch {
  return (async (_url: string, init?: RequestInit) => {
    const range = /^bytes=(\d+)-(\d+)$/.exec(new Headers(init?.headers).get('Range') ?? '');
    if (!range) return new Response(content.slice());
    return server(Number(range[1]), Number(range[2]) + 1, content);
  }) as typeof fetch;
}

describe(`baoFetchRange (seed ${seed})`, () => {
  const content = rng.bytes(200_000);
  const { encoding: outboard, hash } = baoEncode(content, { outboard: true });

  it('returns exactly the verified range, wherever it starts and ends', async () => {
    for (let trial = 0; trial < 30; trial++) {
      const start = rng.int(content.length + 10);
      const length = rng.int(50_000);
      const bytes = await baoFetchRange('x', hash, { outboard, start, length, fetch: fetcher(content) });
      expect(bytes).toEqual(content.slice(start, start + length));
    }
    expect(await baoFetchRange('x', hash, { outboard, fetch: fetcher(content) })).toEqual(content);
    const empty = baoEncode(new Uint8Array(0), { outboard: true });
    expect(await baoFetchRange('x', empty.hash, { outboard: empty.encoding, fetch: fetcher(new Uint8Array(0)) })).toEqual(new Uint8Array(0));
  });

  it('works with a server that ignores Range (200 with everything)', async () => {
    const ignoring: Server = (_first, _end, all) => new Response(all.slice(), { status: 200 });
    expect(await baoFetchRange('x', hash, { outboard, start: 5000, length: 3000, fetch: fetcher(content, ignoring) })).toEqual(
      content.slice(5000, 8000),
    );
  });

  it('rejects wrong, short or failed responses, and a lying outboard', async () => {
    const flipping: Server = (first, end, all) => {
      const bytes = all.slice(first, end);
      bytes[bytes.length >> 1]! ^= 4;
      return new Response(bytes, { status: 206 });
    };
    const short: Server = (first, end, all) => new Response(all.slice(first, end - 1), { status: 206 });
    const failing: Server = () => new Response('no', { status: 503 });
    const options = { outboard, start: 10_000, length: 5000 };
    await expect(baoFetchRange('x', hash, { ...options, fetch: fetcher(content, flipping) })).rejects.toBeInstanceOf(BaoVerifyError);
    await expect(baoFetchRange('x', hash, { ...options, fetch: fetcher(content, short) })).rejects.toBeInstanceOf(BaoVerifyError);
    await expect(baoFetchRange('x', hash, { ...options, fetch: fetcher(content, failing) })).rejects.toThrow(/HTTP 503/);
    const lying = outboard.slice();
    lying[8 + 64 * 3]! ^= 1;
    await expect(baoFetchRange('x', hash, { ...options, outboard: lying, fetch: fetcher(content) })).rejects.toBeInstanceOf(BaoVerifyError);
    await expect(baoFetchRange('x', hash, { ...options, start: -1, fetch: fetcher(content) })).rejects.toBeInstanceOf(RangeError);
  });
});
