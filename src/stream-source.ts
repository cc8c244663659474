// Reading the sources hashStream and the Bao streams take (web
// ReadableStream, a fetch Response's body, Node Readable or any async
// iterable of bytes or strings), for every path. Every read of ours goes
// through pullFrom, which lets the event loop run every few milliseconds:
// a source whose next piece is always ready (an endless run of empty
// pieces) would otherwise be read in microtasks alone, and no timer, I/O
// or cancel() would ever run.

import { inputBytes } from './input.js';

export type StreamSource = AsyncIterable<Uint8Array | string> | ReadableStream<Uint8Array> | BodySource;

/** A fetch `Response` (or `Request`): its body is read. Structural, so the
 * types need no DOM or Node lib for it. */
export interface BodySource {
  readonly body: ReadableStream<Uint8Array> | null;
  readonly bodyUsed: boolean;
}
/** What a reader sees: `next()` only, so abort handling stays here. */
export interface SourceIterator {
  next(): Promise<IteratorResult<Uint8Array | string>>;
}

/** A chunk's bytes: strings as UTF-8, views without a copy. */
export function chunkBytes(value: Uint8Array | string): Uint8Array {
  return inputBytes(value, 'chunk');
}

/** How long a read loop may run before it lets timers and I/O run. */
const YIELD_MS = 10;
export const nextMacrotask = (): Promise<void> =>
  new Promise((resolve) => (typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0)));

export interface Pull {
  next(): Promise<IteratorResult<Uint8Array | string>>;
  /** Releases the source; may never settle if a pull is pending. */
  release(reason?: unknown): Promise<unknown> | undefined;
}

/** A web ReadableStream is read with its own reader, whose cancel() ends a
 * pending read at once; its async iterator's return() would wait for it. */
export function pullFrom(source: unknown): Pull | undefined {
  const pull = rawPull(source);
  return pull === undefined ? undefined : yielding(pull);
}

/** `pull`, giving the event loop a turn before a read when it last had one
 * YIELD_MS ago or more. */
function yielding(pull: Pull): Pull {
  let lastYield = Date.now();
  return {
    async next() {
      if (Date.now() - lastYield >= YIELD_MS) {
        await nextMacrotask();
        lastYield = Date.now();
      }
      return pull.next();
    },
    release: (reason) => pull.release(reason),
  };
}

function rawPull(source: unknown): Pull | undefined {
  if (source === null || typeof source !== 'object') return undefined;
  if ('bodyUsed' in source && 'body' in source) {
    const { body, bodyUsed } = source as BodySource;
    if (bodyUsed) throw new TypeError('blake3-kit: source is a Response whose body was already read');
    // No body (a 204, a HEAD): no bytes.
    return body === null ? { next: async () => ({ value: undefined, done: true }), release: () => undefined } : rawPull(body);
  }
  const stream = source as Partial<ReadableStream<Uint8Array>>;
  if (typeof stream.getReader === 'function' && typeof stream.cancel === 'function') {
    const reader = stream.getReader();
    return { next: () => reader.read() as Promise<IteratorResult<Uint8Array>>, release: (reason) => reader.cancel(reason) };
  }
  const iterable = source as Partial<AsyncIterable<Uint8Array | string>>;
  if (typeof iterable[Symbol.asyncIterator] !== 'function') return undefined;
  const iterator = iterable[Symbol.asyncIterator]!();
  // A Node Readable's iterator is an async generator: its return() waits for
  // a pending read to end, which may be never. destroy() ends both now.
  const readable = source as { pipe?: unknown; on?: unknown; destroy?: unknown };
  const destroy = typeof readable.pipe === 'function' && typeof readable.on === 'function' ? readable.destroy : undefined;
  return {
    next: () => iterator.next(),
    release: () => {
      if (typeof destroy === 'function') destroy.call(source);
      return iterator.return?.();
    },
  };
}

/**
 * Checks `source` and runs `read` on it. An abort of `signal` rejects a
 * pending `next()` at once with the signal's reason, even when the source
 * never answers, and the source is released however `read` ends.
 */
export async function readSource<T>(source: unknown, signal: AbortSignal | undefined, read: (iterator: SourceIterator) => Promise<T>): Promise<T> {
  signal?.throwIfAborted();
  const pull = pullFrom(source);
  if (pull === undefined) {
    throw new TypeError('blake3-kit: source must be a ReadableStream, Response, Readable or async iterable of bytes');
  }
  let pending = false;
  let onAbort: (() => void) | undefined;
  const aborted =
    signal &&
    new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  aborted?.catch(() => {}); // observed through the races below, or not at all
  const iterator: SourceIterator = {
    async next() {
      signal?.throwIfAborted(); // before a read starts that could never end
      // The event loop's turn (pullFrom's) lies inside the read, so an
      // abort during it wins the race below.
      pending = true;
      const step = Promise.resolve()
        .then(() => pull.next())
        .finally(() => (pending = false));
      if (!aborted) return step;
      step.catch(() => {}); // a read that loses the race may fail later
      return Promise.race([step, aborted]);
    },
  };
  try {
    return await read(iterator);
  } finally {
    if (onAbort) signal!.removeEventListener('abort', onAbort);
    // A source still answering a read may never let go: release it, but
    // don't wait for it then.
    let released: Promise<unknown> | undefined;
    try {
      released = Promise.resolve(pull.release(signal?.aborted ? signal.reason : undefined)).catch(() => {});
    } catch {} // a release that throws has released all it can
    if (!pending) await released;
  }
}
