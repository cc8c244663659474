// verifiedFetch: fetch() for content known by its BLAKE3 hash, from a
// server that is not trusted. It resolves to a standard Response whose body
// streams only bytes verified against the hash (with the content's
// outboard), answering a Range request with 206 and exactly the bytes asked
// for, after fetching only the chunk groups that hold them (respond.ts).

import { VerifiedContent } from './content.js';
import { askedRange, serverHeaders } from './http.js';
import type { HeaderValues, TreeOptions } from './options.js';
import { treeSpec } from './outboard.js';
import { contentTypeOf, methodOf, onErrorOf, respond } from './respond.js';

export interface VerifiedFetchOptions extends TreeOptions {
  /** 'GET' (the default) or 'HEAD'. */
  method?: string;
  /** Sent to the server; a Range here (or on a Request given as input) is
   * the range asked for. */
  headers?: HeaderValues;
  /** Aborts every request, and errors the body if it is being read. A
   * server that stalls is waited for until it aborts. */
  signal?: AbortSignal;
  /** The fetch to use (a wrapper adding credentials, say); the global one by default. */
  fetch?: typeof fetch;
  /** The response's Content-Type: 'application/octet-stream' by default,
   * as the server's own is not covered by the hash. */
  contentType?: string;
  /** Called with what errored the body (a BaoVerifyError with its offset),
   * for a reader such as a media element that sees only a network error. */
  onError?: (error: unknown) => unknown;
}

/**
 * The content at `input`, verified against `options.hash` with its
 * outboard (`options.outboard`: the bao crate's outboard, or with
 * `options.chunkLog` a bao-tree outboard; bytes or a URL), as a Response:
 * 200 with the whole content, or for a `Range: bytes=…` request 206 with
 * exactly those bytes (416 where none exist). Without `options.outboard`,
 * `input` serves the bao crate's combined encoding, which is streamed whole
 * (200; a Range is not served from it). Rejects where the outboard, the
 * content's size or the server's answer do not check out; a server's HTTP
 * error comes back as its status with no body.
 */
export async function verifiedFetch(input: string | URL | Request, options: VerifiedFetchOptions): Promise<Response> {
  const spec = treeSpec(options, 'options');
  const request = typeof Request === 'function' && input instanceof Request ? input : undefined;
  if (request === undefined && typeof input !== 'string' && !(input instanceof URL))
    throw new TypeError('blake3-kit: input must be a URL (string or URL) or a Request');
  const headers = new Headers(request?.headers);
  if (options.headers !== undefined) for (const [name, value] of new Headers(options.headers)) headers.set(name, value);
  const get = options.fetch ?? fetch;
  if (typeof get !== 'function') throw new TypeError('blake3-kit: options.fetch must be a function');
  const content = new VerifiedContent(spec, request?.url ?? input.toString(), get, serverHeaders(headers), options.fetch === undefined);
  return respond(content, {
    method: methodOf(options.method ?? request?.method),
    range: askedRange(headers.get('Range')),
    signal: options.signal ?? request?.signal,
    contentType: contentTypeOf(options.contentType),
    onError: onErrorOf(options.onError),
  });
}
