// Verified byte ranges over HTTP: the content from any server or cache (an
// untrusted one), its Bao outboard, and the hash the caller trusts. Only the
// chunks a range needs are fetched, with a Range request, and nothing is
// returned before they are verified. Plain fetch: browsers, Node, Deno, workers.

import { checkOptions, toBytes } from '../input.js';
import { BaoVerifyError, checkHash, readHeader } from './decode.js';
import { baoDecodeSlice, checkRange, sliceChunks, sliceOf } from './slice.js';
import { blockLength, HEADER_LEN, parentsLength } from './tree.js';

export interface BaoFetchOptions {
  /** The content's Bao outboard: its bytes, or a URL to fetch it from. */
  outboard: ArrayBufferView | ArrayBufferLike | string | URL;
  /** First byte wanted; 0 by default. */
  start?: number;
  /** Bytes wanted; to the end by default. Fewer come back at the end. */
  length?: number;
  /** Cancels the requests. */
  signal?: AbortSignal;
  /** The fetch to use (a wrapper adding credentials, say); the global one by default. */
  fetch?: typeof fetch;
}

/** Bytes [start, start + length) of the content at `url`, verified against
 * `hash` with its outboard. Rejects with BaoVerifyError if the server's
 * bytes (or the outboard) do not match. */
export async function baoFetchRange(url: string | URL, hash: ArrayBufferView | ArrayBufferLike, options: BaoFetchOptions): Promise<Uint8Array> {
  checkOptions(options, 'options');
  const root = checkHash(hash).slice();
  const get = options.fetch ?? fetch;
  const { signal } = options;
  const outboard =
    typeof options.outboard === 'string' || options.outboard instanceof URL
      ? await body(await get(options.outboard, { signal }), 'outboard')
      : toBytes(options.outboard, 'options.outboard');
  const total = readHeader(outboard, 'outboard');
  if (outboard.length !== HEADER_LEN + parentsLength(total, blockLength(0)))
    throw new BaoVerifyError('outboard does not agree with its length header');
  const start = options.start ?? 0;
  const length = options.length ?? Math.max(0, total - start);
  checkRange(start, length);
  const { first, end } = sliceChunks(total, start, length);
  let fetched: Uint8Array = new Uint8Array(0);
  if (end > first) {
    const response = await get(url, { signal, headers: { Range: `bytes=${first}-${end - 1}` } });
    const bytes = await body(response, 'content');
    // A server that ignores Range sends it all (200); any other size is wrong.
    fetched = response.status === 200 && bytes.length === total ? bytes.subarray(first, end) : bytes;
    if (fetched.length !== end - first)
      throw new BaoVerifyError(`the server sent ${fetched.length} bytes for ${end - first} wanted from byte ${first}`, first);
  }
  const slice = sliceOf(outboard, (offset, size) => fetched.subarray(offset - first, offset - first + size), start, length);
  return baoDecodeSlice(slice, root, start, length);
}

async function body(response: Response, what: string): Promise<Uint8Array> {
  if (!response.ok) throw new Error(`blake3-kit: fetching the ${what} failed: HTTP ${response.status} ${response.statusText}`);
  return new Uint8Array(await response.arrayBuffer());
}
