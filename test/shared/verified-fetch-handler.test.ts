// createVerifiedFetchHandler in every runtime, with Requests as a Service
// Worker's fetch events carry them (the Service Worker itself, in three
// browser engines: test/node/verified-media.test.ts): resolve() claims
// requests by a CID in the path; each content's outboard and size proof are
// fetched once for many range requests; a server whose bytes change between
// two range requests fails the second, never mixing the two.
import { baoTreeOutboard, BaoVerifyError, cid, createVerifiedFetchHandler, type VerifiedTarget } from 'blake3-kit/bao';
import { describe, expect, it } from 'vitest';
import { loadBao, random, seed } from './setup.js';
import { drain, type Liar, stubServer } from './verified-fetch-server.js';

await loadBao();
const rng = random(seed);
const content = rng.bytes(300_000 + rng.int(1000));
const { outboard, hash } = baoTreeOutboard(content, { chunkLog: 4 });
const name = cid(hash);
const another = rng.bytes(100_000);
const { outboard: anotherOutboard, hash: anotherHash } = baoTreeOutboard(another, { chunkLog: 4 });
const anotherName = cid(anotherHash);

/** resolve() of an app that serves /v/<cid> from /blobs/<cid> and /blobs/<cid>.ob4. */
const resolve = (request: Request): VerifiedTarget | undefined => {
  const match = /^\/v\/(b[a-z2-7]+)$/.exec(new URL(request.url).pathname);
  if (match === null) return undefined;
  return { hash: match[1]!, content: `/blobs/${match[1]}`, outboard: `/blobs/${match[1]}.ob4`, chunkLog: 4, contentType: 'video/mp4' };
};

function setUp(lie?: Liar, extra: Record<string, unknown> = {}) {
  const files = new Map([
    [`blobs/${name}`, content],
    [`blobs/${name}.ob4`, outboard],
    [`blobs/${anotherName}`, another],
    [`blobs/${anotherName}.ob4`, anotherOutboard],
  ]);
  const server = stubServer(files, lie);
  const errors: unknown[] = [];
  const handler = createVerifiedFetchHandler({ resolve, fetch: server.fetch, onError: (error) => errors.push(error), ...extra });
  const ask = (header?: string, of = name) => new Request(`http://app.test/v/${of}`, header === undefined ? {} : { headers: { Range: header } });
  return { handler, server, files, errors, ask };
}

describe(`createVerifiedFetchHandler (seed ${seed})`, () => {
  it('answers the requests resolve() claims, Range and all, and leaves the rest to the browser', async () => {
    const { handler, ask } = setUp();
    const whole = (await handler.respond(ask()))!;
    expect([whole.status, whole.headers.get('Content-Type')]).toEqual([200, 'video/mp4']);
    expect((await drain(whole)).bytes).toEqual(content);
    const part = (await handler.respond(ask('bytes=100000-150000')))!;
    expect([part.status, part.headers.get('Content-Range')]).toEqual([206, `bytes 100000-150000/${content.length}`]);
    expect((await drain(part)).bytes).toEqual(content.slice(100_000, 150_001));
    expect(await handler.respond(new Request('http://app.test/index.html'))).toBe(undefined);
    // As a fetch listener: respondWith for its own requests only.
    const answered: Promise<Response>[] = [];
    const event = (request: Request) => ({ request, respondWith: (r: Response | PromiseLike<Response>) => void answered.push(Promise.resolve(r)) });
    handler(event(new Request('http://app.test/app.js')));
    expect(answered).toHaveLength(0);
    handler(event(ask('bytes=0-9')));
    expect(answered).toHaveLength(1);
    expect((await drain(await answered[0]!)).bytes).toEqual(content.slice(0, 10));
  });

  it("fetches a content's outboard and proves its size once for all its range requests", async () => {
    const { handler, server, ask } = setUp();
    const seeks = [0, 200_000, 50_000, 299_000, 120_000];
    await Promise.all(
      seeks.map(async (at) =>
        expect((await drain((await handler.respond(ask(`bytes=${at}-${at + 999}`)))!)).bytes).toEqual(content.slice(at, at + 1000)),
      ),
    );
    const paths = server.served.requests.map(({ path, range }) => `${path.endsWith('.ob4') ? 'outboard' : 'content'} ${range ?? ''}`);
    expect(paths.filter((p) => p.startsWith('outboard'))).toHaveLength(1);
    // The proof, and one aligned request per seek.
    const lastGroup = Math.floor((content.length - 1) / 16384) * 16384;
    expect(paths.filter((p) => p === `content bytes=${lastGroup}-`)).toHaveLength(1);
    expect(paths.filter((p) => p.startsWith('content'))).toHaveLength(seeks.length + 1);
  });

  it('fails the second of two range requests when the server’s bytes change between them, mixing nothing', async () => {
    const { handler, files, ask, errors } = setUp();
    expect((await drain((await handler.respond(ask('bytes=0-49999')))!)).bytes).toEqual(content.slice(0, 50_000));
    // The server now has other bytes under the same name (same length, same outboard).
    const other = content.slice();
    for (let i = 170_000; i < 175_000; i++) other[i] = 255 - other[i]!;
    files.set(`blobs/${name}`, other);
    const { bytes, error } = await drain((await handler.respond(ask('bytes=150000-199999')))!);
    expect(error).toBeInstanceOf(BaoVerifyError);
    // Groups of 16 KiB: the one from 163,840 holds the changed bytes.
    expect((error as BaoVerifyError).offset).toBe(163_840);
    expect(bytes).toEqual(content.slice(150_000, 163_840));
    expect(errors).toEqual([error]);
  });

  it('answers a range that starts at a group which just failed with 502, without fetching it again', async () => {
    const bad = 163_840;
    const { handler, server, ask, errors } = setUp((path, range) =>
      path.endsWith('.ob4') || range === `bytes=${Math.floor((content.length - 1) / 16384) * 16384}-` ? undefined : { kind: 'flip', at: bad + 5 },
    );
    const { error } = await drain((await handler.respond(ask('bytes=150000-')))!);
    expect((error as BaoVerifyError).offset).toBe(bad);
    // A media element retries from where the body failed: told at once.
    const asked = server.served.requests.length;
    const retry = (await handler.respond(ask(`bytes=${bad + 100}-`)))!;
    expect([retry.status, retry.body]).toEqual([502, null]);
    expect(server.served.requests).toHaveLength(asked);
    expect(errors).toHaveLength(2);
    expect((errors[1] as BaoVerifyError).offset).toBe(bad);
    expect((errors[1] as Error).message).toMatch(/did not match the hash \d+ ms ago/);
    // Other groups are fetched as before.
    expect((await drain((await handler.respond(ask('bytes=0-99')))!)).bytes).toEqual(content.slice(0, 100));
  });

  it('waits for ready, reports failures, and keeps outboards within its budget', async () => {
    let release = () => {};
    const ready = new Promise<void>((done) => (release = done));
    // Room for one content's outboard.
    const { handler, server, ask, errors } = setUp(undefined, { ready, maxCachedOutboardBytes: outboard.length });
    const pending = handler.respond(ask('bytes=0-9'));
    await new Promise((done) => setTimeout(done, 20));
    expect(server.served.requests).toHaveLength(0);
    release();
    expect((await drain((await pending)!)).bytes).toEqual(content.slice(0, 10));
    await drain((await handler.respond(ask('bytes=10-19')))!);
    const outboards = () => server.served.requests.filter(({ path }) => path.endsWith('.ob4')).length;
    expect(outboards()).toBe(1);
    // Another content pushes the first one's outboard out, which is fetched again.
    expect((await drain((await handler.respond(ask('bytes=0-9', anotherName)))!)).bytes).toEqual(another.slice(0, 10));
    await drain((await handler.respond(ask('bytes=20-29')))!);
    expect(outboards()).toBe(3);
    // An outboard that is not there: the event's answer rejects, and onError hears of it.
    const broken = setUp((path) => (path.endsWith('.ob4') ? { kind: 'status', status: 404 } : undefined));
    const answered: Promise<Response>[] = [];
    broken.handler({ request: broken.ask('bytes=0-9'), respondWith: (r) => void answered.push(Promise.resolve(r)) });
    await expect(answered[0]).rejects.toThrow(/fetching the outboard failed: HTTP 404/);
    expect(broken.errors).toHaveLength(1);
    expect(errors).toEqual([]);
  });

  it('checks its options', () => {
    expect(() => createVerifiedFetchHandler({} as never)).toThrow(TypeError);
    expect(() => createVerifiedFetchHandler({ resolve, fetch: 5 } as never)).toThrow(/options\.fetch/);
    expect(() => createVerifiedFetchHandler({ resolve, onError: 5 } as never)).toThrow(/options\.onError/);
    expect(() => createVerifiedFetchHandler({ resolve, maxCachedOutboardBytes: -1 })).toThrow(RangeError);
  });
});
