// hashFile(): a file's BLAKE3 by its content (feed.ts reads it), with two
// shortcuts for regular files: with the native addon and nothing to report
// or abort, the official crate maps and hashes the whole file in one task;
// on wasm, a large file is read in pieces straight into pooled buffers that
// the worker pool hashes. Memory stays bounded at any file size.

import type { PathLike } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nativeInUse } from '../backend.js';
import { createHasher, type Hasher } from '../hasher.js';
import { checkAsyncOptions, outputLength, type AsyncHashOptions } from '../input.js';
import { modeOf } from '../modes.js';
import { addon } from '../native/addon.js';
import { nativeContextKeys } from '../native/hash.js';
import { addonTruncated, checkNotShrunk, feedFile, OpenFile, type ByteSink } from './feed.js';
import { nodeParallel } from './parallel.js';

export { FileTruncatedError } from './feed.js';

export interface HashFileOptions extends AsyncHashOptions {
  /**
   * Native backend only: map the file into memory (the default, as b3sum
   * does) or, with `false`, read it with `pread`. Mapping is faster with
   * several threads (1 GiB cached, 2 threads: 78 ms mapped, 137 ms read).
   * A file truncated by another process while it is mapped rejects with
   * FileTruncatedError like a read one: the addon catches the SIGBUS for
   * its own mappings (crate/native/src/guard.rs).
   */
  mmap?: boolean;
}

/** Internal: a large file's reads ended before its reported size, which did
 * not change; its pieces were planned from that size, so it is hashed again
 * the serial way, to its end. */
const SIZE_LIED = Symbol('size lied');

/** BLAKE3 of a file's contents. Rejects with the system error (its `code`:
 * ENOENT, EISDIR, EACCES, ...) or FileTruncatedError, never a wrong digest. */
export async function hashFile(path: PathLike, options?: HashFileOptions): Promise<Uint8Array> {
  checkAsyncOptions(options, 'options');
  const length = outputLength(options?.length, 'options.length');
  const mmap = options?.mmap ?? true;
  if (typeof mmap !== 'boolean') throw new TypeError('blake3-kit: options.mmap must be a boolean');
  const { signal, onProgress } = options ?? {};
  signal?.throwIfAborted();
  // Created first so that a bad key or context rejects before the file is
  // touched; it holds no memory beyond its JS object until it is fed.
  using hasher = createHasher(options);
  const file = await OpenFile.open(path);
  try {
    if (file.stats.isFile()) {
      const digest = await shortcut(path, file, options, length);
      if (digest !== undefined) return digest;
    }
    await feedFile(file, hasher, { mmap, signal, progress: onProgress, shrunk: 'reject' });
    return hasher.digest({ length });
  } finally {
    await file.close();
  }
}

export interface UpdateFromFileOptions {
  /** As hashFile's: map regular files into memory where the backend reads them (native). */
  mmap?: boolean;
  signal?: AbortSignal;
  /** Bytes fed so far, and the file's size at open while reads stay within it. */
  onProgress?: (done: number, total: number | undefined) => void;
  /** A regular file that shrinks while it is read: `reject` with
   * FileTruncatedError (the default), or `hash` it as far as it went, as
   * b3sum does. */
  truncated?: 'reject' | 'hash';
}

/**
 * Feeds all of a file's content, in order, to `target`: a Hasher (on the
 * native backend its threads read the file, mapped or with pread), or
 * anything with an `update(bytes)` method. Procfs and sysfs files, FIFOs and
 * devices are read to their end. Rejects with the system error or
 * FileTruncatedError; what was fed before a rejection stays fed.
 */
export async function updateFromFile(target: Hasher | ByteSink, path: PathLike, options?: UpdateFromFileOptions): Promise<void> {
  if (typeof (target as Partial<ByteSink> | null)?.update !== 'function')
    throw new TypeError('blake3-kit: target must be a Hasher or have an update(bytes) method');
  checkAsyncOptions(options, 'options');
  const { mmap = true, signal, onProgress, truncated = 'reject' } = options ?? {};
  if (typeof mmap !== 'boolean') throw new TypeError('blake3-kit: options.mmap must be a boolean');
  if (truncated !== 'reject' && truncated !== 'hash')
    throw new TypeError(`blake3-kit: options.truncated must be 'reject' or 'hash'; got ${String(truncated)}`);
  signal?.throwIfAborted();
  const file = await OpenFile.open(path);
  try {
    await feedFile(file, target, { mmap, signal, progress: onProgress, shrunk: truncated });
  } finally {
    await file.close();
  }
}

/** A regular file's digest in one go where that is faster, else undefined. */
async function shortcut(path: PathLike, file: OpenFile, options: HashFileOptions | undefined, length: number): Promise<Uint8Array | undefined> {
  const { signal, onProgress, mmap = true } = options ?? {};
  if (nativeInUse()) {
    // A Buffer path may not be UTF-8, which the addon's path is: feedFile
    // takes it through the descriptor.
    if (!mmap || onProgress !== undefined || signal !== undefined || path instanceof Uint8Array) return undefined;
    // Nothing to report or abort between steps: one task (the whole file
    // mapped under the addon's SIGBUS guard, one update_rayon) keeps every
    // thread busy from the first byte to the last. 1 GiB cached, 2 threads,
    // medians of 9: one task 145 ms, 16 MiB steps 169 ms, b3sum 154 ms. The
    // core reads files too small to map, or that refuse it (procfs, sysfs),
    // to their end.
    const { mode, key } = modeOf(options, 'options', nativeContextKeys);
    try {
      const digest = await addon!.hashFile(typeof path === 'string' ? path : fileURLToPath(path), mode, key, length, true);
      await checkNotShrunk(file);
      return digest;
    } catch (e) {
      if (addonTruncated(e)) await checkNotShrunk(file, e);
      throw e;
    }
  }
  try {
    const digest = await nodeParallel.hashRanges(
      file.stats.size,
      async (offset, into) => {
        const bytesRead = await file.read(into, offset);
        if (bytesRead < into.length) {
          await checkNotShrunk(file);
          throw SIZE_LIED;
        }
        return bytesRead;
      },
      options,
    );
    if (digest) await checkNotShrunk(file); // every piece was read in full
    return digest;
  } catch (e) {
    if (e !== SIZE_LIED) throw e;
    return undefined;
  }
}
