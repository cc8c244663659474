// hashParallel, hashStream and hashBlob on the native addon: the official
// crate's multithreaded update (rayon) off the JS thread, in pieces so that
// progress is reported and an abort is noticed between them.

import { checkAsyncOptions, checkIntact, inSharedMemory, inputBytes, outputLength, type AsyncHashOptions, type Input } from '../input.js';
import { chunkBytes, nextMacrotask, readSource, type StreamSource } from '../stream-source.js';
import { nativeHash } from '../native/hash.js';
import { createHasher, type Hasher } from '../hasher.js';

export { NATIVE_STEP } from '../native/absorb.js';

/** Below this an input is hashed synchronously: one napi call, where a
 * thread-pool round trip would cost more than the hashing. */
const SYNC_BELOW = 1 << 20;

export async function nativeHashParallel(input: Input, options?: AsyncHashOptions): Promise<Uint8Array> {
  checkAsyncOptions(options, 'options');
  const length = outputLength(options?.length, 'options.length');
  const { signal, onProgress } = options ?? {};
  signal?.throwIfAborted();
  const bytes = inputBytes(input, 'input');
  const total = bytes.length;
  if (total < SYNC_BELOW) {
    const digest = nativeHash(bytes, options);
    onProgress?.(total, total);
    return digest;
  }
  using hasher = createHasher(options);
  if (inSharedMemory(bytes)) await hasher.updateAsync(bytes, signal, onProgress && ((done) => onProgress(done, total)));
  else await updateInSlices(hasher, bytes, signal, onProgress);
  signal?.throwIfAborted();
  return hasher.digest({ length });
}

/** Bytes per slice: ~1 ms on the addon's threads here. */
const SLICE = 4 << 20;

/**
 * An input in the caller's own memory, hashed on this thread a slice per
 * macrotask, each slice spread over the addon's threads (update_rayon from
 * 1 MiB). Off the thread it would first be copied, since the caller may
 * detach or resize its buffer meanwhile: that copy made hashParallel of
 * 64 MiB 0.56x hash() (24.8 against 13.9 ms, Node 20, 2 cores).
 */
async function updateInSlices(
  hasher: Hasher,
  bytes: Uint8Array,
  signal: AbortSignal | undefined,
  onProgress: AsyncHashOptions['onProgress'],
): Promise<void> {
  const total = bytes.length;
  for (let done = 0; done < total; ) {
    if (done > 0) await nextMacrotask();
    signal?.throwIfAborted();
    checkIntact(bytes, total, 'input');
    const end = Math.min(total, done + SLICE);
    hasher.update(bytes.subarray(done, end));
    done = end;
    onProgress?.(done, total);
  }
}

export async function nativeHashStream(source: StreamSource, options?: AsyncHashOptions, total?: number): Promise<Uint8Array> {
  checkAsyncOptions(options, 'options');
  const length = outputLength(options?.length, 'options.length');
  const { signal, onProgress } = options ?? {};
  return readSource(source, signal, async (iterator) => {
    using hasher = createHasher(options);
    let done = 0;
    for (let step = await iterator.next(); !step.done; step = await iterator.next()) {
      signal?.throwIfAborted();
      const chunk = chunkBytes(step.value);
      // Large chunks go off the thread; the usual 16-64 KiB ones take
      // microseconds here, less than a thread-pool round trip.
      if (chunk.length >= SYNC_BELOW) await hasher.updateAsync(chunk, signal);
      else hasher.update(chunk);
      done += chunk.length;
      onProgress?.(done, total);
    }
    signal?.throwIfAborted();
    return hasher.digest({ length });
  });
}

export async function nativeHashBlob(blob: Blob, options?: AsyncHashOptions): Promise<Uint8Array> {
  if (typeof Blob === 'undefined' || !(blob instanceof Blob)) throw new TypeError('blake3-kit: blob must be a Blob or File');
  return nativeHashStream(blob.stream() as ReadableStream<Uint8Array>, options, blob.size);
}
