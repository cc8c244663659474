// Synchronous writes to fd 1 and 2, as Rust's print! does: an error such as
// EPIPE (`| head`) surfaces at the write that failed, where the caller knows
// which file it was printing, instead of as a later 'error' event on
// process.stdout that nothing can catch in time.

import { writeSync } from 'node:fs';

/** stdout is gone or failing; `cause` is the write's error. */
export class StdoutError extends Error {
  constructor(readonly code: string | undefined) {
    super(`write to stdout failed: ${code}`);
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

function writeAll(fd: number, data: Uint8Array): void {
  for (let done = 0; done < data.length; ) {
    try {
      done += writeSync(fd, data, done);
    } catch (error) {
      // A non-blocking descriptor inherited from the parent: wait, retry.
      if ((error as { code?: string }).code !== 'EAGAIN') throw error;
      Atomics.wait(sleeper, 0, 0, 1);
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
