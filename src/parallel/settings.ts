// The settings of one parallel API: their defaults, their checks (every
// change goes through mergeSettings) and the piece lengths they imply.

import { checkOptions } from '../input.js';

export interface ParallelSettings {
  /** Workers in the pool, 1 to 1024; 0 (the default): one per logical core. */
  workers?: number;
  /** Inputs shorter than this many bytes are hashed on the calling thread. */
  threshold?: number;
  /** Where the worker script is, for self-hosted or bundled copies. */
  workerUrl?: URL | string;
  /** Piece length in bytes, a power of two >= 1024; 0 picks one by size. */
  pieceLength?: number;
  /** How pieces that must be copied reach workers: 'transfer' (default:
   * copied into reusable ArrayBuffers that move to the worker and back) or
   * 'shared' (copied into SharedArrayBuffers, where they can be posted).
   * Input that already lives in a SharedArrayBuffer is never copied. */
  transport?: 'transfer' | 'shared';
  /** A worker that has not answered a job of n bytes within
   * `jobTimeout + n / 1 MiB * 100` ms is treated as lost (default 30 s). */
  jobTimeout?: number;
  /** Until the first worker is ready, this thread hashes waiting pieces
   * itself, one per macrotask (default true): a first call then takes about
   * as long as hashing without workers, where it used to wait 50-200 ms for
   * them to start. false leaves every piece to the workers. */
  helpWhileStarting?: boolean;
}

export type Settings = Readonly<Required<Omit<ParallelSettings, 'workerUrl'>> & { workerUrl: URL | string | undefined }>;

/** At most this many bytes stay on the calling thread. Serial time / all
 * workers' time for a plain (copied) input on this 2-core machine, Node 20:
 * 1 MiB 0.92, 2 MiB 0.95, 4 MiB 1.17, 8 MiB 1.54 (bench/parallel/node.mjs;
 * Chromium in the README). */
export const DEFAULT_THRESHOLD = 4 << 20;

export const DEFAULT_SETTINGS: Settings = {
  workers: 0,
  threshold: DEFAULT_THRESHOLD,
  workerUrl: undefined,
  pieceLength: 0,
  jobTimeout: 30_000,
  transport: 'transfer',
  helpWhileStarting: true,
};

const MIN_PIECE = 64 * 1024;
const MAX_PIECE = 8 * 1024 * 1024;
/** Streams have no known length: fixed pieces, unless set. */
const STREAM_PIECE = 1024 * 1024;
/** The native addon's bound too (crate/native/src/pool.rs MAX_THREADS). */
const MAX_WORKERS = 1024;
const COUNTS = ['workers', 'threshold', 'pieceLength', 'jobTimeout'] as const;

/** `current` with `next` applied, or a TypeError or RangeError naming the
 * first bad setting (then nothing changes). */
export function mergeSettings(current: Settings, next: ParallelSettings): Settings {
  checkOptions(next, 'options');
  const merged: Settings = { ...current, ...next };
  if (merged.transport !== 'transfer' && merged.transport !== 'shared') {
    throw new TypeError("blake3-kit: options.transport must be 'transfer' or 'shared'");
  }
  if (typeof merged.helpWhileStarting !== 'boolean') {
    throw new TypeError(`blake3-kit: options.helpWhileStarting must be a boolean; got ${typeof merged.helpWhileStarting}`);
  }
  const { workerUrl } = merged;
  if (workerUrl !== undefined && typeof workerUrl !== 'string' && !(workerUrl instanceof URL)) {
    throw new TypeError(`blake3-kit: options.workerUrl must be a URL or a string; got ${workerUrl === null ? 'null' : typeof workerUrl}`);
  }
  for (const name of COUNTS) {
    const value = merged[name];
    if (typeof value !== 'number') throw new TypeError(`blake3-kit: options.${name} must be a number; got ${typeof value}`);
    if (!Number.isInteger(value) || value < 0) throw new RangeError(`blake3-kit: options.${name} must be a non-negative integer; got ${value}`);
  }
  if (merged.workers > MAX_WORKERS) {
    throw new RangeError(`blake3-kit: options.workers must be from 1 to ${MAX_WORKERS}, or 0 for one per core; got ${merged.workers}`);
  }
  const { pieceLength } = merged;
  if (pieceLength !== 0 && (pieceLength < 1024 || (pieceLength & (pieceLength - 1)) !== 0 || pieceLength > 2 ** 30)) {
    throw new RangeError(`blake3-kit: options.pieceLength must be 0 or a power of two from 1024 to 2^30; got ${pieceLength}`);
  }
  return merged;
}

/** The piece length for an input of `total` bytes on `workers` workers:
 * the set one, or about four pieces per worker within [MIN_PIECE, MAX_PIECE]. */
export function pieceLengthFor(settings: Settings, total: number, workers: number): number {
  if (settings.pieceLength !== 0) return settings.pieceLength;
  let piece = MIN_PIECE;
  while (piece < MAX_PIECE && piece * workers * 4 < total) piece *= 2;
  return piece;
}

export function streamPieceLength(settings: Settings): number {
  return settings.pieceLength || STREAM_PIECE;
}

/** Milliseconds without an answer after which a job of `bytes` counts as lost. */
export function jobDeadline(settings: Settings): (bytes: number) => number {
  const { jobTimeout } = settings;
  return (bytes) => jobTimeout + Math.ceil(bytes / 2 ** 20) * 100;
}
