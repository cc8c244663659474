// hashFile(). Files are hashed by their content, read to the end, never by
// the size fstat reports: procfs says 0 bytes, sysfs 4096, for files that
// hold a few dozen. A regular file that ends before its reported size was
// truncated only if a fresh fstat says it shrank; otherwise its size lied.
//
// Regular files: with the native addon, the official crate hashes the file
// off the JS thread on all cores: mapped (by default; one task, or 16 MiB
// steps when there is progress to report or a signal to watch) or read in
// 16 MiB steps with `mmap: false`. On wasm, a large file is read in pieces
// straight into pooled buffers and hashed by the worker pool; a small one
// (at or below the parallel threshold) streams through two reused 1 MiB
// buffers on this thread, the next read running in libuv's thread pool while
// the current piece is hashed. Memory stays bounded at any file size.
//
// FIFOs and pipes have no positions (ESPIPE): they are read as they flow,
// polled by libuv, so that an abort ends the wait for a writer or for data.
// Other files (devices) are read sequentially.

import { constants, open as openFd, type PathLike } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Blake3Hasher } from '../api.js';
import { checkAsyncOptions, outputLength, type AsyncHashOptions } from '../input.js';
import { addon } from '../native/addon.js';
import { NATIVE_PIECE } from '../native/async.js';
import { modeOf } from '../modes.js';
import { nativeContextKeys } from '../native/hash.js';
import { NativeHasher } from '../native/hasher.js';
import { createHasher } from '../hasher.js';
import { nativeInUse } from '../backend.js';
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
/** Opening a FIFO without it waits for a writer, in a libuv thread that no
 * abort can free. It changes nothing for regular files. */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** The error for a file that shrank while it was hashed. */
export class FileTruncatedError extends Error {
  readonly code = 'ERR_FILE_TRUNCATED';
  /** `expected`: the size when opened; `read`: the size it had at the end. */
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

/** Internal: a large file's reads ended before its reported size, which did
 * not change; its pieces were planned from that size, so it is hashed again
 * the serial way, to its end. */
const SIZE_LIED = Symbol('size lied');

/** BLAKE3 of a file's contents. Rejects with the system error (its `code`:
 * ENOENT, EISDIR, EACCES, ...) or FileTruncatedError, never a wrong digest. */
export async function hashFile(path: PathLike, options?: HashFileOptions): Promise<Uint8Array> {
  const name = pathName(path);
  checkAsyncOptions(options, 'options');
  const length = outputLength(options?.length, 'options.length');
  const mmap = options?.mmap ?? true;
  if (typeof mmap !== 'boolean') throw new TypeError('blake3-kit: options.mmap must be a boolean');
  const signal = options?.signal;
  signal?.throwIfAborted();
  const onProgress = options?.onProgress;
  // Created first so that a bad key or context rejects before the file is
  // touched; it holds no memory beyond its JS object until it is fed.
  const hasher = nativeInUse() ? new NativeHasher(options) : createHasher(options);
  let file: FileHandle | undefined;
  try {
    file = await open(path, OPEN_FLAGS);
    const stats = await file.stat();
    if (stats.isFIFO()) {
      await hashPipe(path, hasher, signal, onProgress);
      return hasher.digest({ length });
    }
    if (!stats.isFile()) {
      // Devices; a directory fails here with EISDIR.
      await hashSequentially(file, hasher, signal, onProgress);
      return hasher.digest({ length });
    }
    const handle = file;
    const { size } = stats;
    /** Throws if the file is now shorter than when it was opened: the bytes
     * hashed are then of a file that never existed. */
    const checkNotShrunk = async (cause?: unknown) => {
      const now = (await handle.stat()).size;
      if (now < size) throw new FileTruncatedError(name, size, now, cause === undefined ? undefined : { cause });
    };
    /** Progress totals: the reported size, unless reads went past it. */
    const progress = onProgress && ((done: number) => onProgress(done, done <= size ? size : undefined));
    if (hasher instanceof NativeHasher) {
      try {
        // A Buffer path may not be UTF-8, which the addon's path is: the
        // loop below takes it through the descriptor.
        if (mmap && onProgress === undefined && signal === undefined && !(path instanceof Uint8Array)) {
          // Nothing to report or abort between steps: one task (the whole
          // file mapped under the addon's SIGBUS guard, one update_rayon)
          // keeps every thread busy from the first byte to the last. 1 GiB
          // cached, 2 threads, medians of 9: one task 145 ms, 16 MiB steps
          // 169 ms, b3sum 154 ms (measured with upstream's update_mmap_rayon,
          // which hashes the same way). The core reads files too small to
          // map, or that refuse it (procfs, sysfs), to their end.
          const { mode, key } = modeOf(options, 'options', nativeContextKeys);
          const digest = await addon!.hashFile(typeof path === 'string' ? path : fileURLToPath(path), mode, key, length, true);
          await checkNotShrunk();
          return digest;
        }
        for (let done = 0; ; ) {
          signal?.throwIfAborted();
          const got = await hasher.updateFromFd(handle.fd, done, NATIVE_PIECE, mmap, signal);
          done += got;
          if (got > 0) progress?.(done);
          if (got < NATIVE_PIECE) break; // end of file
        }
        await checkNotShrunk();
        return hasher.digest({ length });
      } catch (e) {
        if (addonTruncated(e)) await checkNotShrunk(e);
        throw e;
      }
    }
    try {
      const inParallel = nativeInUse() ? undefined : await nodeParallel.hashRanges(
        size,
        async (offset, into) => {
          const { bytesRead } = await handle.read(into, 0, into.length, offset);
          if (bytesRead < into.length) {
            await checkNotShrunk();
            throw SIZE_LIED;
          }
          return bytesRead;
        },
        options,
      );
      if (inParallel) {
        await checkNotShrunk(); // every piece was read in full
        return inParallel;
      }
    } catch (e) {
      if (e !== SIZE_LIED) throw e;
    }
    await hashRegular(handle, hasher, signal, progress);
    await checkNotShrunk();
    return hasher.digest({ length });
  } finally {
    hasher.dispose();
    await file?.close();
  }
}

/** What a FileTruncatedError calls the file; `path` checked on the way. */
function pathName(path: unknown): string {
  if (typeof path === 'string') return path;
  if (path instanceof URL) return path.href;
  if (path instanceof Uint8Array) return Buffer.from(path.buffer, path.byteOffset, path.length).toString();
  throw new TypeError(`blake3-kit: path must be a string, URL or Buffer; got ${path === null ? 'null' : typeof path}`);
}

/** A regular file on this thread, to its end: two buffers, the next read in
 * flight while the current piece is hashed. */
async function hashRegular(
  file: FileHandle,
  hasher: Blake3Hasher,
  signal: AbortSignal | undefined,
  progress: ((done: number) => void) | undefined,
): Promise<void> {
  const buffers = [Buffer.allocUnsafe(PIECE), Buffer.allocUnsafe(PIECE)];
  let done = 0;
  let pending: Promise<{ bytesRead: number }> | undefined = file.read(buffers[0]!, 0, PIECE, 0);
  try {
    for (let turn = 0; ; turn ^= 1) {
      const { bytesRead }: { bytesRead: number } = await pending;
      pending = undefined;
      signal?.throwIfAborted();
      if (bytesRead === 0) return;
      pending = file.read(buffers[turn ^ 1]!, 0, PIECE, done + bytesRead);
      hasher.update(buffers[turn]!.subarray(0, bytesRead));
      done += bytesRead;
      progress?.(done);
    }
  } finally {
    await pending?.catch(() => {}); // a read still in flight after an abort
  }
}

/** A file without positions that is not a FIFO (a device), from its current
 * position to its end. */
async function hashSequentially(
  file: FileHandle,
  hasher: Blake3Hasher,
  signal: AbortSignal | undefined,
  onProgress: ((done: number, total?: number) => void) | undefined,
): Promise<void> {
  const buffer = Buffer.allocUnsafe(PIECE);
  for (let done = 0; ; ) {
    const { bytesRead } = await file.read(buffer, 0, PIECE, null);
    signal?.throwIfAborted();
    if (bytesRead === 0) return;
    hasher.update(buffer.subarray(0, bytesRead));
    onProgress?.((done += bytesRead), undefined);
  }
}

/**
 * A FIFO or pipe (`/dev/stdin` when it is one), read as it flows. A socket
 * over its own descriptor lets libuv poll it: no thread blocks in open() or
 * read(), so an abort, which closes it, ends any wait at once. The caller's
 * descriptor stays open until this settles, so that a writer never finds
 * the FIFO without a reader (EPIPE).
 */
async function hashPipe(
  path: PathLike,
  hasher: Blake3Hasher,
  signal: AbortSignal | undefined,
  onProgress: ((done: number, total?: number) => void) | undefined,
): Promise<void> {
  const fd = await new Promise<number>((resolve, reject) => openFd(path, OPEN_FLAGS, (e, fd) => (e ? reject(e) : resolve(fd))));
  const socket = new Socket({ fd, readable: true, writable: false });
  return new Promise<void>((resolve, reject) => {
    let failure: { error: unknown } | undefined;
    let ended = false;
    let done = 0;
    const fail = (error: unknown) => {
      failure ??= { error };
      socket.destroy();
    };
    const onAbort = () => fail(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.on('data', (chunk: Buffer) => {
      try {
        hasher.update(chunk);
        onProgress?.((done += chunk.length), undefined);
      } catch (error) {
        fail(error);
      }
    });
    socket.on('end', () => (ended = true));
    socket.on('error', fail);
    // Settles only once the descriptor is closed.
    socket.on('close', () => {
      signal?.removeEventListener('abort', onAbort);
      if (failure) reject(failure.error);
      else if (ended) resolve();
      else reject(new Error(`blake3-kit: ${pathName(path)} closed before its end`));
    });
    if (signal?.aborted) onAbort();
  });
}
