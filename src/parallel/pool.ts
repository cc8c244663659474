// One pool of hashing workers per page or process, started lazily. Each
// ready worker has at most MAX_IN_FLIGHT jobs, so the next job is already
// queued in the worker when it finishes one. Jobs wait here, not in workers
// still starting: until a worker has finished its first job, this thread
// hashes them, one per macrotask (helpWhileStarting), and a new worker gets
// a small warm-up piece of the pool's own, not a caller's, so no piece waits
// on baseline-tier code. A first call can also hold the start until it ends
// (acquire). A worker starts in 50-200 ms (script, wasm instance); one
// thread hashes 64 MiB in about 50. A worker that fails to load, throws, exits
// or is terminated is detected at once (its error or exit event): its jobs go
// to their fallback (hashing on the calling thread) or are rejected, and the
// worker is replaced on the next dispatch. After three workers in a row fail
// before ever becoming ready, the pool gives up and reports why. A worker
// whose answer breaks the protocol (a custom `workerUrl` script, say) fails
// its jobs, and the pool gives up on workers: none can be trusted after it.

import { holdProbe, kernelCode, type WasmModule } from '../wasm/workers.js';
import type { Mode } from '../modes.js';
import type { FromWorker, ToWorker } from './protocol.js';
import { CHUNK_LEN, CV_LEN } from '../tree/geometry.js';

const MAX_IN_FLIGHT = 2;
const MAX_SPAWN_FAILURES = 3;
/** Enough for a worker's hashing code to be compiled and run once. */
export const WARM_UP_BYTES = 64 * 1024;

export interface WorkerHandle {
  post(message: ToWorker, transfer?: ArrayBuffer[]): void;
  terminate(): void;
  /** Node: keep the process alive only while jobs are running. */
  ref?(): void;
  unref?(): void;
}

/** Starts a worker running `url`, or the platform's own worker script when
 * `url` is undefined. */
export type SpawnWorker = (
  url: URL | string | undefined,
  onMessage: (message: FromWorker) => void,
  onFailure: (error: Error) => void,
) => WorkerHandle;

export interface JobSpec {
  mode: Mode;
  key: Uint8Array | undefined;
  offset: number;
  /** The piece, or a Blob slice the worker reads. */
  bytes: Uint8Array | Blob;
  /** Ask for every chunk's chaining value, not the piece's. */
  chunks?: boolean;
  /** Move what is posted to the worker (it comes back with the result). */
  transfer: boolean;
  /** What to post instead of `bytes` (the caller's memory): called when a
   * worker takes the job; a throw fails the job. */
  copy?: () => Uint8Array;
  /** Computes the same chaining value on this thread if the worker is lost. */
  fallback: (() => Uint8Array | Promise<Uint8Array>) | undefined;
}

export interface JobResult {
  cv: Uint8Array;
  /** The transferred bytes, returned by the worker for reuse. */
  bytes: Uint8Array | undefined;
}

interface Job extends JobSpec {
  id: number;
  /** The piece's size when posted: moved bytes read as empty here after. */
  length: number;
  timer?: ReturnType<typeof setTimeout>;
  /** The pool's own first job for a new worker, not a caller's. */
  warmUp?: boolean;
  resolve(result: JobResult): void;
  reject(error: Error): void;
}

interface Member {
  handle: WorkerHandle;
  ready: boolean;
  /** Has finished a job: its first runs baseline-tier code, several times
   * slower than this thread's optimised code, so until then it takes one
   * job at a time and this thread keeps helping. */
  proven: boolean;
  jobs: Map<number, Job>;
}

export class WorkerPool {
  readonly #spawn: SpawnWorker;
  readonly #module: WasmModule;
  readonly #url: URL | string | undefined;
  readonly size: number;
  #members: Member[] = [];
  #queue: Job[] = [];
  #nextId = 1;
  #spawnFailures = 0;
  #broken: Error | undefined;
  #terminated = false;
  /** Calls hashing on this pool now, and whether it stops when they end. */
  #users = 0;
  #retired = false;
  /** Calls that keep a pool with no workers from starting any (acquire). */
  #holding = 0;
  #heldOnce = false;
  #releaseProbe: (() => void) | undefined;
  /** Counters for diagnostics and tests: `whileStarting` counts the jobs
   * this thread hashed before any worker was ready, `stalledReads` the Blob
   * slices whose stream a worker gave up on (read-blob.ts). */
  readonly stats = { started: 0, lost: 0, jobs: 0, fallbacks: 0, whileStarting: 0, stalledReads: 0 };
  readonly #helpWhileStarting: boolean;
  #helping = false;

  readonly #jobTimeout: (bytes: number) => number;

  /** `jobTimeout(bytes)`: milliseconds without an answer after which a
   * worker counts as lost. A browser worker that dies silently (it closed
   * itself, or its process crashed) sends no event at all. */
  constructor(
    spawn: SpawnWorker,
    module: WasmModule,
    url: URL | string | undefined,
    size: number,
    jobTimeout: (bytes: number) => number,
    helpWhileStarting = true,
  ) {
    this.#helpWhileStarting = helpWhileStarting;
    this.#spawn = spawn;
    this.#module = module;
    this.#url = url;
    this.size = size;
    this.#jobTimeout = jobTimeout;
  }

  /** Why the pool stopped using workers, if it did. */
  get broken(): Error | undefined {
    return this.#broken;
  }

  run(spec: JobSpec): Promise<JobResult> {
    return new Promise<JobResult>((resolve, reject) => {
      const job: Job = { ...spec, id: this.#nextId++, length: sizeOf(spec.bytes), resolve, reject };
      if (this.#terminated) return reject(new Error('blake3-kit: the worker pool was terminated'));
      if (this.#broken) return this.#fallBack(job, this.#broken);
      this.#queue.push(job);
      this.#dispatch();
    });
  }

  /** Marks a call that will run jobs here until `release(held)`. With
   * `holdStart`, a pool with no workers yet starts none during the call
   * (this thread hashes its jobs) but starts them once it ends; returns
   * whether the call holds the start. */
  acquire(holdStart = false): boolean {
    this.#users++;
    const held = holdStart && this.#helpWhileStarting && this.#members.length === 0 && !this.#heldOnce;
    if (held) {
      // This thread hashes the whole call: no probe slices between its pieces.
      if (this.#holding++ === 0) this.#releaseProbe = holdProbe();
    }
    return held;
  }

  release(held = false): void {
    // Only the first calls hold the start: later ones start workers as they go.
    if (held && --this.#holding === 0) {
      this.#releaseProbe?.();
      this.#heldOnce = true;
      setTimeout(() => this.#startInBackground(), 0);
    }
    if (--this.#users === 0 && this.#retired) this.terminate();
  }

  /** Workers may start now: no call holds the start, or a job waits that
   * only a worker can hash. */
  #mayStart(): boolean {
    return this.#holding === 0 || this.#queue.some((job) => job.fallback === undefined);
  }

  #startInBackground(): void {
    if (this.#terminated || this.#retired || this.#broken) return;
    while (this.#members.length < this.size) this.#add();
    this.#dispatch();
  }

  /** Stops the workers once the calls using them end: settings changed or
   * terminateWorkers() apply to later calls, and calls in flight finish. */
  retire(): void {
    this.#retired = true;
    if (this.#users === 0) this.terminate();
  }

  /** Stops every worker; running jobs reject. The next hash starts a new pool. */
  terminate(): void {
    this.#terminated = true;
    const error = new Error('blake3-kit: the worker pool was terminated');
    for (const member of this.#members) {
      member.handle.terminate();
      for (const job of member.jobs.values()) {
        clearTimeout(job.timer);
        job.reject(error);
      }
    }
    for (const job of this.#queue) job.reject(error);
    this.#members = [];
    this.#queue = [];
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      const member = this.#members.reduce<Member | undefined>(
        (best, m) => (m.ready && m.jobs.size < (m.proven ? MAX_IN_FLIGHT : 1) && (!best || m.jobs.size < best.jobs.size) ? m : best),
        undefined,
      );
      if (!member) break;
      // A worker still warming up takes only what this thread cannot hash.
      const index = member.proven || !this.#helpWhileStarting ? 0 : this.#queue.findIndex((job) => job.fallback === undefined);
      if (index < 0) break;
      this.#post(member, this.#queue.splice(index, 1)[0]!);
    }
    if (this.#queue.length > 0) {
      // One more worker per waiting job, up to the pool's size.
      let starting = this.#members.filter((m) => !m.ready).length;
      for (; this.#members.length < this.size && starting < this.#queue.length && this.#mayStart(); starting++) this.#add();
      if (this.#helpWhileStarting && !this.#members.some((m) => m.proven)) this.#helpSoon();
    }
    // Node: a worker keeps the process alive only while it has a caller's
    // jobs, or while callers' jobs wait in the queue. Not only the workers
    // still starting: a ready worker busy with its own warm-up piece holds
    // the queue up too, and with every worker so (unref'd), a script's
    // `await startWorkers()` exited with code 13, its promise unsettled, in
    // 1 of ~5 runs (Node 20, 2 workers).
    for (const member of this.#members) {
      let callers = this.#queue.length > 0;
      for (const job of member.jobs.values()) callers ||= !job.warmUp;
      if (callers) member.handle.ref?.();
      else member.handle.unref?.();
    }
  }

  #post(member: Member, job: Job): void {
    let bytes: Uint8Array | Blob;
    try {
      bytes = job.copy ? job.copy() : job.bytes;
    } catch (error) {
      job.reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    member.jobs.set(job.id, job);
    const limit = this.#jobTimeout(job.length);
    job.timer = setTimeout(() => this.#onFailure(member, new Error(`no answer within ${limit} ms`)), limit);
    (job.timer as { unref?: () => void }).unref?.();
    const { id, mode, key, offset, transfer } = job;
    member.handle.post(
      { type: 'job', id, code: kernelCode(), mode, key, offset, bytes, chunks: job.chunks === true, returnBytes: transfer },
      transfer ? [(bytes as Uint8Array).buffer as ArrayBuffer] : [],
    );
  }

  /** On the next macrotask, while no worker has finished a job: hashes the
   * first waiting job that can be hashed here (one with a fallback). */
  #helpSoon(): void {
    if (this.#helping) return;
    this.#helping = true;
    nextMacrotask(() => {
      this.#helping = false;
      if (this.#terminated || this.#broken) return;
      if (this.#members.some((m) => m.proven)) return this.#dispatch();
      const index = this.#queue.findIndex((job) => job.fallback !== undefined);
      if (index < 0) return;
      const [job] = this.#queue.splice(index, 1) as [Job];
      this.stats.whileStarting++;
      Promise.resolve()
        .then(job.fallback)
        .then((cv) => job.resolve({ cv, bytes: undefined }), job.reject)
        .finally(() => this.#dispatch());
    });
  }

  /** A new worker's first job: a small piece of the pool's own, which it
   * hashes in baseline-tier code while this thread hashes the callers'. */
  #warmUp(member: Member): void {
    const bytes = new Uint8Array(WARM_UP_BYTES);
    const noop = () => {};
    const job: Job = {
      mode: 0,
      key: undefined,
      offset: 0,
      bytes,
      transfer: true,
      fallback: undefined,
      id: this.#nextId++,
      length: bytes.length,
      warmUp: true,
      resolve: noop,
      reject: noop,
    };
    this.#post(member, job);
  }

  #add(): Member {
    const member: Member = { handle: undefined!, ready: false, proven: false, jobs: new Map() };
    member.handle = this.#spawn(
      this.#url,
      (message) => this.#onMessage(member, message),
      (error) => this.#onFailure(member, error),
    );
    member.handle.post({ type: 'init', module: this.#module });
    this.#members.push(member);
    this.stats.started++;
    return member;
  }

  #onMessage(member: Member, message: FromWorker): void {
    if (!this.#members.includes(member)) return; // a late answer from a worker already given up on
    const problem = malformed(message, member);
    if (problem !== undefined) {
      this.#onMalformed(member, problem);
      return;
    }
    switch (message.type) {
      case 'ready':
        member.ready = true;
        this.#spawnFailures = 0;
        if (this.#helpWhileStarting) this.#warmUp(member);
        this.#dispatch();
        return;
      case 'init-failed':
        this.#onFailure(member, new Error(`blake3-kit: a worker could not load the wasm module: ${message.message}`));
        return;
      case 'done':
      case 'failed': {
        const job = member.jobs.get(message.id)!;
        member.jobs.delete(message.id);
        clearTimeout(job.timer);
        if (message.type === 'done') {
          if (!job.warmUp) this.stats.jobs++;
          if (message.stalled === true) this.stats.stalledReads++;
          member.proven = true;
          job.resolve({ cv: message.cv, bytes: job.transfer ? message.bytes : undefined });
        } else this.#fallBack(job, new Error(`blake3-kit: a worker failed: ${message.message}`));
        this.#dispatch();
      }
    }
  }

  /** A reply that breaks the protocol: the worker's jobs reject with
   * `problem` rather than trusting or recomputing what it said, the worker
   * goes, and the pool stops using workers, since the same script would
   * answer the same way. */
  #onMalformed(member: Member, problem: string): void {
    const error = new Error(`blake3-kit: a worker sent a malformed reply (${problem}); hashing on this thread from now on`);
    for (const job of member.jobs.values()) {
      clearTimeout(job.timer);
      job.reject(error);
    }
    member.jobs.clear();
    this.#giveUp(error);
    this.#onFailure(member, error);
  }

  #onFailure(member: Member, error: Error): void {
    const index = this.#members.indexOf(member);
    if (index < 0) return; // already handled (error and exit both fire)
    this.#members.splice(index, 1);
    member.handle.terminate();
    this.stats.lost++;
    if (!member.ready && ++this.#spawnFailures >= MAX_SPAWN_FAILURES) {
      this.#giveUp(new Error(`blake3-kit: workers keep failing to start; hashing on this thread instead (${error.message})`, { cause: error }));
    }
    const lost = new Error(`blake3-kit: a worker was lost during a job: ${error.message}`, { cause: error });
    for (const job of member.jobs.values()) this.#fallBack(job, lost);
    if (this.#broken) {
      for (const job of this.#queue.splice(0)) this.#fallBack(job, this.#broken);
    } else {
      this.#dispatch();
    }
  }

  /** Stops using workers, and says so once: hashing goes on, correct but on
   * one thread, which nobody would notice otherwise. parallelStatus().broken
   * keeps the reason. */
  #giveUp(error: Error): void {
    if (this.#broken) return;
    this.#broken = error;
    console.warn(error.message);
  }

  #fallBack(job: Job, error: Error): void {
    clearTimeout(job.timer);
    if (!job.fallback) {
      job.reject(error);
      return;
    }
    this.stats.fallbacks++;
    Promise.resolve()
      .then(job.fallback)
      .then((cv) => job.resolve({ cv, bytes: undefined }), job.reject);
  }
}

/** Runs `step` after pending events, without the 4 ms clamp that nested
 * setTimeout calls get in browsers: setImmediate in Node, Bun and Deno, a
 * MessageChannel message elsewhere. */
function nextMacrotask(step: () => void): void {
  if (typeof setImmediate === 'function') {
    setImmediate(step);
    return;
  }
  if (typeof MessageChannel === 'function') {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      step();
    };
    channel.port2.postMessage(undefined);
    return;
  }
  setTimeout(step, 0);
}

/** A piece's size in bytes: a Blob slice's too. */
export function sizeOf(piece: Uint8Array | Blob): number {
  return piece instanceof Uint8Array ? piece.length : piece.size;
}

/** What is wrong with a worker's message, or undefined if nothing is. */
function malformed(message: FromWorker, member: Member): string | undefined {
  if (message === null || typeof message !== 'object') return `expected an object, got ${typeof message}`;
  switch (message.type) {
    case 'ready':
      return member.ready ? "a second 'ready'" : undefined;
    case 'init-failed':
      return undefined;
    case 'done':
    case 'failed': {
      const job = typeof message.id === 'number' ? member.jobs.get(message.id) : undefined;
      if (!job) return `an answer to job ${String(message.id)}, which this worker does not have`;
      if (message.type === 'failed') return undefined;
      const { cv, bytes } = message;
      const expected = job.chunks ? CV_LEN * Math.max(1, Math.ceil(job.length / CHUNK_LEN)) : CV_LEN;
      if (!(cv instanceof Uint8Array) || cv.length !== expected) {
        return `chaining values must be a ${expected}-byte Uint8Array, got ${cv instanceof Uint8Array ? `${cv.length} bytes` : describe(cv)}`;
      }
      // A moved piece must come back whole: it is reused for later pieces.
      if (job.transfer && !(bytes instanceof Uint8Array && bytes.length === job.length)) return 'the piece it was sent did not come back';
      return undefined;
    }
    default:
      return `unknown message type ${describe((message as { type?: unknown }).type)}`;
  }
}

function describe(value: unknown): string {
  return value === null ? 'null' : typeof value === 'object' ? (value.constructor?.name ?? 'object') : typeof value;
}
