// One content a verified fetch answers for: where it is, its tree (loaded
// once), and its size, proven once. A Service Worker keeps one per content
// it serves, so that a media element's many range requests share them.
//
// The size: a bao-tree outboard does not carry it, and the bao crate's
// header only claims it; a lie within the last group would go unnoticed
// until that group is read, and a response's Content-Length and
// Content-Range state it before then. So before any response is made, the
// last group (at most 2^chunkLog KiB) is fetched with its own Range
// request and verified with the parents above it: its length is the size.

import { abortable } from '../../promises.js';
import { BaoVerifyError } from '../bao/decode.js';
import { checkStatus } from '../bao/fetch.js';
import { BodyReader } from './body.js';
import { checkContentRange, withRange } from './http.js';
import { loadTree, type Tree, type TreeSpec } from './outboard.js';
import { SharedTask } from './shared-task.js';
import { MemorySource } from './source.js';
import { verifiedRange } from './verify.js';

/** How long a group that failed verification is answered with 502 without
 * being fetched again. Chromium retries a media range request whose body
 * fails, about once a second, 30 times (31 s to its MEDIA_ERR_NETWORK in
 * test/node/verified-media.test.ts); an HTTP error it does not retry. */
const BAD_FOR_MS = 10_000;

export class VerifiedContent {
  readonly #tree: SharedTask<Tree>;
  readonly #size: SharedTask<number>;
  /** Groups that did not verify, by offset: when. */
  readonly #bad = new Map<number, number>();
  /** The fetch to use for this content's requests. */
  readonly fetch: typeof fetch;

  constructor(
    readonly spec: TreeSpec,
    /** The content (or, without an outboard, the combined encoding). */
    readonly url: string | URL,
    get: typeof fetch,
    /** Sent with every request for the content and its outboard. */
    readonly headers: Headers,
    /** Whether the body's pieces may be moved into our memory rather than
     * copied: only the platform's own fetch, which makes a fresh buffer per
     * piece; a caller's fetch may hand out memory it still uses. */
    readonly transfer: boolean,
  ) {
    // Called as a plain function: a browser's fetch called as a method of
    // another object throws "Illegal invocation".
    this.fetch = (input, init) => get(input, init);
    this.#tree = new SharedTask((signal) => loadTree(spec, get, signal));
    this.#size = new SharedTask(async (signal) => proveSize(await this.#tree.get(signal), url, get, headers, signal));
  }

  /** Whether the content URL serves the bao crate's combined encoding. */
  get combined(): boolean {
    return this.spec.source === undefined;
  }

  /** Bytes of outboard held, once loaded. */
  get heldBytes(): number {
    return this.#tree.done?.parents.length ?? 0;
  }

  /** Notes that the group (or subtree) at `offset` did not verify. */
  markBad(offset: number): void {
    this.#bad.set(offset, Date.now());
  }

  /** How long ago the group at `offset` failed verification, if it did
   * within BAD_FOR_MS. */
  badSince(offset: number): number | undefined {
    const when = this.#bad.get(offset);
    if (when === undefined) return undefined;
    const age = Date.now() - when;
    if (age < BAD_FOR_MS) return age;
    this.#bad.delete(offset);
    return undefined;
  }

  tree(signal: AbortSignal | undefined): Promise<Tree> {
    return this.#tree.get(signal);
  }

  /** The content's length, proven by its last group. */
  size(signal: AbortSignal | undefined): Promise<number> {
    return this.#size.get(signal);
  }
}

/** Fetches and verifies the last group of the content at `url`; resolves
 * to the content's length, which that group proves. */
async function proveSize(tree: Tree, url: string | URL, get: typeof fetch, headers: Headers, signal: AbortSignal): Promise<number> {
  const group = tree.block.bytes;
  const lastStart = (tree.leaves - 1) * group;
  const ranged = lastStart > 0;
  const response = await abortable(get(url, { headers: ranged ? withRange(headers, lastStart, undefined) : headers, signal }), signal);
  checkStatus(response, 'content');
  if (response.status === 206) checkContentRange(response, lastStart, Number.POSITIVE_INFINITY, undefined);
  const body = new BodyReader(response, signal);
  try {
    // A server that ignores Range sends it all: the bytes before the last
    // group are read and dropped.
    if (response.status !== 206 && lastStart > 0 && (await body.skip(lastStart)) < lastStart) {
      throw new BaoVerifyError(`the content ends before byte ${lastStart}, where the last group of its outboard starts`, lastStart);
    }
    const last = new Uint8Array(group + 1);
    const got = await body.fill(last);
    if (got > group || !(await body.ended())) {
      throw new BaoVerifyError(`the content goes on past byte ${lastStart + group}, where its outboard ends`, lastStart);
    }
    if (got === 0 && ranged) throw new BaoVerifyError(`the content ends at byte ${lastStart}, before the last group of its outboard`, lastStart);
    const size = lastStart + got;
    if (tree.claimed !== undefined && tree.claimed !== size) {
      throw new BaoVerifyError(`the content is ${size} bytes, not the ${tree.claimed} declared for it`, lastStart);
    }
    const span = { from: lastStart, to: size, start: size, end: size };
    for await (const _ of verifiedRange(tree, size, new MemorySource(last.subarray(0, got), lastStart, span), span)) {
      // Nothing is passed on: the walk checks the group and the parents above it.
    }
    return size;
  } finally {
    body.release();
  }
}
