// A b3sum-compatible command: the same options, the same output byte for
// byte, the same checkfile rules and exit codes (0 ok, 1 a failure, 2 usage).
// Files are read by hashFile's feeder (src/node/feed.ts) under b3sum's
// policy: with the native addon, regular files of 16 KiB or more are hashed
// by the official crate on all cores (memory-mapped unless --no-mmap, up to
// the size at open), everything else is read to its end, whatever size it
// reports (procfs says 0, sysfs 4096), and a file that shrinks is hashed as
// far as it goes. Memory stays flat for any file size. --check reads small
// regular files itself (check.ts).

import { configureParallel, init, toHex, type Blake3, type Blake3Hasher, type Blake3XofReader, type KeyOption } from '../entries/node.js';
import { parseOptions, UsageError, type Options } from './args.js';
import { rawArgs } from './argv.js';
import { checkFiles } from './check.js';
import { displayPath, printablePath } from './check-format.js';
import { describe, withoutPrefix } from './errors.js';
import { LONG_HELP, NAME, SHORT_HELP } from './help.js';
import { StdoutError, err, out } from './io.js';
import { chunks, feed, STDIN } from './read.js';

declare const __VERSION__: string;

/** Output bytes per write to stdout. */
const OUTPUT_WRITE = 32 * 1024;
/** The addon's thread limit; b3sum takes any count, and more can't help. */
const MAX_THREADS = 1024n;
/** Rust's exit status after a panic, which is how b3sum's print! fails. */
const PANIC_STATUS = 101;

/** A hasher for the mode asked for (with the addon, its threads read files). */
function hasherFor(b3: Blake3, options?: KeyOption): Blake3Hasher {
  return b3.createHasher(options);
}

/** The addon alone where it loads, unless BLAKE3_KIT_BACKEND says
 * otherwise: a command hashes files on the addon either way, and compiling
 * and self-testing wasm as well cost ~10 ms of a 80 ms run on a 5-byte file
 * (Node 20.20, 2-core EPYC). Elsewhere, the default. */
function initForCommand(): Promise<Blake3> {
  if (process.env.BLAKE3_KIT_BACKEND) return init();
  return init({ backend: 'native' }).catch(() => init());
}

/** The CLI's modes: hash, --keyed (the key) or --derive-key (the context). */
type ModeOptions = { key: Uint8Array } | { context: string } | undefined;

/** Output from --seek on, past BLAKE3's last output byte too, as b3sum
 * prints it: the XOF reader's block counter goes on, as the official
 * OutputReader's does. */
function writeOutput(reader: Blake3XofReader, path: Buffer, options: Options): void {
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

async function hashFiles(options: Options, b3: Blake3, mode: ModeOptions): Promise<number> {
  let failed = false;
  for (const path of options.files) {
    const hasher = hasherFor(b3, mode);
    try {
      await feed(path, hasher, options);
      writeHasherOutput(hasher, path, options);
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
    const b3 = await initForCommand();
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
