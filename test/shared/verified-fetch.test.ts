// verifiedFetch in every runtime, against a fetch of our own that answers as
// an honest server or lies (verified-fetch-server.ts): 200 and 206 with
// exactly the bytes asked, from every outboard shape; a corrupted group
// errors the body after exactly the bytes before it; servers that ignore
// Range, send too little, too much, without end, or stall; a size that
// lies; abort. Real sockets: test/node/verified-fetch-http.test.ts.
import { baoEncode, baoTreeOutboard, BaoVerifyError, cid, verifiedFetch } from 'blake3-kit/bao';
import { describe, expect, it } from 'vitest';
import { loadBao, random, seed } from './setup.js';
import { drain, type Liar, type Lie, stubServer } from './verified-fetch-server.js';

await loadBao();
const rng = random(seed);

// Thirty-odd groups of 16 KiB and a short last one; at chunkLog 0 a Bao outboard.
const content = rng.bytes(500_000 + rng.int(2000));
const { encoding: baoOutboard, hash } = baoEncode(content, { outboard: true });
const trees = {
  bao: { outboard: baoOutboard, group: 1024 },
  chunkLog4: { outboard: baoTreeOutboard(content, { chunkLog: 4 }).outboard, chunkLog: 4, group: 16384 },
  chunkLog2post: { outboard: baoTreeOutboard(content, { chunkLog: 2, order: 'post' }).outboard, chunkLog: 2, order: 'post' as const, group: 4096 },
};
type Shape = keyof typeof trees;
const shapes = Object.keys(trees) as Shape[];

/** The Range of the request that proves the size: the last group, to the end. */
const proofOf = (shape: Shape) => `bytes=${Math.floor((content.length - 1) / trees[shape].group) * trees[shape].group}-`;

/** `lie` for every request but the one that proves the size. */
const except =
  (shape: Shape, lie: Lie): Liar =>
  (_path, range) =>
    range === proofOf(shape) ? undefined : lie;

/** verifiedFetch of 'content' from a stub server (lying as `lie` says), with `shape`'s outboard by bytes. */
function fetchFrom(shape: Shape, init: Record<string, unknown> = {}, lie?: Liar, file = content) {
  const { group: _, ...tree } = trees[shape];
  const server = stubServer(new Map([['content', file]]), lie);
  const response = verifiedFetch('content', { hash, ...tree, fetch: server.fetch, ...init });
  return { response, server };
}

const range = (header: string) => ({ headers: { Range: header } });

describe(`verifiedFetch (seed ${seed})`, () => {
  it('answers 200 with the whole content, its length and type, from every outboard shape, given or by URL', async () => {
    for (const shape of shapes) {
      const { response } = fetchFrom(shape, { contentType: 'audio/wav' });
      const answer = await response;
      expect(answer.status, shape).toBe(200);
      expect(answer.headers.get('Content-Length')).toBe(String(content.length));
      expect(answer.headers.get('Content-Type')).toBe('audio/wav');
      expect(answer.headers.get('Accept-Ranges')).toBe('bytes');
      expect(await drain(answer)).toEqual({ bytes: content, error: undefined });
    }
    // The outboard from a URL, and the hash as a BDASL CID.
    const { group: _, ...tree } = trees.chunkLog4;
    const server = stubServer(
      new Map([
        ['content', content],
        ['outboard', tree.outboard],
      ]),
    );
    const answer = await verifiedFetch('content', { ...tree, outboard: 'outboard', hash: cid(hash), fetch: server.fetch });
    expect((await drain(answer)).bytes).toEqual(content);
    expect(answer.headers.get('Content-Type')).toBe('application/octet-stream');
  });

  it('answers a Range with 206, exactly the bytes asked, after fetching only the groups that hold them', async () => {
    for (const shape of shapes) {
      const { group } = trees[shape];
      for (let trial = 0; trial < 12; trial++) {
        const first = rng.int(content.length);
        const last = first + rng.int(40_000);
        const { response, server } = fetchFrom(shape, range(`bytes=${first}-${last}`));
        const answer = await response;
        const end = Math.min(content.length, last + 1);
        expect(answer.status).toBe(206);
        expect(answer.headers.get('Content-Range')).toBe(`bytes ${first}-${end - 1}/${content.length}`);
        expect(answer.headers.get('Content-Length')).toBe(String(end - first));
        expect(await drain(answer)).toEqual({ bytes: content.slice(first, end), error: undefined });
        // The proof of the size (the last group), then the aligned groups.
        const lastGroup = Math.floor((content.length - 1) / group) * group;
        const from = Math.floor(first / group) * group;
        expect(server.served.requests.map((r) => r.range).sort()).toEqual(
          [`bytes=${lastGroup}-`, `bytes=${from}-${(Math.floor(last / group) + 1) * group - 1}`].sort(),
        );
      }
    }
  });

  it("uses the runtime's own fetch when given none (a data: URL, which ignores Range)", async () => {
    // A browser's fetch called as a method of another object throws "Illegal invocation".
    const small = content.subarray(0, 50_000);
    const { outboard, hash: smallHash } = baoTreeOutboard(small, { chunkLog: 2 });
    let binary = '';
    for (const byte of small) binary += String.fromCharCode(byte);
    const url = `data:application/octet-stream;base64,${btoa(binary)}`;
    const answer = await verifiedFetch(url, { hash: smallHash, outboard, chunkLog: 2, headers: { Range: 'bytes=10000-20000' } });
    expect([answer.status, answer.headers.get('Content-Range')]).toEqual([206, 'bytes 10000-20000/50000']);
    expect(await drain(answer)).toEqual({ bytes: small.slice(10_000, 20_001), error: undefined });
  });

  it('answers open and suffix ranges, 416 past the end, and the whole content for ranges it does not serve', async () => {
    const cases: [string, number, [number, number] | undefined][] = [
      ['bytes=100000-', 206, [100_000, content.length]],
      ['bytes=-1000', 206, [content.length - 1000, content.length]],
      ['bytes=-99999999', 206, [0, content.length]],
      ['bytes=0-0', 206, [0, 1]],
      [`bytes=${content.length - 1}-`, 206, [content.length - 1, content.length]],
      [`bytes=${content.length}-`, 416, undefined],
      ['bytes=-0', 416, undefined],
      ['bytes=0-10, 20-30', 200, [0, content.length]],
      ['items=0-10', 200, [0, content.length]],
      ['bytes=10-5', 200, [0, content.length]],
    ];
    for (const [header, status, bytes] of cases) {
      const answer = await fetchFrom('chunkLog4', range(header)).response;
      expect(answer.status, header).toBe(status);
      if (bytes === undefined) {
        expect(answer.headers.get('Content-Range')).toBe(`bytes */${content.length}`);
        expect(answer.body).toBe(null);
      } else expect((await drain(answer)).bytes, header).toEqual(content.slice(...bytes));
    }
  });

  it('answers HEAD with the headers alone, and serves empty content', async () => {
    const { response, server } = fetchFrom('bao', { method: 'HEAD', ...range('bytes=10-19') });
    const answer = await response;
    expect([answer.status, answer.headers.get('Content-Length'), answer.body]).toEqual([206, '10', null]);
    expect(server.served.requests).toHaveLength(1); // the size's proof only
    const empty = baoEncode(new Uint8Array(0), { outboard: true });
    const server2 = stubServer(new Map([['content', new Uint8Array(0)]]));
    const whole = await verifiedFetch('content', { hash: empty.hash, outboard: empty.encoding, fetch: server2.fetch });
    expect([whole.status, whole.headers.get('Content-Length')]).toEqual([200, '0']);
    expect(await drain(whole)).toEqual({ bytes: new Uint8Array(0), error: undefined });
    const ranged = await verifiedFetch('content', { hash: empty.hash, outboard: empty.encoding, fetch: server2.fetch, ...range('bytes=0-') });
    expect(ranged.status).toBe(416);
  });

  it('errors the body at a corrupted group with its offset, after exactly the verified bytes before it', async () => {
    for (const shape of shapes) {
      const { group } = trees[shape];
      const at = 300_000 + rng.int(100_000);
      const bad = Math.floor(at / group) * group;
      // The whole content, and a range that starts before the bad group.
      for (const init of [{}, range(`bytes=${bad - 5000}-`)]) {
        const start = 'headers' in init ? bad - 5000 : 0;
        const { response } = fetchFrom(shape, init, except(shape, { kind: 'flip', at }));
        const { bytes, error } = await drain(await response);
        expect(error, shape).toBeInstanceOf(BaoVerifyError);
        expect((error as BaoVerifyError).offset).toBe(bad);
        expect(bytes).toEqual(content.slice(start, bad));
      }
    }
  });

  it('passes on pieces of any size as they come, none of whose memory holds a byte it did not verify', async () => {
    for (const shape of shapes) {
      const { group } = trees[shape];
      const at = 200_000 + rng.int(200_000);
      const bad = Math.floor(at / group) * group;
      const { group: _, ...tree } = trees[shape];
      // Pieces of odd sizes: groups and 256 KiB subtrees straddle them.
      const server = stubServer(new Map([['content', content]]), except(shape, { kind: 'flip', at }), () => 1 + rng.int(100_000));
      for (const header of ['bytes=1000-', `bytes=${bad - 70_000}-${bad - 1}`]) {
        const buffers: Uint8Array[] = [];
        const { bytes, error } = await drain(
          await verifiedFetch('content', { hash, ...tree, fetch: server.fetch, headers: { Range: header } }),
          buffers,
        );
        const first = Number(/=(\d+)/.exec(header)![1]);
        expect(bytes, `${shape} ${header}`).toEqual(content.slice(first, bad));
        expect(error === undefined, header).toBe(header.endsWith('-') === false);
        // A reader that looks past a piece into its buffer finds only content bytes, never the flipped one.
        for (const buffer of buffers) {
          const where = indexOf(content, buffer.subarray(0, Math.min(64, buffer.length)));
          expect(where, shape).toBeGreaterThanOrEqual(0);
          expect(buffer).toEqual(content.subarray(where, where + buffer.length));
        }
      }
    }
  });

  it("moves the platform fetch's pieces into its memory, and copies a caller's fetch's (which may still use them)", async () => {
    const { group: _, ...tree } = trees.chunkLog4;
    // A fetch of the caller's that hands out its own arrays, whole.
    const mine: Uint8Array[] = [];
    for (let at = 0; at < content.length; at += 65536) mine.push(content.slice(at, at + 65536));
    const callers = (async (_input: unknown, init?: RequestInit) => {
      const range = /^bytes=(\d+)-/.exec(new Headers(init?.headers).get('Range') ?? '');
      const from = range === null ? 0 : Number(range[1]);
      if (from % 65536 !== 0) return new Response(content.slice(from), { status: 206 });
      const stream = new ReadableStream({
        start(controller) {
          for (const array of mine.slice(from / 65536)) controller.enqueue(array);
          controller.close();
        },
      });
      return new Response(stream, { status: from === 0 ? 200 : 206 });
    }) as typeof fetch;
    expect((await drain(await verifiedFetch('content', { hash, ...tree, fetch: callers }))).bytes).toEqual(content);
    expect(mine.every((array) => array.length > 0)).toBe(true); // none detached
  });

  it('refuses an outboard that lies, and a size that lies, before any response', async () => {
    // The root node (first in pre-order): on every path, the proof's too.
    const server = stubServer(new Map([['content', content]]));
    const lyingRoot = trees.chunkLog4.outboard.slice();
    lyingRoot[3]! ^= 1;
    await expect(verifiedFetch('content', { hash, outboard: lyingRoot, chunkLog: 4, fetch: server.fetch })).rejects.toThrow(
      /the outboard's node above byte 0 does not match the hash/,
    );
    // The root's left child: on the path of bytes 0-999, not on the proof's.
    const lyingLeft = trees.chunkLog4.outboard.slice();
    lyingLeft[64 + 3]! ^= 1;
    const ranged = await verifiedFetch('content', { hash, outboard: lyingLeft, chunkLog: 4, fetch: server.fetch, ...range('bytes=0-999') });
    const { bytes, error } = await drain(ranged);
    expect(bytes).toEqual(new Uint8Array(0));
    expect(error).toBeInstanceOf(BaoVerifyError);
    expect((error as BaoVerifyError).offset).toBe(0);
    // The whole content is checked 256 KiB at a time, against the root
    // alone: the nodes below are not read, and a lie there changes nothing.
    expect((await drain(await verifiedFetch('content', { hash, outboard: lyingLeft, chunkLog: 4, fetch: server.fetch }))).bytes).toEqual(content);
    // A Bao header that claims a few bytes less (the same chunks): the last chunk proves it wrong.
    const header = baoOutboard.slice();
    new DataView(header.buffer).setBigUint64(0, BigInt(content.length - 3), true);
    await expect(verifiedFetch('content', { hash, outboard: header, fetch: server.fetch, ...range('bytes=0-9') })).rejects.toThrow(
      /content is \d+ bytes, not the \d+ declared/,
    );
    await expect(
      verifiedFetch('content', { hash, outboard: trees.chunkLog4.outboard, chunkLog: 4, size: content.length - 1, fetch: server.fetch }),
    ).rejects.toBeInstanceOf(BaoVerifyError);
    // Content longer than its outboard has groups for.
    const longer = new Uint8Array(content.length + 16384);
    longer.set(content);
    const { response } = fetchFrom('chunkLog4', {}, undefined, longer);
    await expect(response).rejects.toThrow(/goes on past byte/);
  });

  it('reads a server that ignores Range from its start, and releases it after the range', async () => {
    for (const shape of shapes) {
      const { response, server } = fetchFrom(shape, range('bytes=20000-29999'), () => ({ kind: 'ignore-range' }));
      expect(await drain(await response)).toEqual({ bytes: content.slice(20_000, 30_000), error: undefined });
      // The proof read everything; the range's body only up to its groups' end.
      expect(server.served.sent.bytes).toBeLessThan(content.length + 30_000 + 2 * 65536 + 16384);
      expect(server.served.sent.cancelled).toBeGreaterThan(0);
    }
  });

  it('refuses bodies that are short, long or endless, reading at most a piece past the range', async () => {
    const lieOnRange = (kind: Lie['kind']) => except('chunkLog4', { kind } as Lie);
    const short = await drain(await fetchFrom('chunkLog4', range('bytes=0-99999'), lieOnRange('short')).response);
    expect(short.error).toBeInstanceOf(BaoVerifyError);
    expect(short.bytes).toEqual(content.slice(0, 98_304)); // the groups before the short one
    for (const kind of ['long', 'endless'] as const) {
      const { response, server } = fetchFrom('chunkLog4', range('bytes=0-99999'), lieOnRange(kind));
      const { bytes, error } = await drain(await response);
      expect(error, kind).toBeInstanceOf(BaoVerifyError);
      expect((error as Error).message).toMatch(/sent more than the 114688 bytes wanted from byte 0/);
      expect(bytes).toEqual(content.slice(0, 100_000));
      expect(server.served.sent.bytes).toBeLessThan(content.length + (1 << 20));
      if (kind === 'endless') expect(server.served.sent.cancelled).toBe(1);
    }
    const wrong = fetchFrom('chunkLog4', range('bytes=50000-59999'), lieOnRange('wrong-range')).response;
    await expect(wrong).rejects.toThrow(/answered bytes 49152-65535 of \d+ with Content-Range "bytes 0-16383/);
    const failing = await fetchFrom('chunkLog4', range('bytes=0-9'), except('chunkLog4', { kind: 'status', status: 503 })).response;
    expect([failing.status, failing.body]).toEqual([503, null]);
  });

  it('aborts at once when the signal does, even while the server stalls, and when the body is cancelled', async () => {
    const controller = new AbortController();
    const { response, server } = fetchFrom('chunkLog4', { ...range('bytes=0-'), signal: controller.signal }, except('chunkLog4', { kind: 'stall' }));
    const reader = (await response).body!.getReader();
    const read = reader.read();
    setTimeout(() => controller.abort(new Error('enough')), 50);
    const started = Date.now();
    await expect(read).rejects.toThrow('enough');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(server.served.sent.cancelled).toBe(1);
    // A cancel lets the server's body go.
    const second = fetchFrom('chunkLog4', range('bytes=0-'));
    const body = (await second.response).body!.getReader();
    await body.read();
    await body.cancel('seeked');
    expect(second.server.served.sent.cancelled).toBeGreaterThan(0);
    // Aborted before it starts.
    await expect(fetchFrom('chunkLog4', { signal: AbortSignal.abort(new Error('never')) }).response).rejects.toThrow('never');
  });

  it('tells onError what errored the body', async () => {
    const errors: unknown[] = [];
    const { response } = fetchFrom('bao', { onError: (error: unknown) => errors.push(error) }, except('bao', { kind: 'flip', at: 123_456 }));
    const { error } = await drain(await response);
    expect(errors).toEqual([error]);
    expect((error as BaoVerifyError).offset).toBe(122_880);
    // A body cancelled while a read waits on the server is no failure: a
    // media element cancels at every seek (WebKitGTK's page once showed the
    // TypeError of an enqueue after such a cancel in place of the real error).
    const quiet: unknown[] = [];
    const stalled = fetchFrom('chunkLog4', { ...range('bytes=0-'), onError: (e: unknown) => quiet.push(e) }, except('chunkLog4', { kind: 'stall' }));
    const reader = (await stalled.response).body!.getReader();
    const pending = reader.read();
    await new Promise((done) => setTimeout(done, 20));
    await reader.cancel('seeked');
    expect(await pending).toEqual({ done: true, value: undefined });
    await new Promise((done) => setTimeout(done, 20));
    expect(quiet).toEqual([]);
  });

  it('streams a combined Bao encoding whole, and stops at a corrupted chunk', async () => {
    const { encoding } = baoEncode(content);
    const server = stubServer(new Map([['encoded', encoding]]));
    const answer = await verifiedFetch('encoded', { hash, fetch: server.fetch, ...range('bytes=5-9') });
    expect([answer.status, answer.headers.get('Content-Length')]).toEqual([200, String(content.length)]);
    expect(await drain(answer)).toEqual({ bytes: content, error: undefined });
    const corrupt = stubServer(new Map([['encoded', encoding]]), () => ({ kind: 'flip', at: encoding.length - 10 }));
    const { bytes, error } = await drain(await verifiedFetch('encoded', { hash, fetch: corrupt.fetch }));
    expect(error).toBeInstanceOf(BaoVerifyError);
    expect(bytes.length).toBeLessThan(content.length);
    expect(bytes).toEqual(content.subarray(0, bytes.length));
  });

  it('checks its arguments, naming them', async () => {
    const server = stubServer(new Map([['content', content]]));
    const cases: [unknown, unknown, ErrorConstructor, RegExp][] = [
      [42, { hash, outboard: baoOutboard }, TypeError, /input must be a URL/],
      ['content', { hash: 'x', outboard: baoOutboard }, RangeError, /cid must start with/],
      ['content', { hash: hash.subarray(1), outboard: baoOutboard }, RangeError, /options\.hash must be 32 bytes/],
      ['content', { hash, outboard: 5 }, TypeError, /options\.outboard/],
      ['content', { hash, outboard: baoOutboard, chunkLog: 17 }, RangeError, /options\.chunkLog/],
      ['content', { hash, chunkLog: 4 }, TypeError, /options\.chunkLog needs options\.outboard/],
      ['content', { hash, outboard: baoOutboard, order: 'post' }, TypeError, /options\.order is for a bao-tree outboard/],
      ['content', { hash, outboard: baoOutboard, size: -1 }, RangeError, /options\.size/],
      ['content', { hash, outboard: baoOutboard, method: 'POST' }, TypeError, /GET or a HEAD/],
      ['content', { hash, outboard: baoOutboard, contentType: 5 }, TypeError, /options\.contentType/],
      ['content', { hash, outboard: baoOutboard, fetch: 'no' }, TypeError, /options\.fetch/],
      ['content', { hash, outboard: baoOutboard, signal: {} }, TypeError, /signal must be an AbortSignal/],
      ['content', { hash, outboard: 'ob', maxOutboardBytes: -1 }, RangeError, /options\.maxOutboardBytes/],
    ];
    for (const [input, options, type, message] of cases) {
      const run = verifiedFetch(input as string, { fetch: server.fetch, ...(options as object) } as never);
      await expect(run, String(message)).rejects.toBeInstanceOf(type);
      await expect(run).rejects.toThrow(message);
    }
    await expect(verifiedFetch('content', undefined as never)).rejects.toThrow(/options must be an object/);
  });
});

/** Where `needle` first occurs in `hay`, or -1. */
function indexOf(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
