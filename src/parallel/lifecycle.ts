// The worker pool's life: started on the first call that needs it, with the
// settings of that moment; retired when the settings change or the workers
// are terminated, after the calls using it end.

import { loadedModule } from '../wasm/load.js';
import { dropPieceBuffers } from './buffers.js';
import { WorkerPool, type SpawnWorker } from './pool.js';
import { DEFAULT_SETTINGS, jobDeadline, mergeSettings, type ParallelSettings, type Settings } from './settings.js';

export interface ParallelPlatform {
  spawn: SpawnWorker | undefined;
  workerUrl: () => URL;
  concurrency: () => number;
  /** Whether SharedArrayBuffer can be posted to workers here. */
  sharedMemory: () => boolean;
}

export class PoolLifecycle {
  readonly #platform: ParallelPlatform;
  #settings = DEFAULT_SETTINGS;
  #pool: WorkerPool | undefined;

  constructor(platform: ParallelPlatform) {
    this.#platform = platform;
  }

  get settings(): Settings {
    return this.#settings;
  }

  /** The pool, started if need be; undefined where no workers can run
   * (no Worker here, no module loaded, or the pool gave up on workers). */
  pool(): WorkerPool | undefined {
    const module = loadedModule();
    const platform = this.#platform;
    if (!platform.spawn || !module) return undefined;
    const settings = this.#settings;
    this.#pool ??= new WorkerPool(platform.spawn, module, settings.workerUrl ?? platform.workerUrl(), this.#size(), jobDeadline(settings));
    return this.#pool.broken ? undefined : this.#pool;
  }

  /** The pool for an input of `total` bytes: none at or below the threshold. */
  poolFor(total: number): WorkerPool | undefined {
    return total > this.#settings.threshold ? this.pool() : undefined;
  }

  /** Whether copied pieces go in shared memory. */
  copyShared(): boolean {
    return this.#settings.transport === 'shared' && this.#platform.sharedMemory();
  }

  /** Sets pool size, threshold or worker URL for the calls that start after
   * it; calls in flight finish on the workers they began with. */
  configure(next: ParallelSettings): void {
    this.#settings = mergeSettings(this.#settings, next);
    this.terminate();
  }

  /** Stops the workers once the calls using them end (at once if none
   * does); the next parallel hash starts new ones. */
  terminate(): void {
    this.#pool?.retire();
    this.#pool = undefined;
    dropPieceBuffers();
  }

  /** What the current pool has done: workers started and lost, jobs done by
   * workers and on this thread after a loss, and why workers were given up
   * on, if they were. */
  status() {
    const pool = this.#pool;
    return { workers: pool?.size ?? 0, ...(pool?.stats ?? { started: 0, lost: 0, jobs: 0, fallbacks: 0 }), broken: pool?.broken?.message };
  }

  #size(): number {
    const { workers } = this.#settings;
    return workers > 0 ? workers : Math.max(1, this.#platform.concurrency());
  }
}
