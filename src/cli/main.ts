// A b3sum-compatible command: the same options, the same output byte for
// byte, the same checkfile rules and exit codes (0 ok, 1 a failure, 2 usage).
// With the native addon, regular files are hashed by the official crate on
// all cores (memory-mapped unless --no-mmap, as b3sum does); otherwise reads
// go through one reused 1 MiB buffer. Memory stays flat for any file size.

import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { constants } from 'node:os';
import { NativeHasher, configureParallel, init, toHex, type Blake3, type Blake3Hasher } from '../node.js';
import { parseOptions, USAGE, UsageError, type Options } from './args.js';
import { parseCheckLine, printablePath } from './check-format.js';
import { Progress } from './progress.js';

declare const __VERSION__: string;

const NAME = 'blake3-kit';
const READ_SIZE = 1 << 20;
/** Native steps: each is one thread-pool round trip and one progress update. */
const NATIVE_STEP = 16 << 20;
const OUTPUT_PIECE = 32 * 1024;

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
};

function describe(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  const errno = code === undefined ? undefined : (constants.errno as Record<string, number>)[code];
  if (code !== undefined && STRERROR[code] !== undefined && errno !== undefined) return `${STRERROR[code]} (os error ${errno})`;
  return message ?? String(error);
}

const out = (text: string | Uint8Array) => process.stdout.write(text);
const err = (text: string) => process.stderr.write(`${text}\n`);

let readBuffer: Buffer | undefined;

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Feeds a file, or stdin for `-`, into `hasher`. */
async function feed(path: string, hasher: Blake3Hasher, options: Options): Promise<void> {
  if (path === '-') {
    if (options.keyed) throw new Error('Cannot open `-` in keyed mode');
    for await (const chunk of process.stdin) hasher.update(chunk as Buffer);
    return;
  }
  const fd = openSync(path, 'r');
  try {
    const stats = fstatSync(fd);
    const progress = Progress.maybe(stats.size, path);
    if (hasher instanceof NativeHasher && stats.isFile()) {
      // Up to the size at open, like b3sum's mapping; a file that shrank
      // meanwhile is hashed as far as it goes. Without a progress line, one
      // step: the threads stay busy to the end (1 GiB, 2 threads: 16 MiB
      // steps 169 ms, one task 145 ms, b3sum 154 ms).
      const step = progress ? NATIVE_STEP : stats.size;
      for (let offset = 0, got = 1; offset < stats.size && got > 0; offset += got) {
        got = await hasher.updateFromFd(fd, offset, Math.min(step, stats.size - offset), !options.noMmap);
        progress?.advance(got);
      }
      progress?.finish();
      return;
    }
    const buffer = (readBuffer ??= Buffer.allocUnsafe(READ_SIZE));
    for (let read: number; (read = readSync(fd, buffer, 0, READ_SIZE, null)) > 0; ) {
      hasher.update(buffer.subarray(0, read));
      progress?.advance(read);
    }
    progress?.finish();
  } finally {
    closeSync(fd);
  }
}

function writeOutput(hasher: Blake3Hasher, path: string, options: Options): void {
  using reader = hasher.xof();
  reader.position = options.seek;
  const pieces = (write: (bytes: Uint8Array) => void) => {
    for (let left = options.length; left > 0n; ) {
      const size = left < BigInt(OUTPUT_PIECE) ? Number(left) : OUTPUT_PIECE;
      write(reader.read(size));
      left -= BigInt(size);
    }
  };
  if (options.raw) {
    pieces((bytes) => out(bytes));
    return;
  }
  if (options.noNames) {
    pieces((bytes) => out(toHex(bytes)));
    out('\n');
    return;
  }
  const { text, escaped } = printablePath(path);
  if (escaped) out('\\');
  if (options.tag) {
    out(`BLAKE3 (${text}) = `);
    pieces((bytes) => out(toHex(bytes)));
    out('\n');
  } else {
    pieces((bytes) => out(toHex(bytes)));
    out(`  ${text}\n`);
  }
}

async function readKey(): Promise<Uint8Array> {
  const key = await readStdin();
  if (key.length < 32) throw new Error(`expected 32 key bytes from stdin, found ${key.length}`);
  if (key.length > 32) throw new Error('read more than 32 key bytes from stdin');
  return key;
}

async function hashFiles(options: Options, newHasher: () => Blake3Hasher): Promise<number> {
  let failed = false;
  for (const path of options.files) {
    const hasher = newHasher();
    try {
      await feed(path, hasher, options);
      writeOutput(hasher, path, options);
    } catch (error) {
      failed = true;
      err(`${NAME}: ${path}: ${describe(error)}`);
    } finally {
      hasher.dispose();
    }
  }
  return failed ? 1 : 0;
}

async function checkFiles(b3: Blake3, options: Options): Promise<number> {
  let failures = 0;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (const checkfile of options.files) {
    const lines = decoder.decode(checkfile === '-' ? await readStdin() : readFileSync(checkfile)).split('\n');
    if (lines.at(-1) === '') lines.pop();
    for (const line of lines) {
      let parsed: ReturnType<typeof parseCheckLine>;
      try {
        parsed = parseCheckLine(line);
      } catch (error) {
        err(`${NAME}: ${(error as Error).message}`);
        failures++;
        continue;
      }
      const hasher = b3.createHasher();
      let found: string;
      try {
        await feed(parsed.path, hasher, options);
        found = toHex(hasher.digest());
      } catch (error) {
        out(`${parsed.shown}: FAILED (${describe(error)})\n`);
        failures++;
        continue;
      } finally {
        hasher.dispose();
      }
      if (found === parsed.expectedHex) {
        if (!options.quiet) out(`${parsed.shown}: OK\n`);
      } else {
        out(`${parsed.shown}: FAILED\n`);
        failures++;
      }
    }
  }
  if (failures > 0) err(`${NAME}: WARNING: ${failures} computed checksum${failures === 1 ? '' : 's'} did NOT match`);
  return failures > 0 ? 1 : 0;
}

export async function main(argv: string[]): Promise<number> {
  let options: ReturnType<typeof parseOptions>;
  try {
    options = parseOptions(argv);
  } catch (error) {
    const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    if (!usage) {
      err(`Error: ${(error as Error).message}`);
      return 1;
    }
    err(`error: ${(error as Error).message}\n\nUsage: ${NAME} [OPTIONS] [FILE]...\n\nFor more information, try '--help'.`);
    return 2;
  }
  if (options === 'help') return out(USAGE), 0;
  if (options === 'version') return out(`${NAME} ${__VERSION__}\n`), 0;
  const b3 = await init();
  // 0 and no flag both mean one thread per core, as for b3sum.
  if (options.numThreads !== undefined) configureParallel({ workers: options.numThreads });
  try {
    if (options.check) return await checkFiles(b3, options);
    const key = options.keyed ? await readKey() : undefined;
    const { deriveKey: context } = options;
    const newHasher = () => b3.createHasher(key ? { key } : context !== undefined ? { context } : undefined);
    return await hashFiles(options, newHasher);
  } catch (error) {
    err(`Error: ${describe(error)}`);
    return 1;
  }
}
