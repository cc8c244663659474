// hashFile(). With the native addon, the official crate hashes the file
// off the JS thread on all cores: mapped (by default; one task, or 16 MiB
// steps when there is progress to report or a signal to watch) or read in
// 16 MiB steps with `mmap: false`. On wasm, a large file is read in pieces straight into pooled
// buffers and hashed by the worker pool; a small one (at or below the
// parallel threshold) streams through two reused 1 MiB buffers on this
// thread, the next read running in libuv's thread pool while the current
// piece is hashed. Memory stays bounded at any file size.

import { open, type FileHandle } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { checkAsyncOptions, outputLength, type AsyncHashOptions } from '../input.js';
import { addon } from '../native/addon.js';
import { NATIVE_PIECE } from '../native/async.js';
import { nativeMode } from '../native/hash.js';
import { NativeHasher } from '../native/hasher.js';
import { createHasher, nativeInUse } from './backend.js';
import { nodeParallel } from './parallel.js';

export interface HashFileOptions extends AsyncHashOptions {
  /**
   * Native backend only: map the file into memory (the default, as b3sum
   * does) or, with `false`, read it with `pread`. Mapping is faster with
   * several threads (1 GiB cached, 2 threads: 78 ms mapped, 137 ms read).
   * A file truncated by another process while it is mapped rejects with
   * FileTruncatedError like a read one: the addon catches the SIGBUS for
   * its own mappings (crate/native/src/guard.rs). Turn it off if something
   * else in the process installs a SIGBUS handler that does not chain to
   * the one before it (then the addon reads anyway when it notices).
   */
  mmap?: boolean;
}

const PIECE = 1 << 20;

/** The error for a file that ended before the size it had when opened. */
export class FileTruncatedError extends Error {
  readonly code = 'ERR_FILE_TRUNCATED';
  /** `expected`: the size when opened; `read`: the bytes it held at the end. */
  constructor(
    readonly path: string,
    readonly expected: number,
    readonly read: number,
    options?: ErrorOptions,
  ) {
    super(`blake3-kit: ${path} was truncated while being hashed: it had ${expected} bytes, then ${read}`, options);
  }
}

/** The addon's own ERR_FILE_TRUNCATED (a mapped file shrank: its pages past
 * the new end read as zeros, so it gives no digest), as opposed to ours. */
function addonTruncated(e: unknown): boolean {
  return !(e instanceof FileTruncatedError) && (e as { code?: unknown } | null)?.code === 'ERR_FILE_TRUNCATED';
}

/** BLAKE3 of a file's contents. Rejects with the system error (its `code`:
 * ENOENT, EISDIR, EACCES, ...) or FileTruncatedError, never a wrong digest. */
export async function hashFile(path: string | URL, options?: HashFileOptions): Promise<Uint8Array> {
  checkAsyncOptions(options, 'options');
  const length = outputLength(options?.length, 'options.length');
  const mmap = options?.mmap ?? true;
  if (typeof mmap !== 'boolean') throw new TypeError('blake3-kit: options.mmap must be a boolean');
  const signal = options?.signal;
  signal?.throwIfAborted();
  const onProgress = options?.onProgress;
  // Created first so that a bad key or context rejects before the file is
  // touched; it holds no memory beyond its JS object until it is fed.
  const hasher = createHasher(options);
  let file: FileHandle | undefined;
  let pending: Promise<{ bytesRead: number }> | undefined;
  try {
    file = await open(path, 'r');
    const stats = await file.stat();
    const { size } = stats;
    const handle = file;
    /** The error for this file as it is now, `size` bytes when opened. */
    const truncated = async (cause?: unknown) =>
      new FileTruncatedError(String(path), size, (await handle.stat()).size, cause === undefined ? undefined : { cause });
    /** A file cut short after its last read still changed under us: report
     * it rather than a stale digest. */
    const checkNotShrunk = async () => {
      if ((await handle.stat()).size < size) throw await truncated();
    };
    if (hasher instanceof NativeHasher && stats.isFile()) {
      // One error type for callers: the addon's ERR_FILE_TRUNCATED becomes a
      // FileTruncatedError with the size the file has now.
      try {
        if (mmap && onProgress === undefined && signal === undefined) {
          // Nothing to report or abort between steps: one task (the whole
          // file mapped under the addon's SIGBUS guard, one update_rayon)
          // keeps every thread busy from the first byte to the last. 1 GiB
          // cached, 2 threads, medians of 9: one task 145 ms, 16 MiB steps
          // 169 ms, b3sum 154 ms (measured with upstream's update_mmap_rayon,
          // which hashes the same way).
          const { mode, key } = nativeMode(options, 'options');
          const digest = await addon!.hashFile(path instanceof URL ? fileURLToPath(path) : path, mode, key, length, true);
          await checkNotShrunk();
          return digest;
        }
        for (let offset = 0; offset < size; ) {
          signal?.throwIfAborted();
          const want = Math.min(NATIVE_PIECE, size - offset);
          const got = await hasher.updateFromFd(handle.fd, offset, want, mmap, signal);
          if (got < want) throw await truncated();
          offset += got;
          onProgress?.(offset, size);
        }
        await checkNotShrunk();
        return hasher.digest({ length });
      } catch (e) {
        throw addonTruncated(e) ? await truncated(e) : e;
      }
    }
    const inParallel = nativeInUse() ? undefined : await nodeParallel.hashRanges(
      size,
      async (offset, into) => {
        const { bytesRead } = await handle.read(into, 0, into.length, offset);
        if (bytesRead < into.length) throw await truncated();
        return bytesRead;
      },
      options,
    );
    if (inParallel) {
      await checkNotShrunk(); // every piece was read in full
      return inParallel;
    }
    const buffers = [Buffer.allocUnsafe(PIECE), Buffer.allocUnsafe(PIECE)];
    let done = 0;
    pending = file.read(buffers[0]!, 0, PIECE, 0);
    for (let turn = 0; ; turn ^= 1) {
      const { bytesRead }: { bytesRead: number } = await pending;
      pending = undefined;
      signal?.throwIfAborted();
      if (bytesRead === 0) break;
      pending = file.read(buffers[turn ^ 1]!, 0, PIECE, done + bytesRead);
      hasher.update(buffers[turn]!.subarray(0, bytesRead));
      done += bytesRead;
      onProgress?.(done, size);
    }
    // A file that grew is hashed as read; one that shrank would give the
    // digest of a file that never existed.
    if (done < size) throw new FileTruncatedError(String(path), size, done);
    return hasher.digest({ length });
  } finally {
    hasher.dispose();
    await pending?.catch(() => {}); // a read still in flight after an abort
    await file?.close();
  }
}
