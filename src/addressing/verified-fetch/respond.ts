// The response of a verified fetch, for verifiedFetch and the Service
// Worker's handler: what the server sends is read no further than needed
// (a body that is longer, endless or a decompression bomb is refused after
// at most one piece more), a server that ignores Range is read from its
// start and released after the range, and an abort or a cancelled body
// ends every request at once. A piece that does not verify errors the body
// with BaoVerifyError, after every verified byte before it.

import { checkSignal } from '../../input.js';
import { abortable } from '../../promises.js';
import { baoDecodeStream } from '../bao/stream.js';
import { BaoVerifyError, readHeader } from '../bao/decode.js';
import { HEADER_LEN } from '../bao/nodes.js';
import { BodyReader } from './body.js';
import type { VerifiedContent } from './content.js';
import { type AskedRange, checkContentRange, rangeIn, withRange } from './http.js';
import type { Tree } from './outboard.js';
import { BodySource, type Span } from './source.js';
import { mismatches, verifiedRange } from './verify.js';

/** What one response is for. */
export interface Ask {
  method: 'GET' | 'HEAD';
  range: AskedRange | undefined;
  signal: AbortSignal | undefined;
  contentType: string;
  onError: ((error: unknown) => unknown) | undefined;
}

export function methodOf(method: unknown): 'GET' | 'HEAD' {
  const upper = method === undefined ? 'GET' : typeof method === 'string' ? method.toUpperCase() : undefined;
  if (upper === 'GET' || upper === 'HEAD') return upper;
  throw new TypeError(`blake3-kit: a verified fetch is a GET or a HEAD; got ${String(method)}`);
}

export function contentTypeOf(type: unknown): string {
  if (type === undefined) return 'application/octet-stream';
  if (typeof type !== 'string') throw new TypeError('blake3-kit: options.contentType must be a string');
  return type;
}

export function onErrorOf(onError: unknown): Ask['onError'] {
  if (onError !== undefined && typeof onError !== 'function') throw new TypeError('blake3-kit: options.onError must be a function');
  return onError as Ask['onError'];
}

/** The Response for `ask` of `content`. */
export async function respond(content: VerifiedContent, ask: Ask): Promise<Response> {
  checkSignal(ask.signal, 'signal');
  ask.signal?.throwIfAborted();
  if (content.combined) return respondCombined(content, ask);
  const own = linked(ask.signal);
  let pending: Promise<Response> | undefined;
  try {
    const tree = await content.tree(ask.signal);
    const group = tree.block.bytes;
    const { range } = ask;
    // The leaf-aligned bytes asked of the server: sent now, beside the proof
    // of the size, where they do not depend on it.
    const from = range === undefined || 'suffix' in range ? 0 : Math.floor(range.first / group) * group;
    const request = (first: number, to: number | undefined) =>
      content.fetch(content.url, { headers: range === undefined ? content.headers : withRange(content.headers, first, to), signal: own.signal });
    const early = ask.method === 'GET' && (range === undefined || !('suffix' in range));
    const known = early ? knownBad(content, from, ask) : undefined;
    if (known !== undefined) {
      own.stop();
      return known;
    }
    if (early) pending = settledLater(request(from, range?.last === undefined ? undefined : (Math.floor(range.last / group) + 1) * group));
    const size = await content.size(ask.signal);
    const span = range === undefined ? { start: 0, end: size } : rangeIn(range, size);
    const headers = new Headers({ 'Accept-Ranges': 'bytes', 'Content-Type': ask.contentType });
    if (span === undefined) {
      headers.set('Content-Range', `bytes */${size}`);
      own.stop();
      return new Response(null, { status: 416, headers });
    }
    const status = range === undefined ? 200 : 206;
    headers.set('Content-Length', String(span.end - span.start));
    if (status === 206) headers.set('Content-Range', `bytes ${span.start}-${span.end - 1}/${size}`);
    if (ask.method === 'HEAD') {
      own.stop();
      return new Response(null, { status, headers });
    }
    const aligned = Math.floor(span.start / group) * group;
    const to = Math.min(size, Math.ceil(span.end / group) * group);
    const late = early ? undefined : knownBad(content, aligned, ask);
    if (late !== undefined) {
      own.stop();
      return late;
    }
    // A suffix range starts where only the size says.
    const response = await abortable(pending ?? request(aligned, to === size ? undefined : to), ask.signal);
    pending = undefined;
    if (!response.ok) {
      response.body?.cancel().catch(() => {});
      own.stop();
      return new Response(null, { status: response.status, statusText: response.statusText });
    }
    const partial = response.status === 206;
    if (partial) checkContentRange(response, aligned, to, size);
    const body = new BodyReader(response, own.signal);
    const pieces = verifiedPieces(body, tree, size, { from: aligned, to, start: span.start, end: span.end }, partial, content.transfer);
    const failed = (error: unknown) => {
      if (error instanceof BaoVerifyError && mismatches.has(error) && error.offset !== undefined) content.markBad(error.offset);
      report(ask.onError, error);
    };
    return new Response(bodyStream(pieces, body, own, failed), { status, headers });
  } catch (error) {
    own.stop();
    pending?.then((response) => response.body?.cancel().catch(() => {})).catch(() => {});
    throw error;
  }
}

/** The verified bytes of `span`, read from `body`: a 206 from `span.from`,
 * or a 200 (the whole content, the bytes before the range dropped). The
 * body must end with them where it was to end there (a 206, or a 200 read
 * to the content's end); else the rest is let go unread. */
async function* verifiedPieces(
  body: BodyReader,
  tree: Tree,
  size: number,
  span: Span,
  partial: boolean,
  transfer: boolean,
): AsyncGenerator<Uint8Array, void> {
  if (!partial && span.from > 0 && (await body.skip(span.from)) < span.from) {
    throw new BaoVerifyError(`the server's body ended before byte ${span.from}`, span.from);
  }
  const source = new BodySource(body, span.from, span, transfer);
  yield* verifiedRange(tree, size, source, span);
  if ((partial || span.to === size) && (source.untaken > 0 || !(await body.ended())))
    throw new BaoVerifyError(`the server sent more than the ${span.to - span.from} bytes wanted from byte ${span.from}`, span.to);
}

/** A stream of `pieces`: the first error errors it (and is reported), and
 * its end, error or cancel lets the server's body go. A cancel is the
 * reader's choice, not a failure: what the pending read then ends with (a
 * short body, a released one) is neither enqueued nor reported. */
function bodyStream(
  pieces: AsyncGenerator<Uint8Array, void>,
  body: BodyReader,
  own: Linked,
  failed: (error: unknown) => void,
): ReadableStream<Uint8Array> {
  let cancelled = false;
  const stop = (reason?: unknown) => {
    body.release(reason);
    own.stop();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let step: IteratorResult<Uint8Array, void>;
      try {
        step = await pieces.next();
      } catch (error) {
        stop(error);
        if (cancelled) return;
        controller.error(error);
        failed(error);
        return;
      }
      if (cancelled) return;
      if (step.done) {
        stop();
        controller.close();
      } else controller.enqueue(step.value);
    },
    cancel(reason) {
      cancelled = true;
      stop(reason);
      // The generator takes its return() once its pending read fails, which
      // the release above makes it do.
      pieces.return(undefined).catch(() => {});
    },
  });
}

/** Tells `onError`, whose rejection or throw is the caller's: it cannot break the stream. */
function report(onError: Ask['onError'], error: unknown): void {
  try {
    Promise.resolve(onError?.(error)).catch(() => {});
  } catch {}
}

/** A 502 for a range that starts at a group which failed verification a
 * moment ago: a media element that would retry it is told at once. */
function knownBad(content: VerifiedContent, from: number, ask: Ask): Response | undefined {
  const age = content.badSince(from);
  if (age === undefined) return undefined;
  report(ask.onError, new BaoVerifyError(`the content at byte ${from} did not match the hash ${age} ms ago; not fetched again`, from));
  return new Response(null, { status: 502, statusText: 'Bad Gateway' });
}

/** A combined encoding, streamed whole through baoDecodeStream: its length
 * header is read first for Content-Length (proven by its last chunk, at
 * the end of the stream). */
async function respondCombined(content: VerifiedContent, ask: Ask): Promise<Response> {
  const own = linked(ask.signal);
  try {
    const response = await abortable(content.fetch(content.url, { headers: content.headers, signal: own.signal }), ask.signal);
    if (!response.ok) {
      response.body?.cancel().catch(() => {});
      own.stop();
      return new Response(null, { status: response.status, statusText: response.statusText });
    }
    const body = new BodyReader(response, own.signal);
    const header = new Uint8Array(HEADER_LEN);
    const size = readHeader(header.subarray(0, await body.fill(header)), 'encoding');
    const headers = new Headers({ 'Content-Type': ask.contentType, 'Content-Length': String(size) });
    if (ask.method === 'HEAD') {
      body.release();
      own.stop();
      return new Response(null, { status: 200, headers });
    }
    // The header read above, then the rest as it comes.
    let first = true;
    const rest: AsyncIterable<Uint8Array> = {
      [Symbol.asyncIterator]: () => ({
        async next(): Promise<IteratorResult<Uint8Array>> {
          if (first) {
            first = false;
            return { done: false, value: header };
          }
          const piece = await body.next();
          return piece === undefined ? { done: true, value: undefined } : { done: false, value: piece };
        },
        async return(): Promise<IteratorResult<Uint8Array>> {
          body.release();
          return { done: true, value: undefined };
        },
      }),
    };
    const leaves = baoDecodeStream(rest, content.spec.root).getReader();
    async function* pieces(): AsyncGenerator<Uint8Array, void> {
      try {
        for (let step = await leaves.read(); !step.done; step = await leaves.read()) yield step.value;
      } finally {
        leaves.cancel().catch(() => {});
      }
    }
    return new Response(
      bodyStream(pieces(), body, own, (error) => report(ask.onError, error)),
      { status: 200, headers },
    );
  } catch (error) {
    own.stop();
    throw error;
  }
}

interface Linked {
  signal: AbortSignal;
  /** Aborts what is still running under `signal`, and lets go of the caller's. */
  stop(): void;
}

/** A signal of our own for the requests of one response, aborted when the
 * caller's is, or when the response is done with them. */
function linked(outer: AbortSignal | undefined): Linked {
  const controller = new AbortController();
  const onAbort = () => controller.abort(outer!.reason);
  outer?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    stop() {
      outer?.removeEventListener('abort', onAbort);
      controller.abort();
    },
  };
}

/** `promise`, its rejection marked handled (it may never be awaited). */
function settledLater<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}
