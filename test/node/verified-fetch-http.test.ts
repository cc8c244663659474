// verifiedFetch over node:http against a server on 127.0.0.1 that lies, as
// test/node/bao-fetch-hostile.test.ts does for baoFetchRange: wrong
// Content-Range, 200 for 206, short, long and endless bodies, a slow drip,
// a reset connection, gzip bombs, outboards without end; and a server whose
// bytes change between two range requests. Each a clear failure under a
// deadline, with what the server managed to write bounded: the client reads
// no further than it needs, and backpressure stops the server.
import { baoTreeOutboard, BaoVerifyError, verifiedFetch } from 'blake3-kit/bao';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBao, random, seed } from '../shared/setup.js';
import { drain } from '../shared/verified-fetch-server.js';

await loadBao();
const rng = random(seed);
const content = rng.bytes(300_000);
const { outboard, hash } = baoTreeOutboard(content, { chunkLog: 4 });
// Bytes 20,000 to 24,999 are in the group [16384, 32768); the last group starts at 294,912.
const RANGE = 'bytes=20000-24999';
const wanted = content.slice(20_000, 25_000);
const PROOF = 'bytes=294912-';

const ENDLESS = 256 << 20;
const BOUNDED = 16 << 20;
const ZEROS = new Uint8Array(16 << 20);
const BOMB_MEMBER = gzipSync(ZEROS);
const BOMB_MEMBERS = 128;

/** Bytes each route's last response wrote. */
const written = new Map<string, number>();
/** The content the server has now (the race test changes it). */
let served = content;

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

/** The range a request asks for, as an honest server reads it. */
function rangeOf(req: IncomingMessage): [number, number] | undefined {
  const match = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  if (!match) return undefined;
  return [Number(match[1]), match[2] === '' ? served.length : Math.min(served.length, Number(match[2]) + 1)];
}

function honest(req: IncomingMessage, res: ServerResponse): void {
  const range = rangeOf(req);
  if (range === undefined) return void res.writeHead(200).end(served);
  const [from, to] = range;
  res.writeHead(206, { 'Content-Range': `bytes ${from}-${to - 1}/${served.length}` }).end(served.subarray(from, to));
}

type Route = (req: IncomingMessage, res: ServerResponse, route: string, range: [number, number]) => void;
/** Lies for every request but the proof of the size, which is answered honestly. */
const lying: Record<string, Route> = {
  '/honest': (req, res) => honest(req, res),
  '/ignore-range': (_req, res) => res.writeHead(200).end(served),
  '/ignore-range-endless': (_req, res, route) => pour(route, res.writeHead(200), served, ZEROS.subarray(0, 65536), ENDLESS),
  '/wrong-range': (_req, res, _route, [from, to]) =>
    res.writeHead(206, { 'Content-Range': `bytes 0-${to - from - 1}/${served.length}` }).end(served.subarray(0, to - from)),
  '/wrong-total': (_req, res, _route, [from, to]) =>
    res.writeHead(206, { 'Content-Range': `bytes ${from}-${to - 1}/${served.length * 2}` }).end(served.subarray(from, to)),
  '/short': (_req, res, _route, [from, to]) => res.writeHead(206).end(served.subarray(from, to - 1)),
  '/long': (_req, res, _route, [from, to]) => res.writeHead(206).end(served.subarray(from, to + 1)),
  '/endless': (_req, res, route, [from, to]) => pour(route, res.writeHead(206), served.subarray(from, to), ZEROS.subarray(0, 65536), ENDLESS),
  '/drip': (_req, res) => {
    res.writeHead(206);
    const timer = setInterval(() => res.write(new Uint8Array(1)), 20);
    res.on('close', () => clearInterval(timer));
  },
  '/reset': (req, res, _route, [from, to]) => {
    res.writeHead(206, { 'Content-Length': String(to - from) });
    res.write(served.subarray(from, from + 1000), () => setTimeout(() => req.socket.destroy(), 20));
  },
  '/gzip-bomb': (_req, res, route, [from, to]) =>
    pour(
      route,
      res.writeHead(206, { 'Content-Encoding': 'gzip' }),
      gzipSync(served.subarray(from, to)),
      BOMB_MEMBER,
      BOMB_MEMBER.length * BOMB_MEMBERS,
    ),
};
const outboards: Record<string, (res: ServerResponse, route: string) => void> = {
  '/outboard': (res) => res.writeHead(200).end(outboard),
  '/outboard-endless': (res, route) => pour(route, res.writeHead(200), outboard, ZEROS.subarray(0, 65536), ENDLESS),
  '/outboard-gzip-bomb': (res, route) =>
    pour(route, res.writeHead(200, { 'Content-Encoding': 'gzip' }), gzipSync(outboard), BOMB_MEMBER, BOMB_MEMBER.length * BOMB_MEMBERS),
};

let server: Server;
let base = '';
/** Range headers the content routes were asked for, in order. */
const asked: (string | undefined)[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    const route = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (outboards[route]) return outboards[route](res, route);
    const handle = lying[route];
    if (!handle) return void res.writeHead(404).end();
    asked.push(req.headers.range);
    const range = rangeOf(req);
    if (req.headers.range === PROOF || range === undefined) return honest(req, res);
    handle(req, res, route, range);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

/** What `run` settles to, within `ms`. */
async function within<T>(run: Promise<T>, ms = 10_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`nothing within ${ms} ms`)), ms)));
  try {
    return await Promise.race([run, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The body of verifiedFetch(route, Range: `range`; null for none), or the rejection. */
async function fetchRoute(route: string, extra: Record<string, unknown> = {}, range: string | null = RANGE, ms = 10_000) {
  const run = verifiedFetch(`${base}${route}`, {
    hash,
    outboard,
    chunkLog: 4,
    ...(range === null ? {} : { headers: { Range: range } }),
    ...extra,
  }).then(drain);
  return within(
    run.catch((error: unknown) => ({ bytes: undefined, error, rejected: true })),
    ms,
  );
}

describe(`verifiedFetch over HTTP from a lying server (seed ${seed})`, () => {
  it('answers from an honest server, one that ignores Range, and an outboard by URL', async () => {
    expect(await fetchRoute('/honest')).toEqual({ bytes: wanted, error: undefined });
    expect(await fetchRoute('/honest', {}, null)).toEqual({ bytes: content, error: undefined });
    expect(await fetchRoute('/ignore-range')).toEqual({ bytes: wanted, error: undefined });
    expect(await fetchRoute('/honest', { outboard: `${base}/outboard` })).toEqual({ bytes: wanted, error: undefined });
  });

  it('reads a server that ignores Range and sends without end only up to the range', async () => {
    expect(await fetchRoute('/ignore-range-endless')).toEqual({ bytes: wanted, error: undefined });
    expect(written.get('/ignore-range-endless')).toBeLessThan(BOUNDED);
  });

  it('refuses a Content-Range that names another range or another length', async () => {
    for (const route of ['/wrong-range', '/wrong-total']) {
      const { error, rejected } = (await fetchRoute(route)) as { error: Error; rejected?: boolean };
      expect(rejected, route).toBe(true);
      expect(error).toBeInstanceOf(BaoVerifyError);
      expect(error.message).toMatch(/answered bytes 16384-32767 of 300000 with Content-Range/);
    }
  });

  it('errors the body of a short, long or endless reply, after the verified bytes, reading a piece past it at most', async () => {
    const short = await fetchRoute('/short');
    expect(short.error).toBeInstanceOf(BaoVerifyError);
    expect(short.bytes).toEqual(new Uint8Array(0)); // the one group asked for is the short one
    for (const route of ['/long', '/endless']) {
      const { bytes, error } = await fetchRoute(route);
      expect(error, route).toBeInstanceOf(BaoVerifyError);
      expect((error as Error).message).toMatch(/sent more than the 16384 bytes wanted from byte 16384/);
      expect(bytes).toEqual(wanted);
    }
    expect(written.get('/endless')).toBeLessThan(BOUNDED);
  });

  it('refuses a gzip bomb as soon as it inflates past the range', async () => {
    const { bytes, error } = await fetchRoute('/gzip-bomb', {}, RANGE, 30_000);
    expect(error).toBeInstanceOf(BaoVerifyError);
    expect(bytes).toEqual(wanted);
  }, 40_000);

  it('gives up on a slow drip when the signal says, and fails on a reset connection', async () => {
    const drip = await fetchRoute('/drip', { signal: AbortSignal.timeout(300) }, RANGE, 5000);
    expect((drip.error as Error).name).toBe('TimeoutError');
    const reset = await fetchRoute('/reset', {}, RANGE, 5000);
    expect(reset.error).toBeInstanceOf(Error);
    expect(reset.error).not.toBeInstanceOf(BaoVerifyError); // a failed fetch, not a verdict on bytes
  });

  it('reads an outboard by URL no further than the cap', async () => {
    for (const route of ['/outboard-endless', '/outboard-gzip-bomb']) {
      const { error, rejected } = (await fetchRoute('/honest', { outboard: `${base}${route}` }, RANGE, 30_000)) as {
        error: Error;
        rejected?: boolean;
      };
      expect(rejected, route).toBe(true);
      expect(error).toBeInstanceOf(RangeError);
      expect(error.message).toMatch(/over options\.maxOutboardBytes \(67108864\)/);
    }
    expect(written.get('/outboard-endless')).toBeLessThan(64 * 1024 * 1024 + BOUNDED);
    const capped = (await fetchRoute('/honest', { outboard: `${base}/outboard`, maxOutboardBytes: 1000 })) as { error: Error };
    expect(capped.error.message).toMatch(/over options\.maxOutboardBytes \(1000\)/);
  }, 60_000);

  it('fails the second of two range requests when the bytes change between them', async () => {
    asked.length = 0;
    expect(await fetchRoute('/honest', {}, 'bytes=100000-109999')).toEqual({ bytes: content.slice(100_000, 110_000), error: undefined });
    served = content.slice();
    served[200_000]! ^= 1;
    try {
      const { bytes, error } = await fetchRoute('/honest', {}, 'bytes=190000-209999');
      expect(error).toBeInstanceOf(BaoVerifyError);
      expect((error as BaoVerifyError).offset).toBe(196_608);
      expect(bytes).toEqual(content.slice(190_000, 196_608));
    } finally {
      served = content;
    }
    // Each: the size's proof and the groups of the range.
    expect(asked.sort()).toEqual([PROOF, PROOF, 'bytes=180224-212991', 'bytes=98304-114687'].sort());
  });
});
