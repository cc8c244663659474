// A Service Worker's fetch handler that answers requests for content known
// by its hash (a BDASL CID in the path, say) with verified bytes, Range
// requests included: so an <img>, a <video> or <audio> element, or the
// page's fetch() get only bytes the hash vouches for, without knowing it.
// The app's resolve() says which requests are such content, and where its
// bytes and outboard are; each content's outboard and proven size are kept
// (within a byte budget) for the many range requests a media element makes.

import { checkOptions } from '../../input.js';
import { toHex } from '../../hex.js';
import { VerifiedContent } from './content.js';
import { askedRange, serverHeaders } from './http.js';
import type { HeaderValues, TreeOptions } from './options.js';
import { treeSpec } from './outboard.js';
import { contentTypeOf, methodOf, respond } from './respond.js';

/** Where the content a request names is, and how to verify it. */
export interface VerifiedTarget extends TreeOptions {
  /** The content's URL (or, without `outboard`, its combined encoding's),
   * relative to the request's. A relative `outboard` URL is too. */
  content: string | URL;
  /** The response's Content-Type: 'application/octet-stream' by default. */
  contentType?: string;
  /** Sent with the requests for the content and its outboard. */
  headers?: HeaderValues;
}

export interface VerifiedFetchHandlerOptions {
  /** Which requests are verified content, and where it is: undefined for a
   * request the browser should fetch as usual. Called for every fetch event;
   * return a promise only where you must (the event is then always
   * answered, by a plain fetch where it resolves to undefined). */
  resolve: (request: Request) => VerifiedTarget | undefined | PromiseLike<VerifiedTarget | undefined>;
  /** Waited for before the first answer: the entry's init(). */
  ready?: PromiseLike<unknown>;
  /** The fetch to use for the content and outboards; the global one by default. */
  fetch?: typeof fetch;
  /** Called with every failure (a BaoVerifyError names the offset), which
   * the page sees only as a network error: post it to the page from here. */
  onError?: (error: unknown, request: Request) => unknown;
  /** Bytes of outboards kept between requests: 64 MiB by default. Each
   * content's is kept until it is the least recently used past this. */
  maxCachedOutboardBytes?: number;
}

/** The part of a FetchEvent the handler uses. */
export interface FetchEventLike {
  readonly request: Request;
  respondWith(response: Response | PromiseLike<Response>): void;
}

export interface VerifiedFetchHandler {
  /** For `self.addEventListener('fetch', handler)`. */
  (event: FetchEventLike): void;
  /** The verified response for `request`, or undefined where resolve()
   * does not claim it: for a fetch listener of your own. */
  respond(request: Request): Promise<Response | undefined>;
}

/** The most contents kept, whatever their outboards' bytes. */
const MAX_CONTENTS = 64;

/**
 * A fetch handler for a Service Worker: each request that `resolve` maps to
 * content is answered with verifiedFetch's response (200, or 206 for a
 * Range), from the content's URL and outboard.
 */
export function createVerifiedFetchHandler(options: VerifiedFetchHandlerOptions): VerifiedFetchHandler {
  checkOptions(options, 'options');
  const { resolve, ready, onError } = options ?? ({} as VerifiedFetchHandlerOptions);
  if (typeof resolve !== 'function') throw new TypeError('blake3-kit: options.resolve must be a function');
  if (options.fetch !== undefined && typeof options.fetch !== 'function') throw new TypeError('blake3-kit: options.fetch must be a function');
  if (onError !== undefined && typeof onError !== 'function') throw new TypeError('blake3-kit: options.onError must be a function');
  const budget = options.maxCachedOutboardBytes ?? 64 * 1024 * 1024;
  if (typeof budget !== 'number' || !Number.isSafeInteger(budget) || budget < 0)
    throw new RangeError(`blake3-kit: options.maxCachedOutboardBytes must be a non-negative safe integer; got ${String(budget)}`);
  const get: typeof fetch = options.fetch ?? ((input, init) => fetch(input, init));
  const report = (error: unknown, request: Request) => {
    try {
      // An async hook's rejection is the app's, but must not go unhandled.
      Promise.resolve(onError?.(error, request)).catch(() => {});
    } catch {} // the app's hook cannot break the answer
  };
  const contents = new Map<string, VerifiedContent>();
  const ids = new WeakMap<object, number>();
  let nextId = 0;

  /** The content `target` names, kept from an earlier request where it can be. */
  const contentOf = (target: VerifiedTarget, base: string): VerifiedContent => {
    checkOptions(target, 'target');
    if (typeof target.content !== 'string' && !(target.content instanceof URL)) throw new TypeError('blake3-kit: target.content must be a URL');
    const url = new URL(target.content, base).href;
    const { outboard } = target;
    const located = typeof outboard === 'string' || outboard instanceof URL ? { ...target, outboard: new URL(outboard, base).href } : target;
    const spec = treeSpec(located, 'target');
    // Outboard bytes are known by identity: resolve() hands out the same ones.
    const source =
      typeof spec.source === 'string'
        ? spec.source
        : outboard === undefined
          ? ''
          : `#${ids.get(outboard as object) ?? ids.set(outboard as object, ++nextId).get(outboard as object)}`;
    const key = [toHex(spec.root), url, source, spec.chunkLog, spec.post, spec.size].join(' ');
    let content = contents.get(key);
    if (content === undefined) content = new VerifiedContent(spec, url, get, serverHeaders(new Headers(target.headers)), options.fetch === undefined);
    else contents.delete(key);
    contents.set(key, content); // the most recently used last
    return content;
  };

  /** Lets the least recently used contents go while their outboards are over
   * the budget (or there are too many), all but `keep`. */
  const evict = (keep: VerifiedContent): void => {
    let held = 0;
    for (const kept of contents.values()) held += kept.heldBytes;
    for (const [key, kept] of contents) {
      if (held <= budget && contents.size <= MAX_CONTENTS) break;
      if (kept === keep) continue;
      held -= kept.heldBytes;
      contents.delete(key);
    }
  };

  const answer = async (target: VerifiedTarget, request: Request): Promise<Response> => {
    await ready;
    const content = contentOf(target, request.url);
    // Its outboard is loaded once respond() has answered (or failed).
    return respond(content, {
      method: methodOf(request.method),
      range: askedRange(request.headers.get('Range')),
      signal: request.signal,
      contentType: contentTypeOf(target.contentType),
      onError: (error) => report(error, request),
    }).finally(() => evict(content));
  };

  const respondTo = async (request: Request): Promise<Response | undefined> => {
    const target = await resolve(request);
    return target === undefined ? undefined : answer(target, request);
  };

  const handler = (event: FetchEventLike): void => {
    const { request } = event;
    let target: ReturnType<VerifiedFetchHandlerOptions['resolve']>;
    try {
      target = resolve(request);
    } catch (error) {
      report(error, request);
      event.respondWith(Promise.reject(error));
      return;
    }
    if (target === undefined) return;
    const response = Promise.resolve(target).then((found) => (found === undefined ? get(request) : answer(found, request)));
    response.catch((error) => report(error, request));
    event.respondWith(response);
  };
  handler.respond = respondTo;
  return handler;
}
