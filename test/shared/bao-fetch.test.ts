// baoFetchRange with a fetch of our own standing in for servers that honour
// Range, ignore it, send too little or too much, fail, or lie; in every
// runtime. Real sockets, gzip and resets: test/node/bao-fetch-hostile.test.ts.
import { baoEncode, baoFetchRange, BaoVerifyError } from 'blake3-kit/bao';
import { describe, expect, it } from 'vitest';
import { loadBao, random, seed } from './setup.js';

await loadBao();
const rng = random(seed);

type Server = (first: number, end: number, content: Uint8Array) => Response;
const honest: Server = (first, end, content) => new Response(content.slice(first, end), { status: 206 });

/** A body of `prefix` then `fill` bytes without end (64 MiB at most, so a
 * client that reads it all fails rather than running out of memory),
 * counting what it produced in `sent.bytes` and noting a cancel. */
function endless(prefix: Uint8Array, sent: { bytes: number; cancelled?: boolean }, fill = 0): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    cancel() {
      sent.cancelled = true;
    },
    pull(controller) {
      if (at >= 64 << 20) return controller.close();
      const piece = at < prefix.length ? prefix.slice(at, at + 65536) : new Uint8Array(65536).fill(fill);
      at += piece.length;
      sent.bytes += piece.length;
      controller.enqueue(piece);
    },
  });
}

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

  const options = { outboard, start: 10_000, length: 5000 };
  // The range that request asks for: whole chunks.
  const [first, end] = [9216, 15_360];

  it('checks a Content-Range where there is one: the range asked for, of the outboard’s length', async () => {
    const ranged =
      (header: string): Server =>
      (from, to, all) =>
        new Response(all.slice(from, to), { status: 206, headers: { 'Content-Range': header } });
    const good = [`bytes ${first}-${end - 1}/${content.length}`, `bytes ${first}-${end - 1}/*`];
    for (const header of good) {
      expect(await baoFetchRange('x', hash, { ...options, fetch: fetcher(content, ranged(header)) })).toEqual(content.slice(10_000, 15_000));
    }
    const wrong = [
      `bytes 0-${end - first - 1}/${content.length}`,
      `bytes ${first}-${end}/${content.length}`,
      `bytes ${first}-${end - 1}/${content.length + 1}`,
      'bytes */200000',
      'pages 1-2/3',
    ];
    for (const header of wrong) {
      const run = baoFetchRange('x', hash, { ...options, fetch: fetcher(content, ranged(header)) });
      await expect(run, header).rejects.toBeInstanceOf(BaoVerifyError);
      await expect(run).rejects.toThrow(/Content-Range/);
    }
  });

  it('reads no more than the range: a longer or endless body is cancelled and refused', async () => {
    const long: Server = (from, to, all) => new Response(all.slice(from, to + 1), { status: 206 });
    await expect(baoFetchRange('x', hash, { ...options, fetch: fetcher(content, long) })).rejects.toThrow(
      /more than the 6144 bytes wanted from byte 9216/,
    );
    const sent = { bytes: 0, cancelled: false };
    const endlessServer: Server = (from, to, all) => new Response(endless(all.slice(from, to), sent), { status: 206 });
    await expect(baoFetchRange('x', hash, { ...options, fetch: fetcher(content, endlessServer) })).rejects.toThrow(/more than the 6144 bytes/);
    expect(sent.bytes).toBeLessThan(1 << 20);
    expect(sent.cancelled).toBe(true);
  });

  it('reads a server that ignores Range only up to the end of the range, then cancels it', async () => {
    const sent = { bytes: 0, cancelled: false };
    const ignoring: Server = (_from, _to, all) => new Response(endless(all, sent, 7), { status: 200 });
    // Everything from byte 0, then more than the whole file: the range's end is where reading stops.
    expect(await baoFetchRange('x', hash, { ...options, fetch: fetcher(content, ignoring) })).toEqual(content.slice(10_000, 15_000));
    expect(sent.bytes).toBeLessThan(end + (1 << 20));
    expect(sent.cancelled).toBe(true);
    const short: Server = (_from, _to, all) => new Response(all.slice(0, end - 1), { status: 200 });
    await expect(baoFetchRange('x', hash, { ...options, fetch: fetcher(content, short) })).rejects.toThrow(/sent 6143 bytes for 6144 wanted/);
  });

  it('fetches an outboard by URL reading its header first, then exactly what the header calls for, within a cap', async () => {
    const serving = (outboardBody: () => Response, server: Server = honest): typeof fetch =>
      (async (url: string, init?: RequestInit) =>
        String(url).endsWith('ob') ? outboardBody() : fetcher(content, server)(url, init)) as typeof fetch;
    const genuine = () => new Response(outboard.slice());
    expect(await baoFetchRange('x', hash, { ...options, outboard: 'ob', fetch: serving(genuine) })).toEqual(content.slice(10_000, 15_000));
    expect(await baoFetchRange('x', hash, { ...options, outboard: new URL('http://localhost/ob'), fetch: serving(genuine) })).toEqual(
      content.slice(10_000, 15_000),
    );
    // Bytes after the outboard, without end: refused, and soon.
    const sent = { bytes: 0 };
    const trailing = () => new Response(endless(outboard, sent));
    await expect(baoFetchRange('x', hash, { ...options, outboard: 'ob', fetch: serving(trailing) })).rejects.toThrow(
      /does not agree with its length header/,
    );
    expect(sent.bytes).toBeLessThan(outboard.length + (1 << 20));
    // A header declaring 2^40 bytes of content (a 64 GiB outboard): refused after the header.
    const huge = new Uint8Array(8);
    new DataView(huge.buffer).setBigUint64(0, 2n ** 40n, true);
    const hugeSent = { bytes: 0 };
    const bomb = () => new Response(endless(huge, hugeSent, 1));
    const refused = baoFetchRange('x', hash, { ...options, outboard: 'ob', fetch: serving(bomb) });
    await expect(refused).rejects.toBeInstanceOf(RangeError);
    await expect(refused).rejects.toThrow(/declares 1099511627776 bytes of content.*over options\.maxOutboardBytes \(67108864\)/);
    expect(hugeSent.bytes).toBeLessThan(1 << 20);
    // The cap is the caller's to set.
    const capped = baoFetchRange('x', hash, { ...options, outboard: 'ob', maxOutboardBytes: outboard.length - 1, fetch: serving(genuine) });
    await expect(capped).rejects.toThrow(/over options\.maxOutboardBytes/);
    expect(await baoFetchRange('x', hash, { ...options, outboard: 'ob', maxOutboardBytes: outboard.length, fetch: serving(genuine) })).toEqual(
      content.slice(10_000, 15_000),
    );
    // Short, or no header at all.
    const short = () => new Response(outboard.slice(0, -1));
    await expect(baoFetchRange('x', hash, { ...options, outboard: 'ob', fetch: serving(short) })).rejects.toThrow(
      /does not agree with its length header/,
    );
    const headerless = () => new Response(outboard.slice(0, 5));
    await expect(baoFetchRange('x', hash, { ...options, outboard: 'ob', fetch: serving(headerless) })).rejects.toThrow(
      /shorter than its 8-byte header/,
    );
    const missing = () => new Response('not here', { status: 404 });
    await expect(baoFetchRange('x', hash, { ...options, outboard: 'ob', fetch: serving(missing) })).rejects.toThrow(
      /fetching the outboard failed: HTTP 404/,
    );
  });

  it('checks its options, naming them', async () => {
    const cases: [Record<string, unknown>, ErrorConstructor, RegExp][] = [
      [{ maxOutboardBytes: '5' }, TypeError, /options\.maxOutboardBytes must be a number/],
      [{ maxOutboardBytes: -1 }, RangeError, /options\.maxOutboardBytes must be a non-negative safe integer/],
      [{ maxOutboardBytes: 1.5 }, RangeError, /options\.maxOutboardBytes/],
      [{ signal: {} }, TypeError, /options\.signal must be an AbortSignal/],
      [{ fetch: 'fetch' }, TypeError, /options\.fetch must be a function/],
    ];
    for (const [extra, type, message] of cases) {
      const run = baoFetchRange('x', hash, { ...options, fetch: fetcher(content), ...extra } as never);
      await expect(run).rejects.toBeInstanceOf(type);
      await expect(run).rejects.toThrow(message);
    }
  });
});
