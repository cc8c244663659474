import type { HashOptions } from '../input.js';

/** Options of the asynchronous Node helpers: a mode and output length as for
 * `hash()`, plus cancellation and progress. */
export interface AsyncHashOptions extends HashOptions {
  /** Rejects with the signal's reason, releasing the file or stream. */
  signal?: AbortSignal;
  /** Called as bytes are hashed; `total` is known for files. */
  onProgress?: (bytesDone: number, total?: number) => void;
}

export function checkAsyncOptions(options: AsyncHashOptions | undefined): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('blake3-kit: options must be an object');
  }
  const { signal, onProgress } = options;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError('blake3-kit: options.signal must be an AbortSignal');
  }
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new TypeError('blake3-kit: options.onProgress must be a function');
  }
}
