// Asynchronous updates on the native addon, under one rule: a task on
// another thread never reads memory the caller can free, shrink or detach
// while it runs. A SharedArrayBuffer can grow but never shrink or detach, so
// its bytes are hashed where they are. Any other bytes are copied on this
// thread into one of two staging buffers of our own (shared memory, which
// the addon reads in place), the next piece while the last one hashes.
//
// (The addon enforces the rule too: it copies any non-shared input it is
// given; staging here just makes that copy overlap with hashing.)
//
// hashParallel on 2 threads over hash() on one, 64 MiB (bench/native/
// async-input.mjs): in place 1.87x; staged 16 MiB pieces 1.08-1.15x, 8 MiB
// 1.33x, 4 MiB 1.09x, 2 MiB 1.15x (noise, all alike). The copy (~26 GB/s on
// the JS thread) competes with both hashing threads for two cores.

import { checkIntact, inSharedMemory } from '../input.js';
import type { NativeHasherHandle } from './addon.js';

/**
 * Bytes per asynchronous step. Each step is a libuv thread-pool round trip
 * (tens of microseconds) against ~3 ms of hashing for 16 MiB on two cores,
 * and an abort waits for at most one step.
 */
export const NATIVE_STEP = 16 << 20;

/**
 * Runs a native task with a signal of our own that follows the caller's:
 * napi-rs sets `onabort` on the signal it is given, which must not happen to
 * the caller's. An abort rejects with the caller's reason, as every other
 * API does, not with napi-rs's own AbortError.
 */
export function abortable<T>(start: (signal: AbortSignal | undefined) => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return start(undefined);
  signal.throwIfAborted();
  const inner = new AbortController();
  const forward = () => inner.abort(signal.reason);
  signal.addEventListener('abort', forward, { once: true });
  return start(inner.signal).then(
    (value) => {
      signal.removeEventListener('abort', forward);
      return value;
    },
    (error: unknown) => {
      signal.removeEventListener('abort', forward);
      signal.throwIfAborted();
      throw error;
    },
  );
}

/** Staging buffers not in use. Two are kept between calls; they go after a
 * second without use, so an idle process holds none. */
const spare: Uint8Array[] = [];
const KEEP = 2;
const IDLE_MS = 1000;
let idleTimer: ReturnType<typeof setTimeout> | undefined;

function takeStaging(): Uint8Array {
  return spare.pop() ?? new Uint8Array(new SharedArrayBuffer(NATIVE_STEP));
}

function giveBackStaging(buffer: Uint8Array): void {
  if (spare.length < KEEP) spare.push(buffer);
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => (spare.length = 0), IDLE_MS);
  idleTimer.unref?.();
}

/**
 * Hashes all of `bytes` into `state` off the JS thread, in NATIVE_STEP
 * steps; `onProgress` gets the bytes done after each. Rejects if the caller
 * detaches or shrinks `bytes` meanwhile (before a digest could name bytes
 * that are gone), or with the signal's reason. Settles only once no task
 * reads a staging buffer.
 */
export async function absorb(
  state: NativeHasherHandle,
  bytes: Uint8Array,
  signal: AbortSignal | undefined,
  onProgress?: (done: number) => void,
): Promise<void> {
  const total = bytes.length;
  if (inSharedMemory(bytes)) {
    for (let offset = 0; offset < total; offset += NATIVE_STEP) {
      const end = Math.min(total, offset + NATIVE_STEP);
      await abortable((inner) => state.updateAsync(bytes.subarray(offset, end), inner), signal);
      onProgress?.(end);
    }
    return;
  }
  const staging = [takeStaging()];
  let running: Promise<void> | undefined;
  let runningEnd = 0;
  try {
    for (let offset = 0, step = 0; offset < total; offset += NATIVE_STEP, step++) {
      const end = Math.min(total, offset + NATIVE_STEP);
      checkIntact(bytes, total, 'input');
      const buffer = (staging[step & 1] ??= takeStaging());
      const piece = buffer.subarray(0, end - offset);
      piece.set(bytes.subarray(offset, end));
      if (running) {
        await running;
        onProgress?.(runningEnd);
      }
      running = abortable((inner) => state.updateAsync(piece, inner), signal);
      runningEnd = end;
    }
    if (running) {
      await running;
      onProgress?.(runningEnd);
    }
    running = undefined;
  } finally {
    // A failure while a task runs: let it end before its buffer is reused.
    if (running) await running.catch(() => {});
    staging.forEach(giveBackStaging);
  }
}
