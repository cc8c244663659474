// Feeding a file to a hasher by its content, read to the end, never by the
// size fstat reports: procfs says 0 bytes, sysfs 4096, for files that hold
// a few dozen. Shared by hashFile() and the CLI, whose policies differ where
// b3sum's do (see FeedPolicy).
//
// A file is opened once and everything reads that one descriptor: a FIFO
// opened a second time after its writer has gone never reports its end (the
// kernel signals hang-up only to readers that were there for a writer).
// Regular files: with a hasher on the addon, the official crate reads (or maps)
// them off the JS thread on all cores, in NATIVE_STEP steps when there is
// progress to report or a signal to watch, else in one task; otherwise two
// reused buffers, the next read in libuv's thread pool while the current
// piece is hashed. FIFOs and pipes have no positions (ESPIPE): they are read
// as they flow, polled by libuv, so that an abort ends the wait for a writer
// or for data. Other files (devices) are read sequentially.

import type { PathLike, Stats } from 'node:fs';
import type { Socket } from 'node:net';
import { once } from 'node:events';
import { fs, net, timersPromises, util } from './builtins.js';
import { NATIVE_STEP } from '../native/absorb.js';
import { Hasher } from '../hasher.js';

/** Bytes per read on this thread. */
const READ_BYTES = 1 << 20;
/** Milliseconds between reads of a device that has nothing yet. */
const DEVICE_PAUSE = 10;
/** Opening a FIFO without it waits for a writer, in a libuv thread that no
 * abort can free. It changes nothing for regular files. */
const OPEN_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK;
/** b3sum maps regular files of at least this many bytes, and reads smaller
 * ones (and procfs/sysfs files, whose size is 0 or a guess). */
export const MAP_FROM = 16 * 1024;

/** The error for a file that shrank while it was hashed. */
export class FileTruncatedError extends Error {
  readonly code = 'ERR_FILE_TRUNCATED';
  /** `expected`: the size when opened; `read`: the size it had at the end. */
  constructor(
    readonly path: string,
    readonly expected: number,
    readonly read: number,
    options?: ErrorOptions,
  ) {
    super(`blake3-kit: ${path} was truncated while being hashed: it had ${expected} bytes, then ${read}`, options);
  }
}

/** What hashFile and the CLI do differently, on purpose. */
export interface FeedPolicy {
  /** On the addon only: map regular files of MAP_FROM bytes or more. */
  mmap: boolean;
  signal?: AbortSignal | undefined;
  /** Bytes done, with the reported size as total while reads stay within it. */
  progress?: ((done: number, total: number | undefined) => void) | undefined;
  /**
   * A regular file that shrank while it was hashed: `reject` with
   * FileTruncatedError (hashFile: the bytes hashed are of a file that never
   * existed), or `hash` it as far as it went (b3sum, and so the CLI). With
   * `hash`, a mapped file is also hashed only up to its size at open, as
   * b3sum's mapping is.
   */
  shrunk: 'reject' | 'hash';
}

const openFd = util.promisify(fs.open);
const fstatFd = util.promisify(fs.fstat);
const closeFd = util.promisify(fs.close);
const readFd = util.promisify(fs.read);

/** A file opened once for hashing; everything reads its one descriptor. */
export class OpenFile {
  /** What fstat said of it at open. */
  readonly stats: Stats;
  /** How errors name it. */
  readonly name: string;
  readonly fd: number;
  /** A FIFO's or pipe's reader, which owns the descriptor once made. */
  #socket: Socket | undefined;
  #closed = false;

  private constructor(fd: number, stats: Stats, name: string) {
    this.fd = fd;
    this.stats = stats;
    this.name = name;
  }

  /** Opens `path` for hashing, never blocking on a FIFO without a writer. */
  static async open(path: PathLike): Promise<OpenFile> {
    const name = pathName(path);
    const fd = await openFd(path, OPEN_FLAGS);
    try {
      return new OpenFile(fd, await fstatFd(fd), name);
    } catch (error) {
      await closeFd(fd);
      throw error;
    }
  }

  /** Reads into all of `into` at most, from `position` (null: where the
   * descriptor stands); resolves to the bytes read, 0 at the end. */
  async read(into: Uint8Array, position: number | null): Promise<number> {
    return (await readFd(this.fd, into, 0, into.length, position)).bytesRead;
  }

  stat(): Promise<Stats> {
    return fstatFd(this.fd);
  }

  /** The descriptor as a socket that libuv polls, so that no thread blocks
   * in read() and an abort, which destroys it, ends any wait at once. The
   * socket closes the descriptor. */
  socket(): Socket {
    this.#socket ??= new (net().Socket)({ fd: this.fd, readable: true, writable: false });
    return this.#socket;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const socket = this.#socket;
    if (socket === undefined) return closeFd(this.fd);
    if (socket.closed) return;
    const closed = once(socket, 'close');
    socket.destroy();
    await closed;
  }
}

/** Throws FileTruncatedError if `file` is now shorter than when opened. */
export async function checkNotShrunk(file: OpenFile, cause?: unknown): Promise<void> {
  const now = (await file.stat()).size;
  if (now < file.stats.size) throw new FileTruncatedError(file.name, file.stats.size, now, cause === undefined ? undefined : { cause });
}

/** The addon's own ERR_FILE_TRUNCATED (a mapped file shrank: its pages past
 * the new end read as zeros, so it gives no digest), as opposed to ours. */
export function addonTruncated(e: unknown): boolean {
  return !(e instanceof FileTruncatedError) && (e as { code?: unknown } | null)?.code === 'ERR_FILE_TRUNCATED';
}

/** What content is fed to: a Hasher, or anything that takes bytes in order. */
export interface ByteSink {
  update(bytes: Uint8Array): unknown;
}

/** Feeds all of `file`'s content to `hasher` under `policy`. */
export async function feedFile(file: OpenFile, hasher: ByteSink, policy: FeedPolicy): Promise<void> {
  const { stats } = file;
  const { signal, progress } = policy;
  if (stats.isFIFO()) return readPipe(file, hasher, signal, progress);
  // Devices; a directory fails here with EISDIR.
  if (!stats.isFile()) return readSequentially(file, hasher, signal, progress);
  const size = stats.size;
  const report = progress && ((done: number) => progress(done, done <= size ? size : undefined));
  try {
    if (onAddon(hasher)) await readNative(file, hasher, policy, report);
    else await readRegular(file, hasher, signal, report);
    if (policy.shrunk === 'reject') await checkNotShrunk(file);
  } catch (e) {
    if (addonTruncated(e) && policy.shrunk === 'reject') await checkNotShrunk(file, e);
    throw e;
  }
}

/** Whether the addon's threads can read the file into `hasher`. */
function onAddon(hasher: ByteSink): hasher is Hasher {
  return hasher instanceof Hasher && hasher.supports('updateFromFd');
}

/** A regular file through the addon, in steps that each end at NATIVE_STEP
 * or at the end of the file; one step if nothing is reported or watched:
 * the threads stay busy from the first byte to the last (1 GiB cached, 2
 * threads: one task 145 ms, 16 MiB steps 169 ms, b3sum 154 ms). */
async function readNative(file: OpenFile, hasher: Hasher, policy: FeedPolicy, report: ((done: number) => void) | undefined): Promise<void> {
  const { signal, mmap } = policy;
  const map = mmap && file.stats.size >= MAP_FROM;
  // b3sum maps the size at open; reads go on to the end.
  const end = map && policy.shrunk === 'hash' ? file.stats.size : Number.MAX_SAFE_INTEGER;
  const step = report || signal ? NATIVE_STEP : Number.MAX_SAFE_INTEGER;
  for (let done = 0; done < end; ) {
    signal?.throwIfAborted();
    const want = Math.min(step, end - done);
    const got = await hasher.updateFromFd(file.fd, done, want, map, signal);
    done += got;
    if (got > 0) report?.(done);
    if (got < want) return; // end of file
  }
}

/** What a FileTruncatedError calls the file; `path` checked on the way. */
export function pathName(path: unknown): string {
  if (typeof path === 'string') return path;
  if (path instanceof URL) return path.href;
  if (path instanceof Uint8Array) return Buffer.from(path.buffer, path.byteOffset, path.length).toString();
  throw new TypeError(`blake3-kit: path must be a string, URL or Buffer; got ${path === null ? 'null' : typeof path}`);
}

/** A regular file on this thread, to its end: two buffers, the next read in
 * flight while the current piece is hashed. */
async function readRegular(
  file: OpenFile,
  hasher: ByteSink,
  signal: AbortSignal | undefined,
  progress: ((done: number) => void) | undefined,
): Promise<void> {
  const buffers = [Buffer.allocUnsafe(READ_BYTES), Buffer.allocUnsafe(READ_BYTES)];
  let done = 0;
  let pending: Promise<number> | undefined = file.read(buffers[0]!, 0);
  try {
    for (let turn = 0; ; turn ^= 1) {
      const bytesRead: number = await pending;
      pending = undefined;
      signal?.throwIfAborted();
      if (bytesRead === 0) return;
      pending = file.read(buffers[turn ^ 1]!, done + bytesRead);
      hasher.update(buffers[turn]!.subarray(0, bytesRead));
      done += bytesRead;
      progress?.(done);
    }
  } finally {
    await pending?.catch(() => {}); // a read still in flight after an abort
  }
}

/** A file without positions that is not a FIFO (a device), from its current
 * position to its end. Opened non-blocking, a device with nothing to read
 * yet (a terminal) answers EAGAIN: it is asked again after a pause, as a
 * blocking read would have waited. */
async function readSequentially(
  file: OpenFile,
  hasher: ByteSink,
  signal: AbortSignal | undefined,
  onProgress: ((done: number, total?: number) => void) | undefined,
): Promise<void> {
  const buffer = Buffer.allocUnsafe(READ_BYTES);
  for (let done = 0; ; ) {
    let bytesRead: number;
    try {
      bytesRead = await file.read(buffer, null);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'EAGAIN') throw error;
      await timersPromises().setTimeout(DEVICE_PAUSE);
      signal?.throwIfAborted();
      continue;
    }
    signal?.throwIfAborted();
    if (bytesRead === 0) return;
    hasher.update(buffer.subarray(0, bytesRead));
    onProgress?.((done += bytesRead), undefined);
  }
}

/**
 * A FIFO or pipe (`/dev/stdin` when it is one), read as it flows from the
 * descriptor it was opened with, which libuv polls (OpenFile.socket). The
 * descriptor stays open until this settles, so that a writer never finds
 * the FIFO without a reader (EPIPE).
 */
async function readPipe(
  file: OpenFile,
  hasher: ByteSink,
  signal: AbortSignal | undefined,
  onProgress: ((done: number, total?: number) => void) | undefined,
): Promise<void> {
  const socket = file.socket();
  return new Promise<void>((resolve, reject) => {
    let failure: { error: unknown } | undefined;
    let ended = false;
    let done = 0;
    const fail = (error: unknown) => {
      failure ??= { error };
      socket.destroy();
    };
    const onAbort = () => fail(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.on('data', (chunk: Buffer) => {
      try {
        hasher.update(chunk);
        onProgress?.((done += chunk.length), undefined);
      } catch (error) {
        fail(error);
      }
    });
    socket.on('end', () => (ended = true));
    socket.on('error', fail);
    // Settles only once the descriptor is closed.
    socket.on('close', () => {
      signal?.removeEventListener('abort', onAbort);
      if (failure) reject(failure.error);
      else if (ended) resolve();
      else reject(new Error(`blake3-kit: ${file.name} closed before its end`));
    });
    if (signal?.aborted) onAbort();
  });
}
