// The tree runner: pieces from a producer go to the worker pool as
// subtrees at their input offsets; their chaining values come back in
// offset order, for the caller to merge into the root.

import type { ModeKey } from '../modes.js';
import type { AsyncHashOptions } from '../input.js';
import { chunkChainingValuesAt, chainingValueAtOffset } from '../wasm/workers.js';
import type { PieceBuffers } from './buffers.js';
import { sizeOf, type WorkerPool } from './pool.js';
import { abortable } from '../promises.js';

/** At most this many pieces per worker are read and held at once: one
 * hashing, one queued in the worker (pool.ts MAX_IN_FLIGHT). */
export const PIECES_PER_WORKER = 2;

/** Below this, a call finding no workers hashes on this thread and starts
 * them when it ends, for the next call. Starting them during the call cost
 * more than they gave back: Node 20, wasm-simd, 2 shared cores, a fresh
 * process's first 64 MiB (15 runs, medians): 105-119 ms with workers
 * starting, 55 ms on this thread alone. A worker starts in 50-200 ms
 * (longer in browsers) and one thread hashes 256 MiB in about 200. */
export const COLD_POOL_FROM = 256 * 2 ** 20;

/** One piece of input, as producers yield it: all but the last of the
 * call's piece length, in offset order. */
export interface Piece {
  /** The bytes, or a Blob slice that the worker reads itself. */
  bytes: Uint8Array | Blob;
  /** In shared memory, or a Blob slice: posted as it is, not moved. */
  shared: boolean;
  /** The same bytes again, to hash here if the piece's worker is lost;
   * undefined where they are gone (moved to that worker). */
  recompute: (() => Uint8Array | Promise<Uint8Array>) | undefined;
  /** Where `bytes` is the caller's own memory: our copy of it, made only
   * when a worker takes the piece (this thread hashes `recompute()`). */
  copy?: () => Uint8Array;
}

export interface TreeRun {
  /** Per piece: its chaining value, or its chunks' (perChunk). */
  cvs: Uint8Array[];
  length: number;
}

export interface TreeRunOptions {
  /** The mode and key every piece is hashed in. */
  hashing: ModeKey;
  /** The call's options: its abort signal and progress callback. */
  call: AsyncHashOptions | undefined;
  /** Input bytes in all, where known: progress counts out of it, and a
   * call below COLD_POOL_FROM does not wait for a cold pool. */
  total: number | undefined;
  /** Where pieces that come back go, for reuse. */
  buffers?: PieceBuffers;
  /** Each chunk's chaining value per piece, not the piece's own. */
  perChunk?: boolean;
}

/**
 * Hashes each piece on `workers` and collects the chaining values, with at
 * most PIECES_PER_WORKER pieces per worker in flight.
 */
export async function runTree(workers: WorkerPool, pieces: AsyncIterable<Piece>, run: TreeRunOptions): Promise<TreeRun> {
  const { hashing, total, buffers, perChunk = false } = run;
  const { signal, onProgress } = run.call ?? {};
  const cvs: Uint8Array[] = [];
  const running = new Set<Promise<void>>();
  let length = 0;
  let done = 0;
  let failure: unknown;
  const limit = workers.size * PIECES_PER_WORKER;
  const held = workers.acquire(total !== undefined && total < COLD_POOL_FROM);
  try {
    for await (const { bytes, shared, recompute, copy } of pieces) {
      signal?.throwIfAborted();
      if (failure) throw failure;
      const index = cvs.length;
      const offset = length;
      cvs.push(undefined!);
      const size = sizeOf(bytes);
      length += size;
      const task = workers
        .run({
          mode: hashing.mode,
          key: hashing.key,
          offset,
          bytes,
          transfer: !shared,
          copy,
          chunks: perChunk,
          fallback:
            recompute &&
            (async () => (perChunk ? chunkChainingValuesAt : chainingValueAtOffset)(hashing.mode, hashing.key, offset, await recompute())),
        })
        .then((result) => {
          cvs[index] = result.cv;
          // Never the caller's memory: a copied piece is released only if it came back.
          const ours = copy ? result.bytes : (result.bytes ?? bytes);
          if (ours instanceof Uint8Array) buffers?.release(ours);
          done += size;
          onProgress?.(done, total);
        })
        .catch((error: unknown) => {
          failure ??= error;
        });
      running.add(task);
      // `task` never rejects (its .catch above keeps the failure), so neither does this.
      void task.finally(() => running.delete(task));
      while (running.size >= limit) await abortable(Promise.race(running), signal);
    }
    signal?.throwIfAborted();
    await abortable(Promise.all(running), signal);
    if (failure) throw failure;
    return { cvs, length };
  } finally {
    workers.release(held);
  }
}
