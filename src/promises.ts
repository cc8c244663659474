// Two ways the parallel code keeps every promise settled and observed.

/** `promise`, or the signal's reason as soon as it aborts. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Marks a read started ahead as handled: it may fail (a file truncated, a
 * Blob whose file changed) while the call waits on workers and before it
 * awaits the read, which then still throws; or never be awaited at all if
 * the call fails first. Either way the failure must not surface as an
 * unhandled rejection, which ends a Node process. */
export function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}
