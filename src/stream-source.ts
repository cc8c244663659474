// Reading the sources hashStream takes (web ReadableStream, Node Readable or
// any async iterable of bytes or strings), for the worker and native paths.

import { toBytes } from './input.js';

export type StreamSource = AsyncIterable<Uint8Array | string> | ReadableStream<Uint8Array>;
export type SourceIterator = AsyncIterator<Uint8Array | string>;

const encoder = new TextEncoder();

/** A chunk's bytes: strings as UTF-8, views without a copy. */
export function chunkBytes(value: Uint8Array | string): Uint8Array {
  return typeof value === 'string' ? encoder.encode(value) : toBytes(value, 'chunk');
}

/** Checks `source` and runs `read` on its iterator. An abort of `signal`
 * stops the stream, and the stream is released however `read` ends. */
export async function readSource<T>(source: unknown, signal: AbortSignal | undefined, read: (iterator: SourceIterator) => Promise<T>): Promise<T> {
  const iterable = source as Partial<AsyncIterable<unknown>>;
  if (source === null || typeof source !== 'object' || typeof iterable[Symbol.asyncIterator] !== 'function') {
    throw new TypeError('blake3-kit: source must be a ReadableStream, Readable or async iterable of bytes');
  }
  signal?.throwIfAborted();
  const iterator = (source as AsyncIterable<Uint8Array | string>)[Symbol.asyncIterator]();
  const onAbort = () => void iterator.return?.();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await read(iterator);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await iterator.return?.();
  }
}
