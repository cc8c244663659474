// A b3sum-compatible command: the same options, the same output byte for
// byte, the same checkfile rules and exit codes (0 ok, 1 a failure, 2 usage).
// Files are read by hashFile's feeder (src/node/feed.ts) under b3sum's
// policy: with the native addon, regular files of 16 KiB or more are hashed
// by the official crate on all cores (memory-mapped unless --no-mmap, up to
// the size at open), everything else is read to its end, whatever size it
// reports (procfs says 0, sysfs 4096), and a file that shrinks is hashed as
// far as it goes. Memory stays flat for any file size.

import { closeSync, openSync } from 'node:fs';
import { constants } from 'node:os';
import { configureParallel, init, toHex, updateFromFile, type Blake3, type Blake3Hasher, type KeyOption } from '../node.js';
import { parseOptions, UsageError, type Options } from './args.js';
import { rawArgs } from './argv.js';
import { displayPath, parseCheckLine, printablePath } from './check-format.js';
import { LONG_HELP, NAME, SHORT_HELP } from './help.js';
import { StdoutError, err, out, readSome } from './io.js';
import { OUTPUT_END, RootTracker, type ModeOptions } from './past-end.js';
import { Progress } from './progress.js';

declare const __VERSION__: string;

/** Output bytes per write to stdout. */
const OUTPUT_WRITE = 32 * 1024;
/** The addon's thread limit; b3sum takes any count, and more can't help. */
const MAX_THREADS = 1024n;
/** Rust's exit status after a panic, which is how b3sum's print! fails. */
const PANIC_STATUS = 101;
const STDIN = Buffer.from('-');

// Messages as Rust's std::io::Error prints them, so errors read like b3sum's.
const STRERROR: Record<string, string> = {
  ENOENT: 'No such file or directory',
  EISDIR: 'Is a directory',
  EACCES: 'Permission denied',
  EPERM: 'Operation not permitted',
  ENOTDIR: 'Not a directory',
  ELOOP: 'Too many levels of symbolic links',
  ENAMETOOLONG: 'File name too long',
  EIO: 'Input/output error',
  EMFILE: 'Too many open files',
  ENXIO: 'No such device or address',
  EPIPE: 'Broken pipe',
  EINVAL: 'Invalid argument',
  ENODEV: 'No such device',
  ETXTBSY: 'Text file busy',
  ENOMEM: 'Cannot allocate memory',
  EAGAIN: 'Resource temporarily unavailable',
};

function describe(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  const errno = code === undefined ? undefined : (constants.errno as Record<string, number>)[code];
  if (code !== undefined && STRERROR[code] !== undefined && errno !== undefined) return `${STRERROR[code]} (os error ${errno})`;
  return message ?? code ?? String(error);
}

/** Chunks of stdin, or of the file at `path`, read in order to EOF. Each
 * call has its own buffer: a checkfile's chunk must outlive the hashing of
 * the files it names. */
function* chunks(path: Buffer): Generator<Buffer> {
  const stdin = path.equals(STDIN);
  const fd = stdin ? 0 : openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(64 * 1024);
    for (let read: number; (read = readSome(fd, buffer)) > 0; ) yield buffer.subarray(0, read);
  } finally {
    if (!stdin) closeSync(fd);
  }
}

/** What a file is fed to: a hasher, or a hasher and past-end.ts's tracker. */
type ByteSink = { update(bytes: Uint8Array): unknown };

/** Feeds a file, or stdin for `-`, into `hasher`: all of its content, as b3sum does. */
async function feed(path: Buffer, hasher: ByteSink, options: Options): Promise<void> {
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

/** A hasher for the mode asked for (with the addon, its threads read files). */
function hasherFor(b3: Blake3, options?: KeyOption): Blake3Hasher {
  return b3.createHasher(options);
}

/** Output from --seek on: the library's, or past its end (past-end.ts). */
interface OutputSource {
  read(length: number): Uint8Array;
}

function writeOutput(reader: OutputSource, path: Buffer, options: Options): void {
  // Written piece by piece, as b3sum prints: --length may exceed any buffer.
  const pieces = (write: (bytes: Uint8Array) => void) => {
    for (let left = options.length; left > 0n; ) {
      const size = left < BigInt(OUTPUT_WRITE) ? Number(left) : OUTPUT_WRITE;
      write(reader.read(size));
      left -= BigInt(size);
    }
  };
  const hex = () => pieces((bytes) => out(toHex(bytes)));
  if (options.raw) {
    pieces(out);
    return;
  }
  if (options.noNames) {
    hex();
    out('\n');
    return;
  }
  const { text, escaped } = printablePath(path);
  if (escaped) out('\\');
  if (options.tag) {
    out(`BLAKE3 (${text}) = `);
    hex();
    out('\n');
  } else {
    hex();
    out(`  ${text}\n`);
  }
}

/** The library's output from --seek on. A function of its own: esbuild
 * lowers `using` with function-scoped variables, which, inside hashFiles'
 * loop, would rethrow one file's error after the next file too. */
function writeHasherOutput(hasher: Blake3Hasher, path: Buffer, options: Options): void {
  using reader = hasher.xof();
  reader.position = options.seek;
  writeOutput(reader, path, options);
}

/** At most 33 bytes, as b3sum reads: an endless stdin is no reason to hang. */
function readKey(): Uint8Array {
  let key = Buffer.alloc(0);
  for (const chunk of chunks(STDIN)) {
    key = Buffer.concat([key, chunk]);
    if (key.length > 32) throw new Error('read more than 32 key bytes from stdin');
  }
  if (key.length < 32) throw new Error(`expected 32 key bytes from stdin, found ${key.length}`);
  return key;
}

/** A library error's text without our prefix: b3sum prefixes it once, with the file. */
const withoutPrefix = (text: string) => text.replace(/^blake3-kit: /, '');

async function hashFiles(options: Options, b3: Blake3, mode: ModeOptions): Promise<number> {
  let failed = false;
  // b3sum prints output past BLAKE3's last byte, which the library refuses.
  const pastEnd = options.seek + options.length > OUTPUT_END;
  for (const path of options.files) {
    const hasher = hasherFor(b3, mode);
    try {
      if (pastEnd) {
        const tracker = new RootTracker(mode);
        await feed(path, { update: (bytes) => (hasher.update(bytes), tracker.update(bytes)) }, options);
        writeOutput(tracker.reader(options.seek, hasher), path, options);
      } else {
        await feed(path, hasher, options);
        writeHasherOutput(hasher, path, options);
      }
    } catch (error) {
      // b3sum's raw output goes through io::copy, whose error is the file's;
      // hex output goes through print!, which panics (see main).
      if (error instanceof StdoutError && !options.raw) throw error;
      failed = true;
      err(`${NAME}: ${displayPath(path)}: ${withoutPrefix(describe(error instanceof StdoutError ? { code: error.code } : error))}`);
    } finally {
      hasher.dispose();
    }
  }
  return failed ? 1 : 0;
}

const strictLine = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The checkfile's lines, each with its newline, read as Rust's read_line
 * reads them: one at a time, so output keeps pace with input; a line that is
 * not UTF-8 ends the file with an error, after the lines before it were
 * checked. A BOM stays, and fails the first line. */
function* lines(checkfile: Buffer): Generator<string> {
  const decode = (pieces: Buffer[]) => {
    try {
      return strictLine.decode(Buffer.concat(pieces));
    } catch {
      throw new Error('stream did not contain valid UTF-8');
    }
  };
  // A line's pieces from earlier chunks (copied: chunks reuses its buffer).
  let partial: Buffer[] = [];
  for (const chunk of chunks(checkfile)) {
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

async function checkLine(b3: Blake3, line: string, options: Options): Promise<boolean> {
  let parsed: ReturnType<typeof parseCheckLine>;
  try {
    parsed = parseCheckLine(line);
  } catch (error) {
    err(`${NAME}: ${(error as Error).message}`);
    return false;
  }
  const hasher = hasherFor(b3);
  let found: string;
  try {
    await feed(Buffer.from(parsed.path), hasher, options);
    found = toHex(hasher.digest());
  } catch (error) {
    out(`${parsed.shown}: FAILED (${withoutPrefix(describe(error))})\n`);
    return false;
  } finally {
    hasher.dispose();
  }
  if (found !== parsed.expectedHex) {
    out(`${parsed.shown}: FAILED\n`);
    return false;
  }
  if (!options.quiet) out(`${parsed.shown}: OK\n`);
  return true;
}

async function checkFiles(b3: Blake3, options: Options): Promise<number> {
  let failures = 0;
  for (const checkfile of options.files) {
    for (const line of lines(checkfile)) {
      if (!(await checkLine(b3, line, options))) failures++;
    }
  }
  if (failures > 0) err(`${NAME}: WARNING: ${failures} computed checksum${failures === 1 ? '' : 's'} did NOT match`);
  return failures > 0 ? 1 : 0;
}

function usageError(error: UsageError): number {
  const usage = error.usage ? `\n\nUsage: ${NAME} [OPTIONS] [FILE]...` : '';
  err(`error: ${error.message}${usage}\n\nFor more information, try '--help'.`);
  return 2;
}

export async function main(argv: readonly string[]): Promise<number> {
  let options: ReturnType<typeof parseOptions>;
  try {
    options = parseOptions(rawArgs(argv));
  } catch (error) {
    if (error instanceof UsageError) return usageError(error);
    throw error;
  }
  try {
    if ('help' in options) return (out(options.help === 'long' ? LONG_HELP : SHORT_HELP), 0);
    if ('version' in options) return (out(`${NAME} ${__VERSION__}\n`), 0);
    if (options.raw && options.files.length > 1) throw new Error('Only one filename can be provided when using --raw');
    const b3 = await init();
    // 0 and no flag both mean one thread per core, as for b3sum.
    const threads = options.numThreads;
    if (threads !== undefined) configureParallel({ workers: Number(threads < MAX_THREADS ? threads : MAX_THREADS) });
    if (options.check) return await checkFiles(b3, options);
    const key = options.keyed ? readKey() : undefined;
    const { deriveKey: context } = options;
    return await hashFiles(options, b3, key ? { key } : context !== undefined ? { context } : undefined);
  } catch (error) {
    if (error instanceof StdoutError) {
      // b3sum's print! panics here; we say why in one line, with its status.
      err(`${NAME}: failed printing to stdout: ${describe({ code: error.code })}`);
      return PANIC_STATUS;
    }
    err(`Error: ${describe(error)}`);
    return 1;
  }
}
