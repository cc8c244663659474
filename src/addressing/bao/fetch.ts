// Verified byte ranges over HTTP: the content from any server or cache (an
// untrusted one), its Bao outboard, and the hash the caller trusts. Only the
// chunks a range needs are fetched, with a Range request, and nothing is
// returned before they are verified. Plain fetch: browsers, Node, Deno, workers.
//
// The server decides what it sends, so bodies are read piece by piece and
// never past what the request needs: an endless body or a compression bomb
// (fetch inflates gzip as it reads) is cancelled as soon as it sends more.

import { checkOptions, checkSignal, toBytes } from '../../input.js';
import { abortable } from '../../promises.js';
import { chunkBytes, readSource, type SourceIterator } from '../../stream-source.js';
import { BaoVerifyError, checkHash, readHeader } from './decode.js';
import { baoDecodeSlice, checkRange, sliceChunks, sliceOf } from './slice.js';
import { HEADER_LEN } from './nodes.js';
import { CHUNK_LEAVES } from '../../tree/geometry.js';

/** The largest outboard fetched by URL unless options.maxOutboardBytes says
 * otherwise: 64 MiB, the outboard of 1 GiB of content. */
export const MAX_OUTBOARD_BYTES = 64 * 1024 * 1024;

export interface BaoFetchOptions {
  /** The content's Bao outboard: its bytes, or a URL to fetch it from. */
  outboard: ArrayBufferView | ArrayBufferLike | string | URL;
  /** First byte wanted; 0 by default. */
  start?: number;
  /** Bytes wanted; to the end by default. Fewer come back at the end. */
  length?: number;
  /** Cancels the requests. A server that stops sending is waited for until
   * it aborts: pass `AbortSignal.timeout(ms)` to bound the wait. */
  signal?: AbortSignal;
  /** The fetch to use (a wrapper adding credentials, say); the global one by default. */
  fetch?: typeof fetch;
  /** The largest outboard accepted from a URL, in bytes: 64 MiB by default,
   * the outboard of 1 GiB of content (64 bytes per 1 KiB chunk). One whose
   * header declares more is refused (RangeError) before its body is read. */
  maxOutboardBytes?: number;
}

/**
 * Bytes [start, start + length) of the content at `url`, verified against
 * `hash` with its outboard. Rejects with BaoVerifyError if the server's
 * bytes (or the outboard) do not match, or the server answers with other
 * bytes than asked: a Content-Range naming another range, a body shorter or
 * longer than the range. At most the asked range is read from the content
 * (from byte 0 to its end where the server ignores Range and sends
 * everything), and at most the size its header declares from an outboard
 * URL; the rest of a body is cancelled unread.
 */
export async function baoFetchRange(url: string | URL, hash: ArrayBufferView | ArrayBufferLike, options: BaoFetchOptions): Promise<Uint8Array> {
  checkOptions(options, 'options');
  const root = checkHash(hash); // a copy of its own
  const { signal } = options;
  checkSignal(signal, 'options.signal');
  const get = options.fetch ?? fetch;
  if (typeof get !== 'function') throw new TypeError('blake3-kit: options.fetch must be a function');
  const maxOutboard = options.maxOutboardBytes ?? MAX_OUTBOARD_BYTES;
  if (typeof maxOutboard !== 'number') throw new TypeError('blake3-kit: options.maxOutboardBytes must be a number');
  if (!Number.isSafeInteger(maxOutboard) || maxOutboard < 0)
    throw new RangeError(`blake3-kit: options.maxOutboardBytes must be a non-negative safe integer; got ${maxOutboard}`);
  const outboard =
    typeof options.outboard === 'string' || options.outboard instanceof URL
      ? await fetchOutboard(get, options.outboard, signal, maxOutboard)
      : toBytes(options.outboard, 'options.outboard');
  const total = readHeader(outboard, 'outboard');
  if (outboard.length !== HEADER_LEN + CHUNK_LEAVES.parentsLength(total)) throw new BaoVerifyError('outboard does not agree with its length header');
  const start = options.start ?? 0;
  const length = options.length ?? Math.max(0, total - start);
  checkRange(start, length);
  const { first, end } = sliceChunks(total, start, length);
  const fetched = end > first ? await fetchContent(get, url, signal, first, end, total) : new Uint8Array(0);
  const slice = sliceOf(outboard, (offset, size) => fetched.subarray(offset - first, offset - first + size), start, length);
  return baoDecodeSlice(slice, root, start, length);
}

/** Content bytes [first, end) of `total`, from a server that may honour the
 * Range request (206) or ignore it (200, everything from byte 0). */
async function fetchContent(
  get: typeof fetch,
  url: string | URL,
  signal: AbortSignal | undefined,
  first: number,
  end: number,
  total: number,
): Promise<Uint8Array> {
  const response = await abortable(get(url, { signal, headers: { Range: `bytes=${first}-${end - 1}` } }), signal);
  checkStatus(response, 'content');
  const ranged = response.status === 206;
  if (ranged) checkContentRange(response, first, end, total);
  const wanted = new Uint8Array(end - first);
  return readSource(response, signal, async (iterator) => {
    const body = bodyReader(iterator);
    // Ignored Range: the bytes before `first` are passed over, and those
    // after `end` never read.
    const got = await body.fill(wanted, ranged ? 0 : first);
    if (got < wanted.length) throw new BaoVerifyError(`the server sent ${got} bytes for ${wanted.length} wanted from byte ${first}`, first);
    if (ranged && !(await body.ended()))
      throw new BaoVerifyError(`the server sent more than the ${wanted.length} bytes wanted from byte ${first}`, first);
    return wanted;
  });
}

/** An outboard from a URL: its header first, then exactly the parents the
 * header's length calls for, if they fit `max` bytes. */
export async function fetchOutboard(get: typeof fetch, url: string | URL, signal: AbortSignal | undefined, max: number): Promise<Uint8Array> {
  const response = await abortable(get(url, { signal }), signal);
  checkStatus(response, 'outboard');
  return readSource(response, signal, async (iterator) => {
    const body = bodyReader(iterator);
    const header = new Uint8Array(HEADER_LEN);
    const total = readHeader(header.subarray(0, await body.fill(header)), 'outboard');
    const size = HEADER_LEN + CHUNK_LEAVES.parentsLength(total);
    if (size > max) {
      throw new RangeError(
        `blake3-kit: the outboard declares ${total} bytes of content, whose outboard (${size} bytes) is over options.maxOutboardBytes (${max})`,
      );
    }
    const outboard = new Uint8Array(size);
    outboard.set(header);
    const got = await body.fill(outboard.subarray(HEADER_LEN));
    if (got < size - HEADER_LEN || !(await body.ended())) throw new BaoVerifyError('outboard does not agree with its length header');
    return outboard;
  });
}

export function checkStatus(response: Response, what: string): void {
  if (response.ok) return;
  // An error page's body is not ours to read: let the connection go.
  response.body?.cancel().catch(() => {});
  throw new Error(`blake3-kit: fetching the ${what} failed: HTTP ${response.status} ${response.statusText}`);
}

/** A 206's Content-Range, where it can be read (a cross-origin response
 * hides it unless the server exposes it), must name the range asked for and
 * the outboard's content length. */
function checkContentRange(response: Response, first: number, end: number, total: number): void {
  const header = response.headers.get('Content-Range');
  if (header === null) return;
  const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header.trim());
  if (range && Number(range[1]) === first && Number(range[2]) === end - 1 && (range[3] === '*' || Number(range[3]) === total)) return;
  response.body?.cancel().catch(() => {});
  throw new BaoVerifyError(
    `the server answered bytes ${first}-${end - 1} of ${total} with Content-Range ${JSON.stringify(header.slice(0, 100))}`,
    first,
  );
}

/** A body's bytes on demand: each piece held only until it is copied out. */
function bodyReader(iterator: SourceIterator) {
  let piece: Uint8Array = new Uint8Array(0);
  let at = 0;
  /** The next unread bytes, or false at the end of the body. */
  const more = async (): Promise<boolean> => {
    while (at === piece.length) {
      const step = await iterator.next();
      if (step.done) return false;
      piece = chunkBytes(step.value);
      at = 0;
    }
    return true;
  };
  return {
    /** Fills `into` after passing over `skip` bytes; resolves to the bytes
     * filled, fewer where the body ends first. */
    async fill(into: Uint8Array, skip = 0): Promise<number> {
      let filled = 0;
      while (filled < into.length && (await more())) {
        const passed = Math.min(skip, piece.length - at);
        skip -= passed;
        at += passed;
        const n = Math.min(into.length - filled, piece.length - at);
        into.set(piece.subarray(at, at + n), filled);
        filled += n;
        at += n;
      }
      return filled;
    },
    /** Whether the body ends here (reads one more piece to see). */
    async ended(): Promise<boolean> {
      return !(await more());
    },
  };
}
