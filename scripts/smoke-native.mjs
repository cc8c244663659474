// A smoke test of the built addon's raw API, until the shared suite (test/)
// runs against the native backend through the TypeScript loader: official
// vectors, hasher life cycle, async updates, fds, files, errors, aborts.
//
//   node scripts/smoke-native.mjs [path/to/addon.node]
//
// Prints one line per failure and ends with `smoke-native: N passed, M failed`.
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { output } from './build-native.mjs';
import { root } from './lib.mjs';

const b = createRequire(import.meta.url)(process.argv[2] ?? output);
const vectors = JSON.parse(readFileSync(join(root, 'test', 'vectors.json'), 'utf8'));
const hex = (u) => Buffer.from(u).toString('hex');
const pattern = (n) => Uint8Array.from({ length: n }, (_, i) => i % 251);
const oneShot = (mode, key, input, len = 32) => {
  const out = new Uint8Array(len);
  b.hashInto(mode, key, input, out);
  return hex(out);
};

let passed = 0;
let failed = 0;
function check(label, got, want) {
  if (got === want) passed++;
  else {
    failed++;
    console.log(`FAIL ${label}: got ${got}, want ${want}`);
  }
}
function throws(label, f, test) {
  try {
    f();
    check(label, 'no error', 'an error');
  } catch (err) {
    check(label, test(err), true);
  }
}
async function rejects(label, promise, test) {
  try {
    await promise;
    check(label, 'resolved', 'rejected');
  } catch (err) {
    check(label, test(err), true);
  }
}
const isRange = (err) => err instanceof RangeError && err.code === 'ERR_OUT_OF_RANGE';
const isType = (err) => err instanceof TypeError && err.code === 'ERR_INVALID_ARG_TYPE';
const isBusy = (err) => err.code === 'ERR_INVALID_STATE' && /busy/.test(err.message);
const isAbort = (err) => err.name === 'AbortError';

check('abiVersion', b.abiVersion(), 1);
check('cpuFeatures', typeof b.cpuFeatures(), 'string');

// The official vectors: one-shot, split updates, output at a position.
const key = new TextEncoder().encode(vectors.key);
const contextKey = b.contextKey(vectors.context_string);
check('contextKey length', contextKey.length, 32);
const modes = [[0, null, 'hash'], [1, key, 'keyed_hash'], [2, contextKey, 'derive_key']];
for (const c of vectors.cases) {
  const input = pattern(c.input_len);
  for (const [mode, k, field] of modes) {
    check(`hashInto ${field} ${c.input_len}`, oneShot(mode, k, input, 131), c[field]);
    const h = new b.NativeHasher(mode, k);
    const cut = c.input_len >> 1;
    h.update(input.subarray(0, cut));
    h.update(input.subarray(cut));
    const out = new Uint8Array(131);
    h.fill(out, 0, 0);
    check(`NativeHasher ${field} ${c.input_len}`, hex(out), c[field]);
    const window = new Uint8Array(31);
    h.fill(window, 100, 0);
    check(`fill at 100 ${field} ${c.input_len}`, hex(window), c[field].slice(200));
  }
}

// out overlapping input: hashed as if separate.
{
  const buf = pattern(1000);
  b.hashInto(0, null, buf, buf.subarray(0, 32));
  check('out overlaps input', hex(buf.subarray(0, 32)), oneShot(0, null, pattern(1000)));
}

// clone and reset.
{
  const h = new b.NativeHasher(0);
  h.update(pattern(100));
  const copy = h.clone();
  h.update(pattern(5));
  const out = new Uint8Array(32);
  copy.fill(out, 0, 0);
  check('clone keeps its own state', hex(out), oneShot(0, null, pattern(100)));
  h.reset();
  h.fill(out, 0, 0);
  check('reset', hex(out), oneShot(0, null, new Uint8Array(0)));
}

// Bad arguments: TypeError / RangeError naming the argument.
throws('mode 3', () => b.hashInto(3, null, new Uint8Array(1), new Uint8Array(32)), isRange);
throws('mode 1.5', () => new b.NativeHasher(1.5, key), isRange);
throws('31-byte key', () => new b.NativeHasher(1, new Uint8Array(31)), isRange);
throws('keyed without key', () => new b.NativeHasher(1), isType);
throws('key in hash mode', () => new b.NativeHasher(0, key), isType);
throws('setThreads(-1)', () => b.setThreads(-1), isRange);
throws('setThreads(1e9)', () => b.setThreads(1e9), isRange);
throws('fill past 2^64 - 1', () => new b.NativeHasher(0).fill(new Uint8Array(2), 2 ** 32 - 1, 2 ** 32 - 1), isRange);
throws('positionHi 2^32', () => new b.NativeHasher(0).fill(new Uint8Array(1), 0, 2 ** 32), isRange);
throws('fd -1', () => new b.NativeHasher(0).updateFromFd(-1, 0, 10, false), isRange);
new b.NativeHasher(0).fill(new Uint8Array(1), 2 ** 32 - 2, 2 ** 32 - 1); // the last byte there is
b.hashInto(0, null, new Uint8Array(0), new Uint8Array(0));

// Threads.
b.setThreads(1);
check('threads after setThreads(1)', b.threads(), 1);
b.setThreads(3);
check('threads after setThreads(3)', b.threads(), 3);
b.setThreads(0);

// updateAsync: busy while it runs, then the same answer as a one-shot.
const big = pattern(40 << 20);
{
  const h = new b.NativeHasher(0);
  const done = h.updateAsync(big);
  throws('update while busy', () => h.update(new Uint8Array(1)), isBusy);
  throws('fill while busy', () => h.fill(new Uint8Array(1), 0, 0), isBusy);
  throws('second updateAsync while busy', () => h.updateAsync(big), isBusy);
  await done;
  const out = new Uint8Array(32);
  h.fill(out, 0, 0);
  check('updateAsync', hex(out), oneShot(0, null, big));
}

// Aborts, before and during: AbortError, hasher unchanged.
{
  const h = new b.NativeHasher(0);
  h.update(pattern(10));
  const controller = new AbortController();
  const huge = pattern(400 << 20);
  const running = h.updateAsync(huge, controller.signal);
  setTimeout(() => controller.abort(), 5);
  await rejects('abort during updateAsync', running, isAbort);
  const out = new Uint8Array(32);
  h.fill(out, 0, 0);
  check('an aborted update leaves the hasher as it was', hex(out), oneShot(0, null, pattern(10)));
  await rejects('updateAsync with an aborted signal', h.updateAsync(pattern(10), AbortSignal.abort()), isAbort);
}

// Files: fd ranges read and mapped, EOF, errors with errno codes.
const dir = mkdtempSync(join(tmpdir(), 'blake3-kit-smoke-'));
try {
  const data = pattern(3 << 20);
  const file = join(dir, 'data.bin');
  writeFileSync(file, data);
  const fd = openSync(file, 'r');
  for (const mmap of [false, true]) {
    for (const [offset, length] of [[0, 3 << 20], [5, 100_000], [1000, 10 << 20], [(3 << 20) + 5, 10]]) {
      const h = new b.NativeHasher(1, key);
      const n = await h.updateFromFd(fd, offset, length, mmap);
      const want = data.subarray(Math.min(offset, data.length), Math.min(offset + length, data.length));
      const out = new Uint8Array(32);
      h.fill(out, 0, 0);
      check(`updateFromFd ${offset}+${length} mmap ${mmap}: bytes`, n, want.length);
      check(`updateFromFd ${offset}+${length} mmap ${mmap}`, hex(out), oneShot(1, key, want));
    }
  }
  closeSync(fd);
  await rejects('updateFromFd on a closed fd', new b.NativeHasher(0).updateFromFd(fd, 0, 10, false), (e) => e.code === 'EBADF');
  for (const mmap of [true, false]) {
    check(`hashFile mmap ${mmap}`, hex(await b.hashFile(file, 2, contextKey, 131, mmap)), oneShot(2, contextKey, data, 131));
  }
  const missing = join(dir, 'missing');
  await rejects('hashFile ENOENT', b.hashFile(missing, 0, null, 32, true), (e) => e.code === 'ENOENT' && e.path === missing && e.message.includes(missing));
  await rejects('hashFile EISDIR', b.hashFile(dir, 0, null, 32, false), (e) => e.code === 'EISDIR');
  await rejects('hashFile with an aborted signal', b.hashFile(file, 0, null, 32, true, AbortSignal.abort()), isAbort);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log(`smoke-native: ${passed} passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
