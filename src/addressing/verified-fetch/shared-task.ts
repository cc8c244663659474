// One task for many waiters: a content's outboard, or the proof of its
// size, fetched once for every response that needs it (a media element's
// range requests overlap). Each waiter stops waiting when its own signal
// aborts; the task itself is aborted only when the last waiter has gone,
// so a stalled server cannot keep it, and whoever comes next starts it
// again. A failure is not kept either: the next waiter tries again.

import { abortable } from '../../promises.js';

export class SharedTask<T> {
  readonly #run: (signal: AbortSignal) => Promise<T>;
  #value: { value: T } | undefined;
  #task: { promise: Promise<T>; controller: AbortController; waiters: number } | undefined;

  constructor(run: (signal: AbortSignal) => Promise<T>) {
    this.#run = run;
  }

  /** The value, once the task has succeeded. */
  get done(): T | undefined {
    return this.#value?.value;
  }

  /** The task's value: run now, joined where it runs, or kept from before. */
  async get(signal: AbortSignal | undefined): Promise<T> {
    if (this.#value !== undefined) return this.#value.value;
    signal?.throwIfAborted();
    const task = (this.#task ??= this.#start());
    task.waiters++;
    try {
      return await abortable(task.promise, signal);
    } finally {
      if (--task.waiters === 0 && this.#task === task) {
        this.#task = undefined;
        if (this.#value === undefined) task.controller.abort();
      }
    }
  }

  #start(): { promise: Promise<T>; controller: AbortController; waiters: number } {
    const controller = new AbortController();
    const promise = Promise.resolve()
      .then(() => this.#run(controller.signal))
      .then((value) => {
        this.#value = { value };
        return value;
      });
    promise.catch(() => {}); // each waiter sees it through abortable
    const task = { promise, controller, waiters: 0 };
    // A failed task is forgotten as soon as it fails.
    promise.catch(() => {
      if (this.#task === task) this.#task = undefined;
    });
    return task;
  }
}
