// --check: b3sum's checkfile loop. Each line names a file and its expected
// hash; the file is hashed and the line answered with OK or FAILED, in
// checkfile order, as b3sum answers.
//
// A backup manifest names mostly small files, so the cost that counts is
// per line. A regular file under SMALL_FILE bytes (b3sum reads those rather
// than mapping them) is stat'ed, opened, read into one reused buffer and
// hashed with the one-shot hash(), all on this thread: no promise, no
// thread-pool round trip. Everything else (stdin, FIFOs, devices,
// directories, larger files: the addon's threads, mapped) goes through
// feed(), as when hashing. Answers are gathered and written 32 K characters
// at a time (Gathered in io.ts).
//
// Measured with bench/native/check.mjs's fixture (files of 8 B-8 KiB,
// log-uniform, in the page cache; the checkfile written by b3sum 1.8.7),
// AMD EPYC 2 cores, Node 20.20.2, wall time with start-up, medians of
// paired runs against b3sum --check, load average 1.1-1.4:
//                        before (feed() per line)      now
//   10^5 lines  b3sum    0.76-1.07 s                   0.75 s
//               ours     7.9-14.3 s (7-19x)            1.13 s (1.50x, 9 pairs)
//   10^6 lines  b3sum    13.1 s (load up to 3.4)       7.57 s
//               ours     131.3 s (9.6x)                9.95 s (1.34x, 5 pairs)
// Before, each line's open, fstat, read (or the addon's task) and close
// was a round trip through libuv's pool: the profile was 70% idle, 4-5
// event-loop turns per line. Now a line costs no turn; what is left is
// mostly the four system calls (stat, open, read, close; ~60% of a profile)
// and Node's start-up (~70 ms).

import { fs } from './system.js';
import { toHex, type Blake3, type Blake3Hasher } from '../entries/node.js';
import type { Options } from './args.js';
import { parseCheckLine, type CheckLine } from './check-format.js';
import { describe, withoutPrefix } from './errors.js';
import { NAME } from './help.js';
import { err, Gathered, readSome } from './io.js';
import { chunks, feed, openSmallFile, READ_BUFFER } from './read.js';

/** Bytes of output each line is checked against (--length conflicts with --check). */
const DIGEST = 32;

const strictLine = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The checkfile's lines, each with its newline, read as Rust's read_line
 * reads them: one at a time, so output keeps pace with input (`beforeRead`
 * runs before each read of the checkfile); a line that is not UTF-8 ends the
 * file with an error, after the lines before it were checked. A BOM stays,
 * and fails the first line. Decoding a line in place instead of through
 * Buffer.concat saved nothing measurable (10^5 lines: 1.150 s vs 1.162 s). */
function* lines(checkfile: Buffer, beforeRead: () => void): Generator<string> {
  const decode = (pieces: Buffer[]) => {
    try {
      return strictLine.decode(Buffer.concat(pieces));
    } catch {
      throw new Error('stream did not contain valid UTF-8');
    }
  };
  // A line's pieces from earlier chunks (copied: chunks reuses its buffer).
  let partial: Buffer[] = [];
  for (const chunk of chunks(checkfile, beforeRead)) {
    let start = 0;
    for (let newline: number; (newline = chunk.indexOf(0x0a, start)) >= 0; start = newline + 1) {
      const line = decode([...partial, chunk.subarray(start, newline + 1)]);
      partial = [];
      yield line;
    }
    if (start < chunk.length) partial.push(Buffer.from(chunk.subarray(start)));
  }
  if (partial.length > 0) yield decode(partial);
}

class Checker {
  readonly #b3: Blake3;
  readonly #options: Options;
  readonly #out = new Gathered();
  readonly #buffer = Buffer.allocUnsafe(READ_BUFFER);
  failures = 0;

  constructor(b3: Blake3, options: Options) {
    this.#b3 = b3;
    this.#options = options;
  }

  /** All lines of one checkfile. */
  async file(checkfile: Buffer): Promise<void> {
    for (const line of lines(checkfile, () => this.#out.flush())) {
      // Synchronous for most lines: an await per line would cost a turn
      // of the event loop each.
      const answer = this.#line(line);
      if (answer === false || (answer !== true && !(await answer))) this.failures++;
    }
  }

  /** Writes what is waiting; before stderr, and before anything that may wait. */
  flush(): void {
    this.#out.flush();
  }

  warn(text: string): void {
    this.#out.flush();
    err(text);
  }

  /** One line's check: true for OK, false for FAILED or a malformed line. */
  #line(line: string): boolean | Promise<boolean> {
    let parsed: CheckLine;
    try {
      parsed = parseCheckLine(line);
    } catch (error) {
      this.warn(`${NAME}: ${(error as Error).message}`);
      return false;
    }
    // With --seek, b3sum compares the 32 output bytes from there: rare
    // enough to take the general path.
    if (this.#options.seek !== 0n) return this.#fed(parsed);
    let digest: Uint8Array | undefined;
    try {
      digest = this.#smallFile(parsed.path);
    } catch (error) {
      return this.#failed(parsed, error);
    }
    if (digest === undefined) return this.#fed(parsed);
    return this.#answer(parsed, toHex(digest));
  }

  /** A line whose file goes through feed(), as files are hashed. */
  async #fed(parsed: CheckLine): Promise<boolean> {
    this.#out.flush();
    const hasher = this.#b3.createHasher();
    const { seek } = this.#options;
    let found: string;
    try {
      await feed(Buffer.from(parsed.path), hasher, this.#options);
      // Past BLAKE3's last output byte too, as b3sum reads (the XOF reader's
      // block counter goes on).
      found = toHex(seek === 0n ? hasher.digest() : outputAt(hasher, seek));
    } catch (error) {
      return this.#failed(parsed, error);
    } finally {
      hasher.dispose();
    }
    return this.#answer(parsed, found);
  }

  #answer(parsed: CheckLine, found: string): boolean {
    if (found !== parsed.expectedHex) {
      this.#out.write(`${parsed.shown}: FAILED\n`);
      return false;
    }
    if (!this.#options.quiet) this.#out.write(`${parsed.shown}: OK\n`);
    return true;
  }

  #failed(parsed: CheckLine, error: unknown): false {
    this.#out.write(`${parsed.shown}: FAILED (${withoutPrefix(describe(error))})\n`);
    return false;
  }

  /** The digest of a small regular file (openSmallFile), read here to its
   * end; undefined for every other file, which feed() reads. */
  #smallFile(path: string): Uint8Array | undefined {
    const fd = openSmallFile(path);
    if (fd === undefined) return undefined;
    try {
      return this.#hashFd(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** All of `fd`'s content, as it is now: usually one read and the read
   * that finds the end, as b3sum reads a small file. */
  #hashFd(fd: number): Uint8Array {
    const buffer = this.#buffer;
    let hasher: Blake3Hasher | undefined;
    try {
      let filled = 0;
      for (let read: number; (read = readSome(fd, buffer, filled)) > 0; ) {
        filled += read;
        if (filled < buffer.length) continue;
        hasher ??= this.#b3.createHasher();
        hasher.update(buffer);
        filled = 0;
      }
      if (hasher === undefined) return this.#b3.hash(buffer.subarray(0, filled));
      hasher.update(buffer.subarray(0, filled));
      return hasher.digest();
    } finally {
      hasher?.dispose();
    }
  }
}

/** DIGEST bytes of `hasher`'s output from `position` on. A function of its
 * own for `using` (see writeHasherOutput in main.ts). */
function outputAt(hasher: Blake3Hasher, position: bigint): Uint8Array {
  using reader = hasher.xof();
  reader.position = position;
  return reader.read(DIGEST);
}

export async function checkFiles(b3: Blake3, options: Options): Promise<number> {
  const checker = new Checker(b3, options);
  try {
    for (const checkfile of options.files) await checker.file(checkfile);
  } finally {
    // Before main() prints an error (a checkfile that is missing or not
    // UTF-8), as b3sum's answers are out before it.
    checker.flush();
  }
  const { failures } = checker;
  if (failures > 0) checker.warn(`${NAME}: WARNING: ${failures} computed checksum${failures === 1 ? '' : 's'} did NOT match`);
  return failures > 0 ? 1 : 0;
}
