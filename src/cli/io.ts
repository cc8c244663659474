// Synchronous reads and writes on fds, as Rust's std does them for b3sum.
// Writes: an error such as EPIPE (`| head`) surfaces at the write that
// failed, where the caller knows which file it was printing, instead of as a
// later 'error' event on process.stdout that nothing can catch in time.
// Reads: stdin is read like any file, so a directory on stdin fails with
// EISDIR as in b3sum, where process.stdin would end quietly (a wrong digest).

import { readSync, writeSync } from 'node:fs';

/** stdout is gone or failing; `cause` is the write's error. */
export class StdoutError extends Error {
  constructor(readonly code: string | undefined) {
    super(`write to stdout failed: ${code}`);
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** A descriptor inherited non-blocking from the parent: wait, then retry. */
function retryLater(error: unknown): void {
  if ((error as { code?: string }).code !== 'EAGAIN') throw error;
  Atomics.wait(sleeper, 0, 0, 1);
}

/** Reads what is there, 0 at end of file. Rust reads a closed stdin
 * (EBADF) as empty, and so does this. */
export function readSome(fd: number, buffer: Buffer): number {
  for (;;) {
    try {
      return readSync(fd, buffer, 0, buffer.length, null);
    } catch (error) {
      if (fd === 0 && (error as { code?: string }).code === 'EBADF') return 0;
      retryLater(error);
    }
  }
}

function writeAll(fd: number, data: Uint8Array): void {
  for (let done = 0; done < data.length; ) {
    try {
      done += writeSync(fd, data, done);
    } catch (error) {
      retryLater(error);
    }
  }
}

export function out(data: string | Uint8Array): void {
  try {
    writeAll(1, typeof data === 'string' ? Buffer.from(data) : data);
  } catch (error) {
    throw new StdoutError((error as { code?: string }).code);
  }
}

/** A line on stderr; a failing stderr is ignored, as there is nowhere left to report. */
export function err(line: string): void {
  try {
    writeAll(2, Buffer.from(`${line}\n`));
  } catch {
    // Nothing to do.
  }
}
