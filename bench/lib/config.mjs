// What to measure: sizes, modes and the timing budget of a full and a quick run.

import { KiB, MiB } from './format.mjs';

export const SIZES = [64, 256, KiB, 4 * KiB, 16 * KiB, 64 * KiB, MiB, 16 * MiB, 64 * MiB];
export const QUICK_SIZES = [64, KiB, 16 * KiB, MiB];

/** Modes in report order. `maxSize` skips combinations that would take absurdly
 * long: 63-byte updates stop at 1 MiB (16,644 calls per digest already). */
export const MODES = [
  { id: 'oneshot', title: 'One-shot hash', kind: 'oneshot' },
  { id: 'stream-4096', title: 'Streaming, 4 KiB updates', kind: 'stream', chunk: 4 * KiB },
  { id: 'stream-256', title: 'Streaming, 256 B updates', kind: 'stream', chunk: 256 },
  { id: 'stream-63', title: 'Streaming, 63 B updates (up to 1 MiB)', kind: 'stream', chunk: 63, maxSize: MiB },
  { id: 'keyed', title: 'Keyed hash (one-shot)', kind: 'keyed' },
  { id: 'xof', title: 'XOF: 1 MiB of output from a 32-byte input', kind: 'xof', sizes: [MiB] },
];

/** The cells one implementation runs: [{ mode, size }], size = bytes hashed
 * (for xof: bytes of output). */
export function cellsFor(sizes, maxSize = Infinity) {
  const cells = [];
  for (const mode of MODES) {
    for (const size of mode.sizes ?? sizes) {
      if (size > (mode.maxSize ?? Infinity) || size > maxSize) continue;
      cells.push({ mode: mode.id, size });
    }
  }
  return cells;
}

/** Timing budget. `time`/`warmupTime` are tinybench's per-task budgets (ms),
 * `batchMs` the target duration of one timed batch (one tinybench sample),
 * `minBatches` the least number of samples (fewer for huge inputs, where one
 * call is one batch and takes a long time). `coldRuns` fresh processes/pages
 * per implementation for the cold start; `parallelRuns` warm hashParallel calls
 * after the cold one (bench/lib/parallel-cold.mjs). */
export const PROFILES = {
  full: { sizes: SIZES, time: 500, warmupTime: 100, batchMs: 5, minBatches: 10, minBatchesHuge: 5, coldRuns: 5, parallelRuns: 7 },
  quick: { sizes: QUICK_SIZES, time: 60, warmupTime: 20, batchMs: 2, minBatches: 5, minBatchesHuge: 3, coldRuns: 2, parallelRuns: 3 },
};
