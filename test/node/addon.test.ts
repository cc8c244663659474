// The addon's raw API (crate/node), below the TypeScript layer that
// validates for it: official vectors, the hasher's life cycle, async updates,
// fds, files, argument errors and aborts. test/node/native.test.ts tests the
// addon as a backend, through the package. Runs in node-auto only.
import { spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { blake3 as noble } from '@noble/hashes/blake3.js';
import { init, nativeStatus } from 'blake3-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { NATIVE_ABI_VERSION, addon } from '../../src/native/addon.js';
import { createHasher as createWasmHasher } from '../../src/hasher.js';
import outputEdges from '../output-edges.json';
import vectors from '../vectors.json';
import { CONTEXT, KEY, pattern } from '../shared/setup.js';

await init();
if (addon === undefined) throw new Error('the addon did not load', { cause: nativeStatus().error });
const b = addon;

type NodeError = Error & { code?: string; errno?: number; syscall?: string; path?: string };
type Key = Uint8Array | null;

const MiB = 1024 * 1024;
/** Async updates check for an abort between pieces this long (crate/node/src/tasks.rs). */
const PIECE = 16 * MiB;
const TWO_32 = 2 ** 32;

const hex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
const CONTEXT_KEY = b.contextKey(CONTEXT);
const MODES = [
  ['hash', 0, null],
  ['keyed_hash', 1, KEY],
  ['derive_key', 2, CONTEXT_KEY],
] as const;

/** hashInto's output, as hex: the reference the other paths are held to. */
function oneShot(mode: number, key: Key, input: Uint8Array, length = 32): string {
  const out = new Uint8Array(length);
  b.hashInto(mode, key, input, out);
  return hex(out);
}

type Filler = { fill(out: Uint8Array, counterLo: number, counterHi: number, skip: number): void };

function digest(hasher: Filler, length = 32): string {
  const out = new Uint8Array(length);
  hasher.fill(out, 0, 0, 0);
  return hex(out);
}

/** fill() from output byte `position` (its block counter and offset). */
function fillAt(hasher: Filler, out: Uint8Array, position: bigint | number): void {
  const at = BigInt(position);
  const counter = at >> 6n;
  hasher.fill(out, Number(counter & 0xffffffffn), Number(counter >> 32n), Number(at & 63n));
}

function concat(head: Uint8Array, tail: Uint8Array): Uint8Array {
  const out = new Uint8Array(head.length + tail.length);
  out.set(head);
  out.set(tail, head.length);
  return out;
}

function thrown(f: () => unknown): NodeError {
  try {
    f();
  } catch (error) {
    return error as NodeError;
  }
  throw new Error('expected a throw, got none');
}

async function rejection(promise: Promise<unknown>): Promise<NodeError> {
  try {
    await promise;
  } catch (error) {
    return error as NodeError;
  }
  throw new Error('expected a rejection, got a value');
}

function expectBusy(f: () => unknown): void {
  const error = thrown(f);
  expect(error.code).toBe('ERR_INVALID_STATE');
  expect(error.message).toBe('hasher is busy with an async update');
}

const dir = mkdtempSync(join(tmpdir(), 'blake3-kit-addon-'));
const fifo = join(dir, 'fifo');
afterAll(() => {
  b.setThreads(0);
  // Should a hashFile test have failed while a reader waits on the FIFO,
  // let that reader go so it does not hold a libuv thread forever.
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {}
  rmSync(dir, { recursive: true, force: true });
});
if (spawnSync('mkfifo', [fifo]).status !== 0) throw new Error(`mkfifo ${fifo} failed`);

function file(name: string, content: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

// More than two async pieces, and not a multiple of one: a wrong piece
// offset shows, as PIECE is not a multiple of the pattern's period (251).
const big = pattern(2 * PIECE + 5 * MiB + 1025, 3);
const bigDigest = oneShot(0, null, big);
const smallData = pattern(3 * MiB);
const smallFile = file('small.bin', smallData);
const bigFile = file('big.bin', big);

describe('the addon', () => {
  it('has the ABI version the loader expects', () => {
    expect(b.abiVersion()).toBe(8);
    expect(NATIVE_ABI_VERSION).toBe(8);
  });

  it('names the kernels this CPU allows, as the kernel reports them', () => {
    const features = b.cpuFeatures();
    expect(typeof features).toBe('string');
    if (process.arch === 'x64') {
      const flags = new Set(
        readFileSync('/proc/cpuinfo', 'utf8')
          .match(/^flags\s*:(.*)$/m)![1]!
          .trim()
          .split(/\s+/),
      );
      const expected = ['avx512f', 'avx512vl', 'avx2', 'sse4.1', 'sse2'].filter((f) => flags.has(f.replace('.', '_')));
      expect(features).toBe(expected.join(' '));
    } else if (process.arch === 'arm64') {
      expect(features).toBe('neon');
    }
  });

  it('contextKey is the 32-byte derive_key key of the UTF-8 context, new each call', () => {
    expect(CONTEXT_KEY).toBeInstanceOf(Uint8Array);
    expect(CONTEXT_KEY).toHaveLength(32);
    const context = 'blake3-kit 2026 héllo ✓ 🦀';
    const key = b.contextKey(context);
    expect(oneShot(2, key, pattern(1025), 50)).toBe(
      hex(
        noble
          .create({ context: new TextEncoder().encode(context), dkLen: 50 })
          .update(pattern(1025))
          .digest(),
      ),
    );
    expect(hex(b.contextKey(''))).not.toBe(hex(key));
    key.fill(0);
    expect(hex(b.contextKey(context))).not.toBe(hex(key));
  });
});

describe('official vectors', () => {
  it('use the key and context of test/shared/setup.ts', () => {
    expect(vectors.key).toBe(new TextDecoder().decode(KEY));
    expect(vectors.context_string).toBe(CONTEXT);
    expect(vectors.cases).toHaveLength(35);
  });

  it.each(MODES)('%s: hashInto, a hasher fed in two halves, and output at position 100', (field, mode, key) => {
    for (const c of vectors.cases) {
      const expected = c[field];
      const input = pattern(c.input_len);
      expect(oneShot(mode, key, input, 131), `hashInto ${c.input_len}`).toBe(expected);
      const h = new b.NativeHasher(mode, key);
      const cut = c.input_len >> 1;
      h.update(input.subarray(0, cut));
      h.update(input.subarray(cut));
      expect(digest(h, 131), `NativeHasher ${c.input_len}`).toBe(expected);
      const window = new Uint8Array(31);
      fillAt(h, window, 100);
      expect(hex(window), `fill at 100, ${c.input_len}`).toBe(expected.slice(200));
    }
  });
});

describe('hashInto', () => {
  it('hashes as if separate an output that overlaps the input or the key', () => {
    const buffer = pattern(1000);
    b.hashInto(0, null, buffer, buffer.subarray(0, 32));
    expect(hex(buffer.subarray(0, 32))).toBe(oneShot(0, null, pattern(1000)));
    const shifted = pattern(1000);
    b.hashInto(0, null, shifted, shifted.subarray(500, 600)); // the output's start inside the input
    expect(hex(shifted.subarray(500, 600))).toBe(oneShot(0, null, pattern(1000), 100));
    const key = KEY.slice();
    b.hashInto(1, key, pattern(100), key);
    expect(hex(key)).toBe(oneShot(1, KEY, pattern(100)));
  });

  it('fills an empty output, and a long one as the hasher does', () => {
    expect(() => b.hashInto(0, null, new Uint8Array(0), new Uint8Array(0))).not.toThrow();
    const long = oneShot(1, KEY, pattern(5000), 100_000);
    expect(long).toBe(hex(noble(pattern(5000), { key: KEY, dkLen: 100_000 })));
    const h = new b.NativeHasher(1, KEY);
    h.update(pattern(5000));
    const tail = new Uint8Array(1000);
    fillAt(h, tail, 99_000);
    expect(hex(tail)).toBe(long.slice(2 * 99_000));
  });
});

describe('baoEncode', () => {
  it('writes the pre-order tree into all of out and returns the root hash or the subtree value', () => {
    const content = pattern(5000);
    const outboard = new Uint8Array(4 * 64);
    expect(hex(b.baoEncode(0, null, content, 0, 0, false, true, outboard))).toBe(oneShot(0, null, content));
    const combined = new Uint8Array(4 * 64 + 5000);
    b.baoEncode(0, null, content, 0, 0, true, true, combined);
    // The root node holds the values of the 4-chunk subtree and of the last chunk.
    const left = b.baoEncode(0, null, content.subarray(0, 4096), 0, 0, false, false, new Uint8Array(3 * 64));
    const right = b.baoEncode(0, null, content.subarray(4096), 4, 0, false, false, new Uint8Array(0));
    expect(hex(outboard.subarray(0, 64))).toBe(hex(left) + hex(right));
    expect(hex(combined.subarray(0, 64))).toBe(hex(outboard.subarray(0, 64)));
    expect(hex(combined.subarray(-904))).toBe(hex(content.subarray(4096)));
  });

  it('refuses a wrong out, chunkLog or subtree, and an out over the content, naming them', () => {
    const content = pattern(5000);
    const error = (f: () => unknown) => thrown(f) as Error & { code: string };
    expect(error(() => b.baoEncode(0, null, content, 0, 0, false, true, new Uint8Array(64))).message).toMatch(/^out /);
    expect(error(() => b.baoEncode(0, null, content, 0, 17, false, true, new Uint8Array(0))).message).toMatch(/^chunkLog /);
    expect(error(() => b.baoEncode(0, null, content, 4, 0, false, false, new Uint8Array(4 * 64))).message).toMatch(/^content /);
    expect(error(() => b.baoEncode(0, null, content, 4, 0, false, true, new Uint8Array(4 * 64))).message).toMatch(/^first /);
    const shared = new Uint8Array(5000 + 4 * 64);
    const overlap = error(() => b.baoEncode(0, null, shared.subarray(0, 5000), 0, 0, false, true, shared.subarray(4000)));
    expect(overlap).toBeInstanceOf(RangeError);
    expect(overlap.message).toMatch(/overlap/);
  });
});

describe('NativeHasher', () => {
  it('clone keeps its own state', () => {
    const h = new b.NativeHasher(0);
    h.update(pattern(100));
    const copy = h.clone();
    h.update(pattern(5));
    expect(digest(copy)).toBe(oneShot(0, null, pattern(100)));
    copy.update(pattern(7));
    expect(digest(h)).toBe(oneShot(0, null, concat(pattern(100), pattern(5))));
  });

  it('reset forgets the input and keeps the key', () => {
    const h = new b.NativeHasher(0);
    h.update(pattern(100));
    h.reset();
    expect(digest(h)).toBe(oneShot(0, null, new Uint8Array(0)));
    const keyed = new b.NativeHasher(1, KEY);
    keyed.update(pattern(100));
    keyed.reset();
    keyed.update(pattern(3));
    expect(digest(keyed)).toBe(oneShot(1, KEY, pattern(3)));
  });

  it('fill leaves the hasher as it was, so input can follow', () => {
    const h = new b.NativeHasher(2, CONTEXT_KEY);
    h.update(pattern(2000));
    expect(digest(h)).toBe(oneShot(2, CONTEXT_KEY, pattern(2000)));
    h.update(pattern(3000, 2000));
    expect(digest(h, 64)).toBe(oneShot(2, CONTEXT_KEY, pattern(5000), 64));
  });
});

describe('output near 2^64', () => {
  it('goes on past the last byte there is as the official reader does (test/output-edges.json)', () => {
    const modes = [
      ['hash', 0, null],
      ['keyed_hash', 1, KEY],
      ['derive_key', 2, b.contextKey(CONTEXT)],
    ] as const;
    for (const c of outputEdges.cases) {
      for (const [field, mode, key] of modes) {
        const h = new b.NativeHasher(mode, key);
        h.update(pattern(c.input_len));
        const out = new Uint8Array(c.length);
        fillAt(h, out, BigInt(c.position));
        expect(hex(out), `${field} ${c.input_len} B at ${c.position}`).toBe(c[field]);
      }
    }
  });

  it.each(MODES)('%s: gives what the wasm reader gives at the end and across 2^32', (_, mode, key) => {
    const input = pattern(1025);
    const h = new b.NativeHasher(mode, key);
    h.update(input);
    using wasm = createWasmHasher(mode === 0 ? {} : mode === 1 ? { key: KEY } : { context: CONTEXT });
    wasm.update(input);
    using reader = wasm.xof();
    for (const [position, length] of [
      [2n ** 64n - 64n, 63], // the last 63 bytes: blocks at counter 2^58 - 1
      [2n ** 64n - 16n, 100], // and on past them
      [2n ** 32n - 100n, 200], // across the low word's end
      [7n * 2n ** 32n - 100n, 200],
    ] as const) {
      const out = new Uint8Array(length);
      fillAt(h, out, position);
      reader.position = position;
      expect(hex(out), `at ${position}`).toBe(hex(reader.read(length)));
    }
  });
});

describe('bad arguments', () => {
  const range = 'ERR_OUT_OF_RANGE';
  const type = 'ERR_INVALID_ARG_TYPE';
  const one = new Uint8Array(1);
  const out = new Uint8Array(32);
  const cases: [string, () => unknown, typeof RangeError | typeof TypeError, string][] = [
    ['hashInto mode 3', () => b.hashInto(3, null, one, out), RangeError, 'mode must be 0 (hash), 1 (keyed) or 2 (derive_key), got 3'],
    ['hashInto mode -1', () => b.hashInto(-1, null, one, out), RangeError, 'mode must be an integer from 0 to 4294967295, got -1'],
    ['NativeHasher mode 1.5', () => new b.NativeHasher(1.5, KEY), RangeError, 'mode must be an integer from 0 to 4294967295, got 1.5'],
    ['a 31-byte key', () => new b.NativeHasher(1, new Uint8Array(31)), RangeError, 'key must be 32 bytes, got 31'],
    ['a 33-byte key to hashInto', () => b.hashInto(2, new Uint8Array(33), one, out), RangeError, 'key must be 32 bytes, got 33'],
    ['keyed without a key', () => new b.NativeHasher(1), TypeError, 'key is required in mode 1'],
    ['derive_key without a key', () => b.hashInto(2, null, one, out), TypeError, 'key is required in mode 2'],
    ['a key in hash mode', () => new b.NativeHasher(0, KEY), TypeError, 'key must be null or undefined in hash mode (0)'],
    ['setThreads(-1)', () => b.setThreads(-1), RangeError, 'n must be an integer from 0 to 1024, got -1'],
    ['setThreads(1e9)', () => b.setThreads(1e9), RangeError, 'n must be an integer from 0 to 1024, got 1000000000'],
    ['setThreads(1025)', () => b.setThreads(1025), RangeError, 'n must be an integer from 0 to 1024, got 1025'],
    ['setThreads(NaN)', () => b.setThreads(NaN), RangeError, 'n must be an integer from 0 to 1024, got NaN'],
    ['counterLo -1', () => new b.NativeHasher(0).fill(one, -1, 0, 0), RangeError, 'counterLo must be an integer from 0 to 4294967295, got -1'],
    [
      'counterLo 2^32',
      () => new b.NativeHasher(0).fill(one, TWO_32, 0, 0),
      RangeError,
      'counterLo must be an integer from 0 to 4294967295, got 4294967296',
    ],
    [
      'counterHi 2^32',
      () => new b.NativeHasher(0).fill(one, 0, TWO_32, 0),
      RangeError,
      'counterHi must be an integer from 0 to 4294967295, got 4294967296',
    ],
    ['skip 64', () => new b.NativeHasher(0).fill(one, 0, 0, 64), RangeError, 'skip must be an integer from 0 to 63, got 64'],
    ['fd -1', () => new b.NativeHasher(0).updateFromFd(-1, 0, 10, false), RangeError, 'fd must be an integer from 0 to 2147483647, got -1'],
    [
      'fd 2^31',
      () => new b.NativeHasher(0).updateFromFd(2 ** 31, 0, 10, false),
      RangeError,
      'fd must be an integer from 0 to 2147483647, got 2147483648',
    ],
    [
      'offset 2^53',
      () => new b.NativeHasher(0).updateFromFd(0, 2 ** 53, 10, false),
      RangeError,
      'offset must be an integer from 0 to 9007199254740991, got 9007199254740992',
    ],
    [
      'length -1',
      () => new b.NativeHasher(0).updateFromFd(0, 0, -1, false),
      RangeError,
      'length must be an integer from 0 to 9007199254740991, got -1',
    ],
    [
      'length 0.5',
      () => new b.NativeHasher(0).updateFromFd(0, 0, 0.5, true),
      RangeError,
      'length must be an integer from 0 to 9007199254740991, got 0.5',
    ],
    ['updateAsync signal {}', () => new b.NativeHasher(0).updateAsync(one, {} as AbortSignal), TypeError, 'signal must be an AbortSignal'],
    ['updateFromFd signal "x"', () => new b.NativeHasher(0).updateFromFd(0, 0, 1, false, 'x' as never), TypeError, 'signal must be an AbortSignal'],
    ['hashFile mode 3', () => b.hashFile(smallFile, 3, null, 32, true), RangeError, 'mode must be 0 (hash), 1 (keyed) or 2 (derive_key), got 3'],
    ['hashFile keyed without a key', () => b.hashFile(smallFile, 1, null, 32, false), TypeError, 'key is required in mode 1'],
    ['hashFile a 31-byte key', () => b.hashFile(smallFile, 2, new Uint8Array(31), 32, true), RangeError, 'key must be 32 bytes, got 31'],
    ['hashFile a key in hash mode', () => b.hashFile(smallFile, 0, KEY, 32, true), TypeError, 'key must be null or undefined in hash mode (0)'],
    [
      'hashFile outLength -1',
      () => b.hashFile(smallFile, 0, null, -1, true),
      RangeError,
      'outLength must be an integer from 0 to 4294967295, got -1',
    ],
    [
      'hashFile outLength 2^32',
      () => b.hashFile(smallFile, 0, null, TWO_32, false),
      RangeError,
      'outLength must be an integer from 0 to 4294967295, got 4294967296',
    ],
    ['hashFile signal {}', () => b.hashFile(smallFile, 0, null, 32, true, {} as AbortSignal), TypeError, 'signal must be an AbortSignal'],
  ];

  // Thrown at the call, never a rejected promise: nothing is queued.
  it.each(cases)('%s: thrown at once, naming the argument', (_, f, kind, message) => {
    const error = thrown(f);
    expect(error).toBeInstanceOf(kind);
    expect(error.code).toBe(kind === RangeError ? range : type);
    expect(error.message).toBe(message);
  });

  it('leave the hasher usable and not busy', () => {
    const h = new b.NativeHasher(0);
    h.update(pattern(10));
    expect(() => h.fill(one, 0, TWO_32, 0)).toThrow(RangeError);
    expect(() => h.updateFromFd(-1, 0, 10, false)).toThrow(RangeError);
    expect(() => h.updateAsync(one, {} as AbortSignal)).toThrow(TypeError);
    h.update(pattern(5, 10));
    expect(digest(h)).toBe(oneShot(0, null, pattern(15)));
  });

  // napi-rs converts the values before our checks run; the TypeScript layer
  // checks types first, so these only need to throw and not take Node down.
  it('of the wrong JS type throw napi-rs conversion errors', () => {
    expect(() => b.setThreads('2' as never)).toThrow(/f64/);
    expect(() => new b.NativeHasher(undefined as never)).toThrow(/f64/);
    expect(() => b.hashInto(0, null, 'abc' as never, out)).toThrow(/TypedArray/);
    expect(() => new b.NativeHasher(1, 'k'.repeat(32) as never)).toThrow(/TypedArray/);
    expect(() => new b.NativeHasher(0).updateFromFd(0, 0, 1, 'yes' as never)).toThrow(/bool/);
    expect(() => b.contextKey(1 as never)).toThrow(/String/);
  });
});

describe('threads', () => {
  it('setThreads sets the pool size that threads reports, 0 meaning one per core', () => {
    try {
      b.setThreads(1);
      expect(b.threads()).toBe(1);
      expect(oneShot(0, null, big)).toBe(bigDigest);
      b.setThreads(3);
      expect(b.threads()).toBe(3);
      expect(oneShot(0, null, big)).toBe(bigDigest);
      b.setThreads(1024); // the pool starts its threads on first use: none here
      expect(b.threads()).toBe(1024);
    } finally {
      b.setThreads(0);
    }
    // Rust's count also honours a cgroup CPU quota, which Node's does not.
    expect(b.threads()).toBeGreaterThanOrEqual(1);
    expect(b.threads()).toBeLessThanOrEqual(availableParallelism());
  });
});

describe('updateAsync', () => {
  it('makes the hasher busy until it settles, then gives the one-shot digest', async () => {
    const h = new b.NativeHasher(0);
    const done = h.updateAsync(big);
    expectBusy(() => h.update(new Uint8Array(1)));
    expectBusy(() => h.fill(new Uint8Array(1), 0, 0, 0));
    expectBusy(() => h.reset());
    expectBusy(() => h.clone());
    expectBusy(() => h.updateAsync(big));
    expectBusy(() => h.updateFromFd(0, 0, 1, false));
    await expect(done).resolves.toBeUndefined();
    expect(digest(h)).toBe(bigDigest);
  });

  it('adds to what the hasher has', async () => {
    const h = new b.NativeHasher(1, KEY);
    h.update(pattern(1000));
    await h.updateAsync(pattern(3 * MiB, 1000));
    expect(digest(h)).toBe(oneShot(1, KEY, pattern(3 * MiB + 1000)));
  });

  it('aborted while it runs: AbortError, the hasher as it was and free again', async () => {
    const h = new b.NativeHasher(0);
    h.update(pattern(10));
    const controller = new AbortController();
    // 2 GiB of zeros: nothing to allocate, and ~0.8 s to hash here.
    const running = h.updateAsync(new Uint8Array(2 ** 31), controller.signal);
    setTimeout(() => controller.abort(), 10);
    expect((await rejection(running)).name).toBe('AbortError');
    expect(digest(h)).toBe(oneShot(0, null, pattern(10)));
  });

  it('with a signal already aborted: AbortError, the hasher unchanged', async () => {
    const h = new b.NativeHasher(0);
    h.update(pattern(10));
    expect((await rejection(h.updateAsync(pattern(10), AbortSignal.abort()))).name).toBe('AbortError');
    expect(digest(h)).toBe(oneShot(0, null, pattern(10)));
  });
});

describe('updateFromFd', () => {
  const size = smallData.length;
  const MAX_SAFE = Number.MAX_SAFE_INTEGER;

  it.each([false, true])('mmap %s: byte ranges, stopping at the end of the file', async (mmap) => {
    const fd = openSync(smallFile, 'r');
    try {
      for (const [offset, length] of [
        [0, size],
        [5, 100_000],
        [1000, 10 * MiB], // past the end
        [size - 20_000, MAX_SAFE],
        [size - 100, 50], // too short to map
        [0, 0],
        [size, 10],
        [size + 5, 10],
        [MAX_SAFE, 10],
      ] as const) {
        const h = new b.NativeHasher(1, KEY);
        const hashed = await h.updateFromFd(fd, offset, length, mmap);
        const want = smallData.subarray(Math.min(offset, size), Math.min(offset + length, size));
        expect(hashed, `${offset}+${length}: bytes`).toBe(want.length);
        expect(digest(h), `${offset}+${length}`).toBe(oneShot(1, KEY, want));
      }
    } finally {
      closeSync(fd);
    }
  });

  it.each([false, true])('mmap %s: ranges of several pieces, after earlier input', async (mmap) => {
    const fd = openSync(bigFile, 'r');
    try {
      for (const [offset, length] of [
        [0, big.length],
        [7, 2 * PIECE + 3],
        [PIECE - 1, MAX_SAFE],
      ] as const) {
        const h = new b.NativeHasher(0);
        h.update(pattern(100));
        const want = big.subarray(offset, Math.min(offset + length, big.length));
        expect(await h.updateFromFd(fd, offset, length, mmap)).toBe(want.length);
        expect(digest(h), `${offset}+${length}`).toBe(oneShot(0, null, concat(pattern(100), want)));
      }
    } finally {
      closeSync(fd);
    }
  });

  it('rejects with the errno name for a closed fd or a directory, the hasher unchanged', async () => {
    const fd = openSync(smallFile, 'r');
    closeSync(fd);
    const h = new b.NativeHasher(0);
    h.update(pattern(10));
    for (const mmap of [false, true]) {
      const closed = await rejection(h.updateFromFd(fd, 0, 100_000, mmap));
      expect(closed).toMatchObject({ code: 'EBADF', errno: -9, syscall: 'updateFromFd' });
      expect(closed.message).toBe('EBADF: bad file descriptor, updateFromFd');
      const dirFd = openSync(dir, 'r');
      try {
        const isDir = await rejection(h.updateFromFd(dirFd, 0, 100_000, mmap));
        expect(isDir).toMatchObject({ code: 'EISDIR', errno: -21 });
      } finally {
        closeSync(dirFd);
      }
    }
    expect(digest(h)).toBe(oneShot(0, null, pattern(10)));
  });

  it.each([false, true])('mmap %s: aborted while it runs, or before: AbortError, the hasher unchanged', async (mmap) => {
    const sparse = join(dir, `sparse-${mmap}`);
    writeFileSync(sparse, '');
    truncateSync(sparse, 8 * 1024 * MiB); // 8 GiB of holes: 1-15 s to hash here, no disk
    const fd = openSync(sparse, 'r');
    try {
      const h = new b.NativeHasher(0);
      h.update(pattern(10));
      const controller = new AbortController();
      const running = h.updateFromFd(fd, 0, 8 * 1024 * MiB, mmap, controller.signal);
      setTimeout(() => controller.abort(), 10);
      expect((await rejection(running)).name).toBe('AbortError');
      expect(digest(h)).toBe(oneShot(0, null, pattern(10)));
      expect((await rejection(h.updateFromFd(fd, 0, 10, mmap, AbortSignal.abort()))).name).toBe('AbortError');
      expect(digest(h)).toBe(oneShot(0, null, pattern(10)));
    } finally {
      closeSync(fd);
    }
  });
});

describe('hashFile', () => {
  const emptyFile = file('empty.bin', new Uint8Array(0));
  const files = [
    ['empty', emptyFile, new Uint8Array(0)],
    ['3 MiB', smallFile, smallData],
    ['37 MiB', bigFile, big],
  ] as const;

  it.each([true, false])('mmap %s: every mode and output length, as a one-shot', async (mmap) => {
    for (const [name, path, content] of files) {
      for (const [field, mode, key] of MODES) {
        for (const length of [0, 32, 131]) {
          const got = await b.hashFile(path, mode, key, length, mmap);
          expect(got).toBeInstanceOf(Uint8Array);
          expect(hex(got), `${name} ${field} ${length}`).toBe(oneShot(mode, key, content, length));
        }
      }
    }
  });

  it.each([true, false])('mmap %s: ENOENT and EISDIR as fs reports them', async (mmap) => {
    const missing = join(dir, 'missing');
    const notFound = await rejection(b.hashFile(missing, 0, null, 32, mmap));
    expect(notFound).toBeInstanceOf(Error);
    expect(notFound).toMatchObject({ code: 'ENOENT', errno: -2, syscall: 'hashFile', path: missing });
    expect(notFound.message).toBe(`ENOENT: no such file or directory, hashFile '${missing}'`);
    const isDir = await rejection(b.hashFile(dir, 1, KEY, 32, mmap));
    expect(isDir).toMatchObject({ code: 'EISDIR', errno: -21, syscall: 'hashFile', path: dir });
    expect(isDir.message).toBe(`EISDIR: is a directory, hashFile '${dir}'`);
  });

  it.each([true, false])('mmap %s: with a signal already aborted: AbortError', async (mmap) => {
    expect((await rejection(b.hashFile(smallFile, 0, null, 32, mmap, AbortSignal.abort()))).name).toBe('AbortError');
  });

  /** The FIFO's write end, once a hashFile task has opened it for reading. */
  async function fifoWriter(): Promise<number> {
    for (const deadline = Date.now() + 5000; ; await sleep(1)) {
      try {
        return openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
      } catch (error) {
        if ((error as NodeError).code !== 'ENXIO' || Date.now() > deadline) throw error;
      }
    }
  }

  // Upstream hashes a file in one call, so an abort after the start is seen
  // at the end. A FIFO holds the task at a known point: opening it blocks
  // until a writer comes, and a non-blocking writer can open only once the
  // task's reader is there.
  it('aborted while it runs: rejects once the file is read', async () => {
    const controller = new AbortController();
    const running = b.hashFile(fifo, 0, null, 32, false, controller.signal);
    const writer = await fifoWriter();
    controller.abort();
    writeSync(writer, pattern(1000));
    closeSync(writer);
    const error = await rejection(running);
    // Ours, not napi-rs's cancel of a task that had not started.
    expect(error).toMatchObject({ name: 'AbortError', code: 'ABORT_ERR' });
  });

  it('hashes a FIFO to its end when not aborted', async () => {
    const running = b.hashFile(fifo, 1, KEY, 32, true);
    const writer = await fifoWriter();
    writeSync(writer, pattern(1000));
    closeSync(writer);
    expect(hex(await running)).toBe(oneShot(1, KEY, pattern(1000)));
  });
});
