// Run by a Node of another platform (a musl Node, Windows' node.exe under
// Wine) in a fresh project where blake3-kit and a platform package are
// installed from their tarballs (test/node/platforms-*.test.ts, wine.test.ts);
// and by this machine's Node with the wasm backend, whose report is the
// reference. Prints one JSON report:
//
// - `backend`, `status`: what init() chose, by itself, and nativeStatus();
// - `digests`: every result, which must equal the reference run's, the
//   official vectors included (test/vectors.json, given as an argument);
// - `errors`: the code or name each failing call gave;
// - `calls`: how often each of the addon's exports ran (with `--coverage`):
//   the workload must run every one of them on the platform's own addon.
//
//   node platform-probe.mjs VECTORS_JSON DATA_DIR [--coverage PACKAGE | --init-only]
import { closeSync, mkdirSync, openSync, readSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';

const [vectorsPath, dir, flag, addonPackage] = process.argv.slice(2);
const calls = flag === '--coverage' ? countCalls(addonPackage) : undefined;

const b3 = await import('blake3-kit');
const bao = await import('blake3-kit/bao');
const { readFileSync } = await import('node:fs');

const api = await b3.init();
const { error: statusError, ...status } = b3.nativeStatus();
const report = {
  backend: api.backend,
  platform: `${process.platform}-${process.arch}`,
  status: { ...status, error: statusError?.message, cause: statusError?.cause?.message },
  digests: {},
  errors: {},
  calls,
};
// What init() chose, without the work below (slow under emulation).
if (flag === '--init-only') {
  console.log(JSON.stringify(report));
  process.exit(0);
}
const hex = b3.toHex;
const pattern = (n, seed = 0) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) % 251);
const key = pattern(32, 7);
const MiB = 1 << 20;

/** Runs `f`, keeping its result under `name`, or its error's code or name. */
async function step(name, f) {
  try {
    report.digests[name] = await f();
  } catch (error) {
    report.errors[name] = `${error?.code ?? error?.name}: ${error?.message}`;
  }
}
/** Runs `f`, which must fail; keeps the error's code (or name). */
async function fails(name, f) {
  try {
    await f();
    report.errors[name] = 'no error';
  } catch (error) {
    report.errors[name] = error?.name === 'AbortError' ? error.name : (error?.code ?? error?.name);
  }
}

// The official vectors, all three modes with extended output.
await step('vectors', () => {
  const vectors = JSON.parse(readFileSync(vectorsPath, 'utf8'));
  const vkey = new TextEncoder().encode(vectors.key);
  return vectors.cases.map(({ input_len, hash }) => {
    const input = Uint8Array.from({ length: input_len }, (_, i) => i % 251);
    const length = hash.length / 2;
    return [api.hash(input, { length }), api.keyedHash(vkey, input, { length }), api.deriveKey(vectors.context_string, input, { length })].map(hex);
  });
});

const big = pattern(3 * MiB + 7);
await step('one-shots', () => [hex(api.hash(big)), hex(api.keyedHash(key, big, { length: 100 })), hex(api.deriveKey('probe', big, { length: 65 }))]);

// Streaming in uneven pieces, with a clone, a reset, a reader far out, a
// saved state loaded into another hasher.
await step('streaming', () => {
  const h = api.createHasher({ key });
  for (let at = 0; at < big.length; ) {
    const n = 1 + ((at * 7919) % 300_000);
    h.update(big.subarray(at, at + n));
    at += n;
  }
  const copy = h.clone().update(pattern(5000));
  const saved = h.save();
  const loaded = api.createHasher({ key }).load(saved).update(pattern(17));
  const reader = h.xof();
  reader.position = 2n ** 40n + 3n;
  const far = hex(reader.read(70));
  reader.dispose();
  const out = [hex(h.digest({ length: 64 })), hex(copy.digest()), hex(loaded.digest()), far];
  h.reset().update(pattern(20_000));
  out.push(hex(h.digest()));
  for (const x of [h, copy, loaded]) x.dispose();
  return out;
});

// More hashers than the addon keeps handles for (4,096): the rest park in
// JS memory; disposed ones' handles are renewed by the next.
await step('many hashers', () => {
  const hashers = Array.from({ length: 4200 }, (_, i) => api.createHasher().update(pattern(20_000, i)));
  const out = [];
  for (const i of [0, 4095, 4199]) {
    const copy = hashers[i].clone().update(pattern(3));
    out.push(hex(hashers[i].digest()), hex(copy.digest()), hex(api.createHasher().load(hashers[i].save()).digest()));
    copy.dispose();
  }
  for (const h of hashers) h.dispose();
  const again = api.createHasher().update(pattern(20_000, 1));
  out.push(hex(again.digest()));
  again.dispose();
  return out;
});

await step('async', async () => {
  const h = api.createHasher();
  if (h.supports('updateAsync')) await h.updateAsync(big);
  else h.update(big);
  const out = [hex(h.digest())];
  const controller = new AbortController();
  const huge = new Uint8Array(64 * MiB);
  const running = h.supports('updateAsync')
    ? h.updateAsync(huge, controller.signal)
    : Promise.reject(Object.assign(new Error(), { name: 'AbortError' }));
  controller.abort();
  out.push(
    await running.then(
      () => 'finished',
      (e) => e.name,
    ),
  );
  // An aborted update leaves the hasher as it was.
  out.push(hex(h.digest()));
  h.dispose();
  out.push(hex(await b3.hashParallel(big)), hex(await b3.hashStream(Readable.from([big.subarray(0, MiB), big.subarray(MiB)]))));
  out.push(hex(await b3.hashBlob(new Blob([big]))));
  return out;
});

// Files: whole (the addon's hashFile), by descriptor (updateFromFd), and
// the errors Node's fs gives, by name.
mkdirSync(dir, { recursive: true });
const file = join(dir, 'data.bin');
const data = pattern(5 * MiB + 3, 11);
writeFileSync(file, data);
await step('files', async () => {
  const h = api.createHasher({ key });
  await b3.updateFromFile(h, file);
  return [
    hex(await b3.hashFile(file)),
    hex(await b3.hashFile(file, { signal: new AbortController().signal })),
    hex(await b3.hashFile(file, { mmap: false, length: 40 })),
    hex(await b3.hashFile(pathToFileURL(file))),
    hex(h.digest()),
  ];
});
await fails('hashFile: missing', () => b3.hashFile(join(dir, 'missing.bin')));
await fails('hashFile: a directory', () => b3.hashFile(dir));
await fails('hashFile: aborted', () => b3.hashFile(file, { signal: AbortSignal.abort() }));
await step('updateFromFd', async () => {
  const h = api.createHasher();
  // What the addon must give, for a reference without it (wasm).
  if (!h.supports('updateFromFd')) return [3 * MiB, data.length - 1000 - 3 * MiB, hex(api.hash(data.subarray(1000))), hex(data.subarray(0, 16))];
  const fd = openSync(file, 'r');
  try {
    const n = await h.updateFromFd(fd, 1000, 3 * MiB, true);
    const m = await h.updateFromFd(fd, 1000 + n, 10 * MiB, false);
    // The fd is borrowed: its position is where it was, at the start.
    const start = new Uint8Array(16);
    readSync(fd, start, 0, 16, null);
    return [n, m, hex(h.digest()), hex(start)];
  } finally {
    closeSync(fd);
    h.dispose();
  }
});
await fails('updateFromFd: a directory', async () => {
  const h = api.createHasher();
  if (!h.supports('updateFromFd')) throw Object.assign(new Error(), { code: 'EISDIR' });
  const fd = openSync(dir, 'r');
  try {
    await h.updateFromFd(fd, 0, 100, false);
  } finally {
    closeSync(fd);
  }
});
await fails('updateFromFd: a closed fd', async () => {
  const h = api.createHasher();
  if (!h.supports('updateFromFd')) throw Object.assign(new Error(), { code: 'EBADF' });
  const fd = openSync(file, 'r');
  closeSync(fd);
  await h.updateFromFd(fd, 0, 100, false);
});
// The addon's own hashFile errors (the package opens the file first, so
// they show only in a race): Win32's errors must get Node's names.
if (calls !== undefined) {
  const raw = createRequire(join(process.cwd(), 'x.js'))(addonPackage);
  await fails('addon hashFile: missing', () => raw.hashFile(join(dir, 'missing.bin'), 0, null, 32, true));
  await fails('addon hashFile: a directory', () => raw.hashFile(dir, 0, null, 32, true));
}

// The bao entry: encodings, batches, subtrees.
await step('bao', async () => {
  const encoded = bao.baoEncode(big);
  const outboard = bao.baoEncode(big, { outboard: true });
  const items = Array.from({ length: 300 }, (_, i) => pattern(i * 37, i));
  const half = 2 * MiB;
  const left = bao.subtreeChainingValue(big.subarray(0, half));
  const right = bao.subtreeChainingValue(big.subarray(half), { offset: half });
  const tree = bao.baoTreeOutboard(big, { chunkLog: 4 });
  return [
    hex(encoded.hash),
    hex(api.hash(encoded.encoding)),
    hex(api.hash(outboard.encoding)),
    hex(tree.hash),
    hex(api.hash(tree.outboard)),
    hex(api.hash(bao.hashMany(items))),
    hex(api.hash(bao.hashMany(items, { key, length: 40 }))),
    hex(bao.mergeSubtreesRoot(left, right)),
    hex(bao.mergeSubtrees(left, right)),
    hex((await bao.baoEncodeStream(Readable.from([big.subarray(0, 5000), big.subarray(5000)]))).hash),
  ];
});

// Once the work above is done, so that a thread count of one does not slow it.
await step('threads', () => {
  b3.configureParallel({ workers: 1 });
  const one = hex(api.hash(big));
  b3.configureParallel({ workers: 0 });
  return one;
});
process.on('SIGBUS', () => {});
process.removeAllListeners('SIGBUS');
if (calls !== undefined) report.calls = Object.fromEntries(Object.entries(calls).sort());
console.log(JSON.stringify(report));

/**
 * Loads `name`'s addon first and counts calls of its exports: the package's
 * loader, which requires the same file, then gets this module (Node keeps
 * one per file). Returns the counts, by export name (0: never called).
 */
function countCalls(name) {
  const require = createRequire(join(process.cwd(), 'probe.mjs'));
  const path = require.resolve(name);
  const raw = require(path);
  const counts = {};
  const counted = (label, f) => {
    counts[label] = 0;
    return function (...args) {
      counts[label]++;
      return Reflect.apply(f, this, args);
    };
  };
  const Hasher = raw.NativeHasher;
  for (const [label, value] of Object.entries(raw)) if (typeof value === 'function' && value !== Hasher) raw[label] = counted(label, value);
  for (const label of Object.getOwnPropertyNames(Hasher.prototype)) {
    if (label !== 'constructor') Hasher.prototype[label] = counted(`NativeHasher#${label}`, Hasher.prototype[label]);
  }
  // The class's own functions are read-only, and a Proxy must return them
  // as they are: the package gets a stand-in constructor that has them.
  function Counted(...args) {
    counts['new NativeHasher']++;
    return new Hasher(...args);
  }
  counts['new NativeHasher'] = 0;
  Counted.prototype = Hasher.prototype;
  for (const [label, d] of Object.entries(Object.getOwnPropertyDescriptors(Hasher))) {
    if (typeof d.value === 'function') Counted[label] = counted(`NativeHasher.${label}`, d.value.bind(Hasher));
  }
  raw.NativeHasher = Counted;
  return counts;
}
