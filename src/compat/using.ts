// blake3-wasm's disposal helpers and output bounds.

/** Something with resources to free; dispose() may be called more than once. */
export interface IDisposable {
  dispose(): void;
}

/** The most output BLAKE3 gives: 2^64 - 1 bytes. */
export const maxHashBytes = 2n ** 64n - 1n;

const isPromiseLike = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';

/** Calls `fn(disposable)` and disposes of it once the call (or the promise
 * it returns) has settled. */
export function using<T, D extends IDisposable>(disposable: D, fn: (d: D) => T): T {
  let result: T;
  try {
    result = fn(disposable);
  } catch (error) {
    disposable.dispose();
    throw error;
  }
  if (!isPromiseLike(result)) {
    disposable.dispose();
    return result;
  }
  return result.then(
    (value) => {
      disposable.dispose();
      return value;
    },
    (error: unknown) => {
      disposable.dispose();
      throw error;
    },
  ) as T;
}
