// baoFetchRange against a real HTTP server on 127.0.0.1 that lies: wrong
// Content-Range, 200 for 206, short, long and endless bodies, a slow drip, a
// reset connection, gzip bombs (Node's fetch inflates them). Every case a
// clear rejection, under a deadline, with the bytes the server managed to
// write bounded: the client cancels a body as soon as it sends more than was
// asked for, and backpressure stops the server.
import { baoEncode, baoFetchRange, BaoVerifyError } from 'blake3-kit/bao';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBao, random, seed } from '../shared/setup.js';

await loadBao();
const rng = random(seed);
const content = rng.bytes(300_000);
const { encoding: outboard, hash } = baoEncode(content, { outboard: true });
// Bytes 10_000 to 15_000 need chunks [9216, 15360).
const options = { outboard, start: 10_000, length: 5000 };
const wanted = content.slice(10_000, 15_000);
const [first, end] = [9216, 15_360];

/** Where an endless body stops anyway (so a client that reads it all fails
 * the test rather than the machine), and what a bounded client lets through
 * (socket buffers, the client's stream queue). */
const ENDLESS = 256 << 20;
const BOUNDED = 16 << 20;
// 16 MiB of zeros as one gzip member (~16 KiB); members back to back are
// one gzip stream, 128 of them 2 GiB inflated from ~2 MiB.
const ZEROS = new Uint8Array(16 << 20);
const BOMB_MEMBER = gzipSync(ZEROS);
const BOMB_MEMBERS = 128;

/** Bytes each route's last response wrote. */
const written = new Map<string, number>();

/** Writes `head`, then `piece` again and again (respecting backpressure)
 * until the client goes or `limit` bytes are written. */
function pour(route: string, res: ServerResponse, head: Uint8Array, piece: Uint8Array, limit: number): void {
  let closed = false;
  res.on('close', () => (closed = true));
  let count = head.length;
  written.set(route, count);
  res.write(head);
  const more = (): void => {
    while (!closed && count < limit) {
      count += piece.length;
      written.set(route, count);
      if (!res.write(piece)) return void res.once('drain', more);
    }
    if (!closed) res.end();
  };
  more();
}

function rangeOf(req: IncomingMessage): [number, number] {
  const match = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
  if (!match) throw new Error(`no Range in ${req.url}`);
  return [Number(match[1]), Number(match[2]) + 1];
}

const routes: Record<string, (req: IncomingMessage, res: ServerResponse, route: string) => void> = {
  '/honest': (req, res) => {
    const [from, to] = rangeOf(req);
    res.writeHead(206, { 'Content-Range': `bytes ${from}-${to - 1}/${content.length}` }).end(content.subarray(from, to));
  },
  '/ignore-range': (_req, res) => res.writeHead(200).end(content),
  // A 200 with the file and then no end: only [0, end) is ever read.
  '/ignore-range-endless': (_req, res, route) => pour(route, res.writeHead(200), content, ZEROS.subarray(0, 65536), ENDLESS),
  '/wrong-range': (req, res) => {
    const [from, to] = rangeOf(req);
    res.writeHead(206, { 'Content-Range': `bytes 0-${to - from - 1}/${content.length}` }).end(content.subarray(0, to - from));
  },
  '/wrong-total': (req, res) => {
    const [from, to] = rangeOf(req);
    res.writeHead(206, { 'Content-Range': `bytes ${from}-${to - 1}/${content.length * 2}` }).end(content.subarray(from, to));
  },
  '/short': (req, res) => {
    const [from, to] = rangeOf(req);
    res.writeHead(206).end(content.subarray(from, to - 1));
  },
  '/long': (req, res) => {
    const [from, to] = rangeOf(req);
    res.writeHead(206).end(content.subarray(from, to + 1));
  },
  '/endless': (req, res, route) => {
    const [from, to] = rangeOf(req);
    pour(route, res.writeHead(206), content.subarray(from, to), ZEROS.subarray(0, 65536), ENDLESS);
  },
  '/drip': (_req, res) => {
    res.writeHead(206);
    const timer = setInterval(() => res.write(new Uint8Array(1)), 20);
    res.on('close', () => clearInterval(timer));
  },
  '/reset': (req, res) => {
    const [from, to] = rangeOf(req);
    res.writeHead(206, { 'Content-Length': String(to - from) });
    res.write(content.subarray(from, from + 1000), () => setTimeout(() => req.socket.destroy(), 20));
  },
  // The range, gzipped, then 2 GiB of zeros in 2 MiB of gzip.
  '/gzip-bomb': (req, res, route) => {
    const [from, to] = rangeOf(req);
    pour(
      route,
      res.writeHead(206, { 'Content-Encoding': 'gzip' }),
      gzipSync(content.subarray(from, to)),
      BOMB_MEMBER,
      BOMB_MEMBER.length * BOMB_MEMBERS,
    );
  },
  '/outboard': (_req, res) => res.writeHead(200).end(outboard),
  '/outboard-endless': (_req, res, route) => pour(route, res.writeHead(200), outboard, ZEROS.subarray(0, 65536), ENDLESS),
  '/outboard-huge': (_req, res, route) => {
    const header = new Uint8Array(8);
    new DataView(header.buffer).setBigUint64(0, 2n ** 44n, true); // a 1 TiB outboard
    pour(route, res.writeHead(200), header, ZEROS.subarray(0, 65536), ENDLESS);
  },
  '/outboard-gzip-bomb': (_req, res, route) =>
    pour(route, res.writeHead(200, { 'Content-Encoding': 'gzip' }), gzipSync(outboard), BOMB_MEMBER, BOMB_MEMBER.length * BOMB_MEMBERS),
};

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    const route = new URL(req.url ?? '/', 'http://localhost').pathname;
    const handle = routes[route];
    if (handle) handle(req, res, route);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

/** The rejection of a fetch, which must come within `ms`. */
async function rejection(run: Promise<unknown>, ms = 10_000): Promise<Error> {
  const deadline = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref());
  try {
    await Promise.race([run, deadline]);
  } catch (error) {
    return error as Error;
  }
  throw new Error('resolved where it should have rejected');
}

/** Bytes the client took out of each response body (inflated, for gzip). */
const read = { bytes: 0 };
/** Node's fetch, its bodies counted into `read` as the client reads them. */
const counting = (async (url: string, init?: RequestInit) => {
  const response = await fetch(url, init);
  if (response.body === null) return response;
  const count = new TransformStream<Uint8Array, Uint8Array>({
    transform(piece, controller) {
      read.bytes += piece.length;
      controller.enqueue(piece);
    },
  });
  return new Response(response.body.pipeThrough(count), { status: response.status, headers: response.headers });
}) as typeof fetch;

const fetchRange = (route: string, extra: Partial<Parameters<typeof baoFetchRange>[2]> = {}) => {
  read.bytes = 0;
  return baoFetchRange(`${base}${route}`, hash, { ...options, fetch: counting, ...extra });
};

describe(`baoFetchRange against a lying HTTP server (seed ${seed})`, () => {
  it('returns the verified range from an honest server, and one that ignores Range', async () => {
    expect(await fetchRange('/honest')).toEqual(wanted);
    expect(await fetchRange('/ignore-range')).toEqual(wanted);
    expect(await fetchRange('/honest', { outboard: `${base}/outboard` })).toEqual(wanted);
  });

  it('reads only up to the range from a server that ignores Range and sends without end', async () => {
    expect(await fetchRange('/ignore-range-endless')).toEqual(wanted);
    expect(written.get('/ignore-range-endless')).toBeLessThan(BOUNDED);
    expect(read.bytes).toBeLessThan(1 << 20);
  });

  it('refuses a Content-Range that names another range or another length', async () => {
    for (const route of ['/wrong-range', '/wrong-total']) {
      const error = await rejection(fetchRange(route));
      expect(error, route).toBeInstanceOf(BaoVerifyError);
      expect(error.message).toMatch(new RegExp(`answered bytes ${first}-${end - 1} of ${content.length} with Content-Range`));
    }
  });

  it('refuses short, long and endless bodies, reading no more than one piece past the range', async () => {
    expect(await rejection(fetchRange('/short'))).toBeInstanceOf(BaoVerifyError);
    const long = await rejection(fetchRange('/long'));
    expect(long).toBeInstanceOf(BaoVerifyError);
    expect(long.message).toMatch(/sent more than the 6144 bytes wanted from byte 9216/);
    const endless = await rejection(fetchRange('/endless'));
    expect(endless.message).toMatch(/sent more than the 6144 bytes wanted/);
    expect(written.get('/endless')).toBeLessThan(BOUNDED);
    expect(read.bytes).toBeLessThan(1 << 20);
  });

  it('refuses a gzip bomb as soon as it inflates past the range', async () => {
    const error = await rejection(fetchRange('/gzip-bomb'), 30_000);
    expect(error).toBeInstanceOf(BaoVerifyError);
    expect(error.message).toMatch(/sent more than the 6144 bytes wanted/);
    // All of it fits the socket buffers; what counts is what was inflated.
    expect(read.bytes).toBeLessThan(1 << 20);
  }, 40_000);

  it('gives up on a slow drip when the signal says, and on a reset connection', async () => {
    const drip = await rejection(fetchRange('/drip', { signal: AbortSignal.timeout(300) }), 5000);
    expect(drip.name).toBe('TimeoutError');
    const reset = await rejection(fetchRange('/reset'), 5000);
    expect(reset).toBeInstanceOf(Error);
    expect(reset).not.toBeInstanceOf(BaoVerifyError); // a failed fetch, not a verdict on bytes
  });

  it('reads an outboard URL up to the size its header declares, within the cap', async () => {
    const endless = await rejection(fetchRange('/honest', { outboard: `${base}/outboard-endless` }));
    expect(endless).toBeInstanceOf(BaoVerifyError);
    expect(endless.message).toMatch(/does not agree with its length header/);
    expect(written.get('/outboard-endless')).toBeLessThan(BOUNDED);
    expect(read.bytes).toBeLessThan(1 << 20);
    const huge = await rejection(fetchRange('/honest', { outboard: `${base}/outboard-huge` }));
    expect(huge).toBeInstanceOf(RangeError);
    expect(huge.message).toMatch(/declares 17592186044416 bytes of content.*over options\.maxOutboardBytes/);
    expect(written.get('/outboard-huge')).toBeLessThan(BOUNDED);
    expect(read.bytes).toBeLessThan(1 << 20);
    const bomb = await rejection(fetchRange('/honest', { outboard: `${base}/outboard-gzip-bomb` }), 30_000);
    expect(bomb).toBeInstanceOf(BaoVerifyError);
    expect(bomb.message).toMatch(/does not agree with its length header/);
    expect(read.bytes).toBeLessThan(1 << 20);
  }, 60_000);
});
