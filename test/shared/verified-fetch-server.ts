// A fetch() standing in for an HTTP server with files, for the verified
// fetch tests in every runtime: it answers Range requests as a server does
// (206 with Content-Range, 416 past the end, 200 without Range), or lies in
// one of the ways a server can, and records what was asked and how much of
// each body was read. Real sockets: test/node/verified-fetch-http.test.ts.

/** How a content response lies, if it does. */
export type Lie =
  | { kind: 'ignore-range' } // 200 with everything
  | { kind: 'short' } // one byte fewer than asked
  | { kind: 'long' } // one byte more than asked
  | { kind: 'endless' } // the bytes asked, then zeros without end
  | { kind: 'wrong-range' } // a Content-Range naming bytes from 0
  | { kind: 'flip'; at: number } // byte `at` of the file changed
  | { kind: 'stall' } // headers, then the body never comes
  | { kind: 'status'; status: number };

export interface Served {
  /** What each request asked for: the path and its Range header. */
  requests: { path: string; range: string | null }[];
  /** Bytes of bodies handed out, and whether a body was cancelled. */
  sent: { bytes: number; cancelled: number };
}

/** Where an endless body stops anyway: a client that read it all fails the
 * test instead of the machine. */
const ENDLESS = 64 << 20;

/** A body of `bytes`, then `extra` zero bytes, in pieces of `pieceLength()`
 * bytes (64 KiB by default), counted in `served`. */
function body(bytes: Uint8Array, served: Served, extra = 0, pieceLength = () => 65536): ReadableStream<Uint8Array> {
  let at = 0;
  const total = bytes.length + extra;
  return new ReadableStream({
    pull(controller) {
      if (at >= total) return controller.close();
      const end = Math.min(total, at + pieceLength());
      const piece = new Uint8Array(end - at);
      if (at < bytes.length) piece.set(bytes.subarray(at, Math.min(end, bytes.length)));
      served.sent.bytes += piece.length;
      at = end;
      controller.enqueue(piece);
    },
    cancel() {
      served.sent.cancelled++;
    },
  });
}

/** Says how the answer to the n-th request for `path` (asking for `range`) lies, if it does. */
export type Liar = (path: string, range: string | null, n: number) => Lie | undefined;

/**
 * A fetch serving `files` by path (the URL's pathname, or the whole string
 * for a bare name), lying where `lie` says; the files may be replaced
 * between requests (a race).
 */
export function stubServer(files: Map<string, Uint8Array>, lie: Liar = () => undefined, piece?: () => number) {
  const served: Served = { requests: [], sent: { bytes: 0, cancelled: 0 } };
  const counts = new Map<string, number>();
  const get = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input);
    const path = url.includes('/') ? new URL(url, 'http://stub/').pathname.slice(1) : url;
    const range = new Headers(init?.headers).get('Range');
    served.requests.push({ path, range });
    const n = counts.get(path) ?? 0;
    counts.set(path, n + 1);
    const file = files.get(path);
    if (file === undefined) return new Response('not found', { status: 404 });
    const told = lie(path, range, n);
    let bytes = file;
    if (told?.kind === 'flip' && told.at < file.length) {
      bytes = file.slice();
      bytes[told.at]! ^= 1;
    }
    if (told?.kind === 'status') return new Response('no', { status: told.status });
    const asked = /^bytes=(\d+)-(\d*)$/.exec(range ?? '');
    if (asked === null || told?.kind === 'ignore-range') return new Response(body(bytes, served, 0, piece), { status: 200 });
    const first = Number(asked[1]);
    const end = asked[2] === '' ? bytes.length : Math.min(bytes.length, Number(asked[2]) + 1);
    if (first >= bytes.length) return new Response(null, { status: 416, headers: { 'Content-Range': `bytes */${bytes.length}` } });
    const headers = { 'Content-Range': `bytes ${first}-${end - 1}/${bytes.length}` };
    if (told?.kind === 'wrong-range') headers['Content-Range'] = `bytes 0-${end - first - 1}/${bytes.length}`;
    if (told?.kind === 'stall') return new Response(new ReadableStream({ cancel: () => void served.sent.cancelled++ }), { status: 206, headers });
    const part = bytes.subarray(first, told?.kind === 'short' ? end - 1 : told?.kind === 'long' ? end + 1 : end);
    return new Response(body(part, served, told?.kind === 'endless' ? ENDLESS : 0, piece), { status: 206, headers });
  }) as typeof fetch;
  return { fetch: get, served };
}

/** Everything a body streams, and what errored it (or undefined); each
 * piece's whole buffer, as a reader could reach it, into `buffers`. */
export async function drain(response: Response, buffers?: Uint8Array[]): Promise<{ bytes: Uint8Array; error: unknown }> {
  const reader = response.body!.getReader();
  const parts: Uint8Array[] = [];
  let length = 0;
  try {
    for (let step = await reader.read(); !step.done; step = await reader.read()) {
      parts.push(step.value);
      length += step.value.length;
      buffers?.push(new Uint8Array(step.value.buffer));
    }
  } catch (error) {
    return { bytes: join(parts, length), error };
  }
  return { bytes: join(parts, length), error: undefined };
}

function join(parts: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
