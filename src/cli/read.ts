// Reading the files named on the command line (and in checkfiles), and
// stdin, as b3sum does: all of their content, whatever size they report.

import { fs } from './system.js';
import { updateFromFile } from '../entries/node.js';
import type { Options } from './args.js';
import { displayPath } from './check-format.js';
import { readSome } from './io.js';
import { Progress } from './progress.js';

export const STDIN = Buffer.from('-');

/** Regular files smaller than this are read and hashed on this thread. It
 * is where b3sum starts mapping files (MAP_FROM in src/node/feed.ts), which
 * hashes them up to their size at open, as feed() does: a larger bound
 * would change what a growing file hashes to, so none was tried. */
const SMALL_FILE = 16 * 1024;
/** The buffer a small file is read into: a file that grew after its stat
 * still takes one read, and a larger one is hashed piece by piece. */
export const READ_BUFFER = 64 * 1024;
/** A file that turned into a FIFO after its stat must not block the open. */
const OPEN_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK;

/**
 * A descriptor of `path` if it is a regular file under SMALL_FILE bytes,
 * for the caller to read here to its end (and close): no promise, no
 * round trip through libuv's pool per call (check.ts has the numbers).
 * Undefined for every other file and for `-` (stdin), which feed() reads.
 * A missing file throws its ENOENT; other errors of the stat are left to
 * feed(), which reports them as it always has.
 */
export function openSmallFile(path: string | Buffer): number | undefined {
  if (path === '-' || (Buffer.isBuffer(path) && path.equals(STDIN))) return undefined;
  try {
    const stats = fs.statSync(path);
    if (!stats.isFile() || stats.size >= SMALL_FILE) return undefined;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') throw error;
    return undefined;
  }
  return fs.openSync(path, OPEN_FLAGS);
}

const smallFileBuffer = Buffer.allocUnsafe(READ_BUFFER);

/** Chunks of stdin, or of the file at `path`, read in order to EOF, with
 * `beforeRead` called before each read. Each call has its own buffer: a
 * checkfile's chunk must outlive the hashing of the files it names. */
export function* chunks(path: Buffer, beforeRead?: () => void): Generator<Buffer> {
  const stdin = path.equals(STDIN);
  const fd = stdin ? 0 : fs.openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(64 * 1024);
    for (;;) {
      beforeRead?.();
      const read = readSome(fd, buffer);
      if (read === 0) return;
      yield buffer.subarray(0, read);
    }
  } finally {
    if (!stdin) fs.closeSync(fd);
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
  const small = openSmallFile(path);
  if (small !== undefined) {
    try {
      for (let read: number; (read = readSome(small, smallFileBuffer)) > 0; ) hasher.update(smallFileBuffer.subarray(0, read));
    } finally {
      fs.closeSync(small);
    }
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
