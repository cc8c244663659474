// The HTTP side of a verified fetch: the Range a request asks for (RFC
// 9110, one range of bytes), the leaf-aligned range asked of the server in
// its place, and what a server's answer must say about it.

import { BaoVerifyError } from '../bao/decode.js';

/** A Range header as asked: bytes from `first` (to `last`, inclusive, or
 * to the end), or the last `suffix` bytes. */
export type AskedRange = { first: number; last: number | undefined } | { suffix: number };

/**
 * A request's Range header, or undefined where there is none or it is one a
 * server may ignore (RFC 9110 14.2): another unit, several ranges (answered
 * whole: a media element asks for one), or bad syntax.
 */
export function askedRange(header: string | null): AskedRange | undefined {
  if (header === null) return undefined;
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (match === null) return undefined;
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '') return last === '' ? undefined : { suffix: Number(last) };
  if (last !== '' && Number(last) < Number(first)) return undefined;
  return { first: Number(first), last: last === '' ? undefined : Number(last) };
}

/** The bytes [start, end) of a content of `size` bytes that `asked` names,
 * or undefined where none of them exist (416). */
export function rangeIn(asked: AskedRange, size: number): { start: number; end: number } | undefined {
  if ('suffix' in asked) return asked.suffix === 0 || size === 0 ? undefined : { start: Math.max(0, size - asked.suffix), end: size };
  if (asked.first >= size) return undefined;
  return { start: asked.first, end: asked.last === undefined ? size : Math.min(size, asked.last + 1) };
}

/** Headers of the request to the server: the caller's, less those that
 * would change what comes back (its Range, which is ours to set, and
 * conditional ones, which could answer 304 with no bytes). */
export function serverHeaders(headers: Headers): Headers {
  const out = new Headers(headers);
  for (const name of ['Range', 'If-Range', 'If-Match', 'If-None-Match', 'If-Modified-Since', 'If-Unmodified-Since']) out.delete(name);
  return out;
}

/** `headers` with a Range of bytes [from, to) (to the end where `to` is undefined). */
export function withRange(headers: Headers, from: number, to: number | undefined): Headers {
  const out = new Headers(headers);
  out.set('Range', `bytes=${from}-${to === undefined ? '' : to - 1}`);
  return out;
}

/**
 * A 206's Content-Range, where it can be read (a cross-origin response
 * hides it unless the server exposes it), must name the range asked for,
 * from `first` to `end` (exclusive; Infinity: to the content's end), and
 * the content's `size` where known.
 */
export function checkContentRange(response: Response, first: number, end: number, size: number | undefined): void {
  const header = response.headers.get('Content-Range');
  if (header === null) return;
  const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header.trim());
  if (range !== null && Number(range[1]) === first) {
    const last = Number(range[2]);
    const total = range[3] === '*' ? undefined : Number(range[3]);
    // Unknown size: a range to the end must end where the total says.
    const sizeOk = size === undefined ? total === undefined || total === last + 1 : total === undefined || total === size;
    if ((Number.isFinite(end) ? last === end - 1 : last >= first) && sizeOk) return;
  }
  response.body?.cancel().catch(() => {});
  throw new BaoVerifyError(
    `the server answered bytes ${first}-${Number.isFinite(end) ? end - 1 : ''} of ${size ?? 'the content'} with Content-Range ${JSON.stringify(header.slice(0, 100))}`,
    first,
  );
}
