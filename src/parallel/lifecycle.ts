// The worker pool's life: started on the first call that needs it, with the
// settings of that moment; retired when the settings change or the workers
// are terminated, after the calls using it end.

import { loadedModule } from '../wasm/workers.js';
import { dropPieceBuffers } from './buffers.js';
import { WARM_UP_BYTES, WorkerPool, type SpawnWorker, type WorkerHandle } from './pool.js';
import { DEFAULT_SETTINGS, jobDeadline, mergeSettings, type ParallelSettings, type Settings } from './settings.js';

export interface ParallelPlatform {
  /** Undefined where no workers exist (a browser without Worker). */
  spawn: SpawnWorker | undefined;
  concurrency: () => number;
  /** Whether SharedArrayBuffer can be posted to workers here. */
  sharedMemory: () => boolean;
  /** Whether workers read Blob slices themselves. Not in Node: a worker
   * reading a file-backed Blob (fs.openAsBlob) posted to it aborts the
   * process in Node 20 (FATAL ERROR: HandleScope::CreateHandle). */
  workersReadBlobs: boolean;
}

export class PoolLifecycle {
  readonly #platform: ParallelPlatform;
  #settings = DEFAULT_SETTINGS;
  #pool: WorkerPool | undefined;
  #poolModule: WebAssembly.Module | undefined;
  #warnedNoWorkers = false;

  constructor(platform: ParallelPlatform) {
    this.#platform = platform;
  }

  get workersReadBlobs(): boolean {
    return this.#platform.workersReadBlobs;
  }

  get settings(): Settings {
    return this.#settings;
  }

  /** The pool, started if need be; undefined where no workers can run
   * (no Worker here, no module loaded, or the pool gave up on workers). */
  pool(): WorkerPool | undefined {
    const module = loadedModule();
    const { spawn } = this.#platform;
    if (!module) return undefined;
    // init() from blake3-kit/bao replaced the module: new workers get the
    // new one (calls in flight finish on the old, whose answers are the same).
    if (this.#poolModule !== module) this.terminate();
    this.#poolModule = module;
    if (!spawn) {
      if (!this.#warnedNoWorkers) console.warn(NO_WORKERS);
      this.#warnedNoWorkers = true;
      return undefined;
    }
    const settings = this.#settings;
    this.#pool ??= new WorkerPool(failingLater(spawn), module, settings.workerUrl, this.#size(), jobDeadline(settings), settings.helpWhileStarting);
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

  /** Starts the pool now, and resolves once each worker has hashed a
   * small warm-up piece (its first job runs baseline-tier code): a page
   * that will hash a file can start its workers while the user picks it.
   * Resolves too where no workers run (parallelStatus() says why). */
  async start(): Promise<void> {
    const pool = this.pool();
    if (!pool) return;
    const warmUp = () =>
      pool.run({ mode: 0, key: undefined, offset: 0, bytes: new Uint8Array(WARM_UP_BYTES), transfer: true, fallback: undefined }).catch(() => {});
    await Promise.all(Array.from({ length: pool.size }, warmUp));
  }

  /** Stops the workers once the calls using them end (at once if none
   * does); the next parallel hash starts new ones. */
  terminate(): void {
    this.#pool?.retire();
    this.#pool = undefined;
    dropPieceBuffers();
  }

  /** What the current pool has done: workers started and lost, jobs done by
   * workers, on this thread after a loss and on this thread while workers
   * started, and why workers were given up on, if they were. */
  status() {
    const pool = this.#pool;
    const broken = this.#platform.spawn ? pool?.broken?.message : NO_WORKERS;
    return {
      workers: pool?.size ?? 0,
      ...(pool?.stats ?? { started: 0, lost: 0, jobs: 0, fallbacks: 0, whileStarting: 0, stalledReads: 0 }),
      broken,
    };
  }

  #size(): number {
    const { workers } = this.#settings;
    return workers > 0 ? workers : Math.max(1, this.#platform.concurrency());
  }
}

const NO_WORKERS = 'blake3-kit: Worker is not available here; hashing on this thread instead';

/** A worker that can't even be constructed (a bad URL, a policy that throws
 * at once) fails like one whose script doesn't load: reported after the
 * pool has taken it in, and counted towards giving up, instead of a throw
 * out of the middle of dispatching jobs. */
function failingLater(spawn: SpawnWorker): SpawnWorker {
  return (url, onMessage, onFailure) => {
    try {
      return spawn(url, onMessage, onFailure);
    } catch (error) {
      queueMicrotask(() => onFailure(error instanceof Error ? error : new Error(String(error))));
      return NOT_STARTED;
    }
  };
}

const NOT_STARTED: WorkerHandle = { post: () => {}, terminate: () => {} };
