// Reading the files named on the command line (and in checkfiles), and
// stdin, as b3sum does: all of their content, whatever size they report.

import { closeSync, openSync } from 'node:fs';
import { updateFromFile } from '../entries/node.js';
import type { Options } from './args.js';
import { displayPath } from './check-format.js';
import { readSome } from './io.js';
import { Progress } from './progress.js';

export const STDIN = Buffer.from('-');

/** Chunks of stdin, or of the file at `path`, read in order to EOF, with
 * `beforeRead` called before each read. Each call has its own buffer: a
 * checkfile's chunk must outlive the hashing of the files it names. */
export function* chunks(path: Buffer, beforeRead?: () => void): Generator<Buffer> {
  const stdin = path.equals(STDIN);
  const fd = stdin ? 0 : openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(64 * 1024);
    for (;;) {
      beforeRead?.();
      const read = readSome(fd, buffer);
      if (read === 0) return;
      yield buffer.subarray(0, read);
    }
  } finally {
    if (!stdin) closeSync(fd);
  }
}

/** What a file is fed to: a hasher. */
export type ByteSink = { update(bytes: Uint8Array): unknown };

/** Feeds a file, or stdin for `-`, into `hasher`: all of its content, as b3sum does. */
export async function feed(path: Buffer, hasher: ByteSink, options: Options): Promise<void> {
  if (path.equals(STDIN)) {
    if (options.keyed) throw new Error('Cannot open `-` in keyed mode');
    for (const chunk of chunks(STDIN)) hasher.update(chunk);
    return;
  }
  // A bar for files of a few MiB on, drawn from the first report, which
  // carries the size at open (asked for only where stderr is a terminal:
  // without reports the addon reads a file in one task).
  let progress: Progress | undefined;
  let shown = 0;
  const onProgress = process.stderr.isTTY
    ? (done: number, total: number | undefined) => {
        progress ??= total === undefined ? undefined : Progress.maybe(total, displayPath(path));
        progress?.advance(done - shown);
        shown = done;
      }
    : undefined;
  // b3sum hashes a file that shrinks as far as it goes.
  await updateFromFile(hasher, path, { mmap: !options.noMmap, onProgress, truncated: 'hash' });
  progress?.finish();
}
