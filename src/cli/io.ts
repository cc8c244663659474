// Synchronous reads and writes on fds, as Rust's std does them for b3sum.
// Writes: an error such as EPIPE (`| head`) surfaces at the write that
// failed, where the caller knows which file it was printing, instead of as a
// later 'error' event on process.stdout that nothing can catch in time.
// Reads: stdin is read like any file, so a directory on stdin fails with
// EISDIR as in b3sum, where process.stdin would end quietly (a wrong digest).

import { fs } from './system.js';

/** stdout is gone or failing; `cause` is the write's error. */
export class StdoutError extends Error {
  constructor(readonly code: string | undefined) {
    super(`write to stdout failed: ${code}`);
  }
}

/** Characters Gathered holds before it writes. --check on 10^5 small
 * files: 1.16 s with it, 1.54 s with a write per line (b3sum, 0.76 s,
 * writes a line at a time too, but a write costs Node more). */
const FLUSH_AT = 32 * 1024;

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** A descriptor inherited non-blocking from the parent: wait, then retry. */
function retryLater(error: unknown): void {
  if ((error as { code?: string }).code !== 'EAGAIN') throw error;
  Atomics.wait(sleeper, 0, 0, 1);
}

/** Reads what is there into `buffer` from `offset` on, 0 at end of file.
 * Rust reads a closed stdin (EBADF) as empty, and so does this. */
export function readSome(fd: number, buffer: Buffer, offset = 0): number {
  for (;;) {
    try {
      return fs.readSync(fd, buffer, offset, buffer.length - offset, null);
    } catch (error) {
      if (fd === 0 && (error as { code?: string }).code === 'EBADF') return 0;
      retryLater(error);
    }
  }
}

function writeAll(fd: number, data: Uint8Array): void {
  for (let done = 0; done < data.length; ) {
    try {
      done += fs.writeSync(fd, data, done);
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

/**
 * stdout for many short lines (--check's answers): gathered, and written
 * once `FLUSH_AT` characters are waiting or when flush() is called. Call it
 * before anything that may wait (reading a checkfile, which may be a pipe;
 * a FIFO) and before each line on stderr, so that output keeps pace with
 * input and both streams keep b3sum's order. A failed write throws
 * StdoutError at that flush, as out() does.
 */
export class Gathered {
  #text = '';

  write(text: string): void {
    this.#text += text;
    if (this.#text.length >= FLUSH_AT) this.flush();
  }

  flush(): void {
    if (this.#text.length === 0) return;
    const text = this.#text;
    this.#text = '';
    out(text);
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
