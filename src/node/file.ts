// hashFile(): a file streamed through two reused 1 MiB buffers, the next read
// running in libuv's thread pool while the current piece is hashed. Memory
// stays flat at any file size. (The native addon's mmap + threads path will
// take over where it is installed.)

import { open, type FileHandle } from 'node:fs/promises';
import { createHasher } from '../hasher.js';
import { outputLength } from '../input.js';
import { checkAsyncOptions, type AsyncHashOptions } from './progress-options.js';

const PIECE = 1 << 20;

/** The error for a file that ended before the size it had when opened. */
export class FileTruncatedError extends Error {
  readonly code = 'ERR_FILE_TRUNCATED';
  constructor(
    readonly path: string,
    readonly expected: number,
    readonly read: number,
  ) {
    super(`blake3-kit: ${path} was truncated while being hashed: expected ${expected} bytes, read ${read}`);
  }
}

/** BLAKE3 of a file's contents. Rejects with the system error (its `code`:
 * ENOENT, EISDIR, EACCES, ...) or FileTruncatedError, never a wrong digest. */
export async function hashFile(path: string | URL, options?: AsyncHashOptions): Promise<Uint8Array> {
  checkAsyncOptions(options);
  const length = outputLength(options?.length, 'options.length');
  const signal = options?.signal;
  signal?.throwIfAborted();
  const onProgress = options?.onProgress;
  const hasher = createHasher(options?.key !== undefined || options?.context !== undefined ? options : undefined);
  let file: FileHandle | undefined;
  let pending: Promise<{ bytesRead: number }> | undefined;
  try {
    file = await open(path, 'r');
    const { size } = await file.stat();
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
