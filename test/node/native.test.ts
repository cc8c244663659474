// The native addon as a backend: routing by size, forcing a backend with
// BLAKE3_KIT_BACKEND, the fallback to wasm when the addon is missing, what
// only its asynchronous paths have (threads, busy hashers, mapped files) and
// native memory. The shared suite and the async contract
// (async-native.test.ts) run against it too (node-native and node-auto).
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { blake3 as noble } from '@noble/hashes/blake3.js';
import {
  FileTruncatedError,
  NativeHasher,
  configureParallel,
  hash as namedHash,
  hashFile,
  hashParallel,
  nativeStatus,
  nativeThreshold,
} from 'blake3-kit';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { HasherEngine } from '../../src/engine.js';
import { addon, type NativeHasherHandle } from '../../src/native/addon.js';
import { nativeEngine } from '../../src/native/engine.js';
import { MAX_STATES, Parked, statesInUse, type NativeState } from '../../src/native/states.js';
import { STATE } from '../../src/hasher.js';
import { MODE_DERIVE_KEY, MODE_HASH, MODE_KEYED, type Mode } from '../../src/modes.js';
import { NATIVE_FROM, routedEngine } from '../../src/node/routing.js';
import { CONTEXT, KEY, load, pattern, random } from '../shared/setup.js';

const b3 = await load(); // node-auto: native above the threshold, wasm-simd below
const hex = b3.toHex;
const entry = fileURLToPath(new URL('../../dist/node.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'blake3-kit-native-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const ABC = '6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85';

/** Runs `code` against the built package in a fresh Node with `env` set. */
function child(code: string, env: Record<string, string | undefined>) {
  const script = `const b3 = await import(${JSON.stringify(entry)});\n${code}`;
  const merged: Record<string, string | undefined> = { ...process.env, BLAKE3_KIT_BACKEND: undefined, BLAKE3_KIT_NATIVE_PATH: undefined, ...env };
  for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key];
  return spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: merged as NodeJS.ProcessEnv });
}

describe('the addon', () => {
  it('is loaded, with the kernels this CPU allows and its thread count', () => {
    const status = nativeStatus();
    expect(status.loaded).toBe(true);
    expect(status.error).toBeUndefined();
    expect(status.path).toMatch(/blake3-kit\.linux-(x64|arm64)\.node$/);
    expect(status.cpuFeatures).toMatch(process.arch === 'x64' ? /sse4\.1/ : /neon/);
    expect(status.threads).toBeGreaterThanOrEqual(1);
  });
});

describe('routing', () => {
  it('sends inputs below the threshold to wasm and the rest to native, in every mode', () => {
    expect(nativeThreshold()).toBe(NATIVE_FROM);
    const native = vi.spyOn(addon!, 'hashInto');
    const below = pattern(NATIVE_FROM - 1);
    const at = pattern(NATIVE_FROM);
    const reference = (input: Uint8Array, opts = {}) => hex(noble(input, opts));
    for (const [input, nativeCalls] of [
      [below, 0],
      [at, 4],
    ] as const) {
      native.mockClear();
      expect(hex(b3.hash(input))).toBe(reference(input));
      expect(hex(namedHash(input))).toBe(reference(input)); // the named export routes the same way
      expect(hex(b3.keyedHash(KEY, input))).toBe(reference(input, { key: KEY }));
      expect(hex(b3.deriveKey(CONTEXT, input, { length: 40 }))).toBe(
        hex(
          noble
            .create({ context: new TextEncoder().encode(CONTEXT), dkLen: 40 })
            .update(input)
            .digest(),
        ),
      );
      expect(native).toHaveBeenCalledTimes(nativeCalls);
    }
    // Below NATIVE_FROM, an even number of whole chunks goes native too.
    for (const [size, nativeCalls] of [
      [2048, 1],
      [3072, 0],
      [4096, 1],
      [4097, 0],
      [6144, 1],
      [7168, 0],
    ] as const) {
      native.mockClear();
      expect(hex(b3.hash(pattern(size)))).toBe(reference(pattern(size)));
      expect(native, `size ${size}`).toHaveBeenCalledTimes(nativeCalls);
    }
    native.mockClear();
    expect(hex(b3.hash('x'.repeat(NATIVE_FROM - 1)))).toBe(reference(new TextEncoder().encode('x'.repeat(NATIVE_FROM - 1))));
    expect(native).not.toHaveBeenCalled();
    expect(hex(b3.hash('x'.repeat(NATIVE_FROM)))).toBe(reference(new TextEncoder().encode('x'.repeat(NATIVE_FROM))));
    expect(native).toHaveBeenCalledTimes(1);
  });

  it('hashers batch small updates and hash a small total in one wasm call', () => {
    const update = vi.spyOn(addon!.NativeHasher.prototype, 'update');
    const native = vi.spyOn(addon!, 'hashInto');
    using small = b3.createHasher();
    for (let i = 0; i < 10; i++) small.update(pattern(100, i));
    small.digest();
    expect(update).not.toHaveBeenCalled();
    expect(native).not.toHaveBeenCalled();
    using large = b3.createHasher().update(pattern(64 * 1024));
    expect(hex(large.digest())).toBe(hex(noble(pattern(64 * 1024))));
    expect(update).toHaveBeenCalledTimes(1);
  });
});

// Saved states at the engine level (the BODY of the shared state format;
// src/state.ts adds header and trailer): the addon's own hasher against
// @noble/hashes. The Rust tests (crate/native/tests/resumable.rs) cover
// every length and every validity rule; these the napi layer and both
// engines that hold native states.
describe('saved states (engine BODY)', () => {
  const contextKey = addon!.contextKey(CONTEXT);
  const modes: [Mode, Uint8Array | undefined, (input: Uint8Array) => Uint8Array][] = [
    [MODE_HASH, undefined, (input) => noble(input, { dkLen: 131 })],
    [MODE_KEYED, KEY, (input) => noble(input, { key: KEY, dkLen: 131 })],
    [
      MODE_DERIVE_KEY,
      contextKey,
      (input) =>
        noble
          .create({ context: new TextEncoder().encode(CONTEXT), dkLen: 131 })
          .update(input)
          .digest(),
    ],
  ];
  const digest = (engine: HasherEngine<NativeState>, state: NativeState) => {
    const out = new Uint8Array(131);
    engine.fill(state, out, 0, 0, 0);
    return out;
  };
  const engines = [
    ['native', nativeEngine],
    ['auto', routedEngine],
  ] as const;

  it.each(engines)('%s: a state saved at any point loads and goes on to the same digest, in every mode', (_, engine) => {
    const input = random(0x5be0cd19).bytes(3 * 1024 * 1024 + 7);
    for (const [mode, key, reference] of modes) {
      for (const split of [0, 1, 64, 65, 1024, 1025, 16 * 1024, 100_000, 2 * 1024 * 1024 + 3]) {
        const state = engine.create(mode, key);
        engine.update(state, input.subarray(0, split));
        const body = engine.exportState!(state);
        expect(body).toBeInstanceOf(Uint8Array);
        // 108 bytes and a 32-byte chaining value per set bit of the chunk count.
        const chunks = split <= 1024 ? 0 : Math.ceil(split / 1024) - 1;
        expect(body.length).toBe(108 + 32 * chunks.toString(2).replaceAll('0', '').length);
        // Export leaves the hasher as it was.
        engine.update(state, input.subarray(split));
        expect(hex(digest(engine, state)), `mode ${mode} split ${split}`).toBe(hex(reference(input)));
        engine.free(state);
        const loaded = engine.importState!(mode, key, body);
        expect(engine.exportState!(loaded)).toEqual(body);
        engine.update(loaded, input.subarray(split));
        expect(hex(digest(engine, loaded)), `mode ${mode} split ${split} loaded`).toBe(hex(reference(input)));
        engine.free(loaded);
      }
    }
  });

  it('a loaded state hashes off the thread and from files like any other', async () => {
    const input = random(0x1f83d9ab).bytes(40 * 1024 * 1024 + 1);
    const state = nativeEngine.create(MODE_HASH, undefined);
    nativeEngine.update(state, input.subarray(0, 5000));
    // Under MAX_STATES a state is a handle of the addon's (states.ts).
    const loaded = nativeEngine.importState!(MODE_HASH, undefined, nativeEngine.exportState!(state)) as NativeHasherHandle;
    await loaded.updateAsync(input.subarray(5000, 20 * 1024 * 1024));
    const file = join(dir, 'state-rest');
    writeFileSync(file, input.subarray(20 * 1024 * 1024));
    const { openSync, closeSync } = await import('node:fs');
    const fd = openSync(file, 'r');
    try {
      expect(await loaded.updateFromFd(fd, 0, input.length, true)).toBe(input.length - 20 * 1024 * 1024);
    } finally {
      closeSync(fd);
    }
    expect(hex(digest(nativeEngine, loaded))).toBe(hex(noble(input, { dkLen: 131 })));
  });

  it('an invalid body is a RangeError saying why, and a bad mode or key is reported as by the constructor', () => {
    const state = nativeEngine.create(MODE_KEYED, KEY);
    nativeEngine.update(state, pattern(3000));
    const body = nativeEngine.exportState!(state);
    const load =
      (bytes: Uint8Array, mode: Mode = MODE_KEYED, key: Uint8Array | undefined = KEY) =>
      () =>
        nativeEngine.importState!(mode, key, bytes);
    const broken = (at: number, value: number) => {
      const copy = body.slice();
      copy[at] = value;
      return copy;
    };
    const invalid = (why: RegExp) => expect.objectContaining({ name: 'RangeError', message: expect.stringMatching(why) });
    expect(load(body.subarray(0, body.length - 1))).toThrow(invalid(/^blake3-kit: saved state body is not valid: the body is \d+ bytes/));
    expect(load(body.subarray(0, 100))).toThrow(invalid(/shorter than its 108-byte head/));
    expect(load(broken(11, 1))).toThrow(invalid(/reserved byte 11 is 1/));
    expect(load(broken(7, 1))).toThrow(invalid(/chunk counter \d+ is past 2\^54/));
    expect(load(broken(8, 16))).toThrow(invalid(/blocks compressed 16/));
    expect(load(broken(9, 65))).toThrow(invalid(/block length 65/));
    expect(load(broken(107, 1))).toThrow(invalid(/past block length/));
    const keyInIt = new Uint8Array(108);
    keyInIt.set(KEY, 12);
    expect(load(keyInIt)).toThrow(invalid(/chaining value field is not zero/));
    expect(() => nativeEngine.importState!(MODE_KEYED, undefined, body)).toThrow(TypeError);
    expect(load(body, MODE_KEYED, new Uint8Array(31))).toThrow(RangeError);
    // An empty body holds no key: it loads in every mode (the saved
    // state's header binds it to one, src/state.ts).
    const empty = nativeEngine.exportState!(nativeEngine.create(MODE_HASH, undefined));
    expect(empty).toEqual(new Uint8Array(108));
    expect(hex(digest(nativeEngine, nativeEngine.importState!(MODE_HASH, undefined, empty)))).toBe(hex(noble(new Uint8Array(0), { dkLen: 131 })));
    expect(hex(digest(nativeEngine, load(empty)()))).toBe(hex(noble(new Uint8Array(0), { key: KEY, dkLen: 131 })));
  });

  it('a busy or freed hasher cannot be saved', async () => {
    const state = nativeEngine.create(MODE_HASH, undefined) as NativeHasherHandle;
    const pending = state.updateAsync(pattern(8 * 1024 * 1024));
    expect(() => nativeEngine.exportState!(state)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_STATE' }));
    await pending;
    expect(nativeEngine.exportState!(state).length).toBeGreaterThan(108);
    state.free();
    expect(() => nativeEngine.exportState!(state)).toThrow(/freed/);
  });
});

describe('forcing a backend', () => {
  const report = `const api = await b3.init(); console.log(api.backend, b3.toHex(api.hash('abc')), b3.nativeStatus().loaded);`;

  it.each([
    [undefined, 'native+wasm-simd true'],
    ['auto', 'native+wasm-simd true'],
    ['native', 'native true'],
    ['wasm', 'wasm-simd false'],
    ['wasm-simd', 'wasm-simd false'],
    ['wasm-scalar', 'wasm-scalar false'],
  ])('BLAKE3_KIT_BACKEND=%s', (value, expected) => {
    const run = child(report, { BLAKE3_KIT_BACKEND: value });
    expect(run.stderr).toBe('');
    const [backend, digest, loaded] = run.stdout.trim().split(' ');
    expect(`${backend} ${loaded}`).toBe(expected);
    expect(digest).toBe(ABC);
  });

  it('init({ backend }) wins over the variable, and a bad value is named', () => {
    const forced = child(`const api = await b3.init({ backend: 'native' }); console.log(api.backend);`, { BLAKE3_KIT_BACKEND: 'wasm-scalar' });
    expect(forced.stdout.trim()).toBe('native');
    const bad = child(report, { BLAKE3_KIT_BACKEND: 'gpu' });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/BLAKE3_KIT_BACKEND must be one of auto, native, wasm, wasm-simd, wasm-scalar; got "gpu"/);
  });
});

describe('without the addon', () => {
  const missing = join(dir, 'no-such-addon.node');

  it('falls back to wasm and keeps the load error as the cause', () => {
    const code = `const api = await b3.init(); const s = b3.nativeStatus();
      console.log(JSON.stringify({ backend: api.backend, digest: b3.toHex(api.hash(new Uint8Array(1 << 20))), loaded: s.loaded,
        message: s.error?.message, cause: s.error?.cause?.code }));`;
    const run = child(code, { BLAKE3_KIT_NATIVE_PATH: missing });
    const seen = JSON.parse(run.stdout);
    expect(seen).toMatchObject({ backend: 'wasm-simd', loaded: false, cause: 'MODULE_NOT_FOUND' });
    expect(seen.digest).toBe(hex(b3.hash(new Uint8Array(1 << 20))));
    expect(seen.message).toContain(missing);
  });

  it('rejects a forced native backend, with the cause', () => {
    const code = `await b3.init().catch((e) => console.log(e.message, '|', e.cause?.cause?.code));`;
    const run = child(code, { BLAKE3_KIT_NATIVE_PATH: missing, BLAKE3_KIT_BACKEND: 'native' });
    expect(run.stdout).toMatch(/native backend was asked for .* but the addon did not load \| MODULE_NOT_FOUND/);
  });

  it('refuses a file that is not the addon', () => {
    const notAddon = join(dir, 'not-an-addon.node');
    writeFileSync(notAddon, 'not a shared object');
    const run = child(`await b3.init(); console.log(b3.backend(), b3.nativeStatus().error.cause.message.length > 0)`, {
      BLAKE3_KIT_NATIVE_PATH: notAddon,
    });
    expect(run.stdout.trim()).toBe('wasm-simd true');
  });
});

describe('threads and async work', () => {
  const big = pattern(40 * 1024 * 1024 + 1025, 3);
  const expected = hex(noble(big));

  it('honours the thread count set by configureParallel', async () => {
    configureParallel({ workers: 1 });
    try {
      expect(nativeStatus().threads).toBe(1);
      expect(hex(await hashParallel(big))).toBe(expected);
      expect(hex(b3.hash(big))).toBe(expected);
    } finally {
      configureParallel({ workers: 0 });
    }
    expect(nativeStatus().threads).toBeGreaterThanOrEqual(1);
  });

  it('a hasher busy with an async update refuses sync calls and stays usable', async () => {
    const hasher = new NativeHasher();
    hasher.update(pattern(64 * 1024)); // gives it native state
    const pending = hasher.updateAsync(big.subarray(64 * 1024));
    expect(() => hasher.update(pattern(10))).toThrow(/busy/);
    expect(() => hasher.update(pattern(2 << 20))).toThrow(/busy/);
    expect(() => hasher.digest()).toThrow(/busy/);
    await expect(hasher.updateAsync(pattern(10))).rejects.toThrow(/busy/); // async calls reject, never throw
    await pending;
    expect(hex(hasher.digest())).toBe(hex(noble(new Uint8Array([...pattern(64 * 1024), ...big.subarray(64 * 1024)]))));
  });

  it('hashFile with mmap gives the same digests as with reads', async () => {
    const path = join(dir, 'mapped');
    writeFileSync(path, big);
    expect(hex(await hashFile(path, { mmap: true }))).toBe(expected); // one task for the whole file
    expect(hex(await hashFile(path, { mmap: true, context: CONTEXT, length: 100 }))).toBe(hex(b3.deriveKey(CONTEXT, big, { length: 100 })));
    let steps = 0;
    expect(hex(await hashFile(path, { mmap: true, onProgress: () => steps++ }))).toBe(expected); // in steps
    expect(steps).toBe(3);
    expect(hex(await hashFile(path, { mmap: false, key: KEY }))).toBe(hex(noble(big, { key: KEY })));
    await expect(hashFile(path, { mmap: 'yes' as never })).rejects.toBeInstanceOf(TypeError);
  });

  it('hashFile mapped (the default) survives the file being truncated mid-hash', async () => {
    // Without the addon's SIGBUS guard, one of these cuts kills this process.
    const path = join(dir, 'shrinking');
    // At least 8 runs, and on until one was cut while mapped (most are).
    const [MIN_RUNS, MAX_RUNS] = [8, 24];
    const rng = random(Number(process.env.BLAKE3_KIT_SEED ?? 0x5eed));
    const outcomes = { digest: 0, cutWhileMapped: 0, cutAfter: 0 };
    let run = 0;
    for (; run < MIN_RUNS || (outcomes.cutWhileMapped === 0 && run < MAX_RUNS); run++) {
      writeFileSync(path, big);
      for (let i = 0; i < 5; i++) appendFileSync(path, big); // 240 MiB: ~30 ms to hash here
      const started = performance.now();
      const want = hex(await hashFile(path, { mmap: false }));
      const took = performance.now() - started;
      const delay = (rng.int(500) / 1000) * took; // within the first half of a hash
      const cutTo = run % 3 === 0 ? 0 : rng.int(big.length * 6);
      const cut = () => setTimeout(() => truncateSync(path, cutTo), delay);
      // The clock starts once the file is open and its size taken (a cut
      // before that is just a smaller file): at the one-task call, or at the
      // first step of the stepped path (updateFromFd, mapped).
      let hashing: Promise<Uint8Array>;
      if (run % 2 === 0) {
        const real = addon!.hashFile.bind(addon);
        vi.spyOn(addon!, 'hashFile').mockImplementationOnce((...args) => {
          cut();
          return real(...args);
        });
        hashing = hashFile(path); // mapped: the default
      } else {
        let first = true;
        hashing = hashFile(path, { mmap: true, onProgress: () => first && !(first = false) && cut() });
      }
      try {
        expect(hex(await hashing)).toBe(want);
        outcomes.digest++;
      } catch (e) {
        expect(e).toBeInstanceOf(FileTruncatedError);
        expect(e).toMatchObject({ code: 'ERR_FILE_TRUNCATED', path, expected: big.length * 6 });
        // The addon's own error, when the cut came while the file was mapped.
        if ((e as Error).cause !== undefined) {
          expect((e as Error).cause).toMatchObject({ code: 'ERR_FILE_TRUNCATED' });
          outcomes.cutWhileMapped++;
        } else outcomes.cutAfter++;
      }
      vi.restoreAllMocks();
      await new Promise((resolve) => setTimeout(resolve, delay + 1)); // the cut has happened
    }
    console.log(`truncated mid-hash: ${JSON.stringify(outcomes)} of ${run} runs`);
    expect(outcomes.cutWhileMapped).toBeGreaterThan(0);
  });
});

describe('native memory', () => {
  const gc = (globalThis as { gc?: () => void }).gc!;
  const rss = () => {
    gc();
    return process.memoryUsage().rss;
  };

  it('stays flat over 2 x 10^5 disposed and forgotten hashers with native state', async () => {
    const input = pattern(20 * 1024); // past the JS batch: each hasher makes native state
    const generation = async () => {
      for (let i = 0; i < 100_000; i++) {
        const hasher = b3.createHasher().update(input);
        if (i % 2 === 0) hasher.dispose();
        if (i % 10_000 === 0) await new Promise((resolve) => setTimeout(resolve, 0));
      }
      await new Promise((resolve) => setTimeout(resolve, 0));
      return rss();
    };
    // The first generation grows the allocator's arenas; the second must fit
    // in what the first left behind once the collector freed it. A leaked
    // hasher keeps ~2 KB of native state: 10^5 would be ~200 MB.
    const afterFirst = await generation();
    expect((await generation()) - afterFirst).toBeLessThan(32 * 1024 * 1024);
  });
});

// Past MAX_STATES live native states, hashers and readers keep theirs in JS
// memory (src/native/states.ts): every operation works on them as on any.
describe('hashers past MAX_STATES', () => {
  it('park their state, and every operation on them gives the digests a handle gives', async () => {
    const input = random(0x510e527f).bytes(20 * 1024 * 1024 + 77);
    const held: InstanceType<typeof b3.Hasher>[] = [];
    // Earlier tests' forgotten hashers give their handles back whenever the
    // collector gets to them: fill up to the limit just before each use.
    const fill = () => {
      while (statesInUse() < MAX_STATES) held.push(b3.createHasher().update(pattern(20 * 1024)));
    };
    try {
      for (const [options, theirs] of [
        [undefined, {}],
        [{ key: KEY }, { key: KEY }],
      ] as const) {
        fill();
        using hasher = b3.createHasher(options).update(input.subarray(0, 70_000));
        expect(hasher[STATE]()).toBeInstanceOf(Parked);
        using copy = hasher.clone();
        expect(copy[STATE]()).toBeInstanceOf(Parked);
        const saved = hasher.save();
        hasher.update(input.subarray(70_000, 70_100)).update(input.subarray(70_100, 5 << 20));
        await hasher.updateAsync(input.subarray(5 << 20, 19 << 20));
        const file = join(dir, 'parked-rest');
        writeFileSync(file, input.subarray(19 << 20));
        const { openSync, closeSync } = await import('node:fs');
        const fd = openSync(file, 'r');
        try {
          expect(await hasher.updateFromFd(fd, 0, input.length, true)).toBe(input.length - (19 << 20));
        } finally {
          closeSync(fd);
        }
        const expected = hex(noble(input, { ...theirs, dkLen: 131 }));
        expect(hex(hasher.digest({ length: 131 }))).toBe(expected);
        fill();
        using reader = hasher.xof();
        expect(hex(reader.read(131))).toBe(expected);
        // The clone and a loaded state go on from 70,000 bytes.
        copy.update(input.subarray(70_000));
        expect(hex(copy.digest({ length: 131 }))).toBe(expected);
        fill();
        using loaded = b3.createHasher(options).load(saved);
        await loaded.updateAsync(input.subarray(70_000));
        expect(hex(loaded.digest({ length: 131 }))).toBe(expected);
        expect(hex(loaded.reset().update('abc').digest())).toBe(hex(noble(new TextEncoder().encode('abc'), theirs)));
        // A failed update leaves a parked state as it was.
        await expect(hasher.updateAsync(input, AbortSignal.abort())).rejects.toThrow();
        expect(hex(hasher.digest({ length: 131 }))).toBe(expected);
      }
    } finally {
      for (const hasher of held) hasher.dispose();
    }
    // Under the limit again: a handle.
    expect(statesInUse()).toBeLessThan(MAX_STATES);
    using after = b3.createHasher().update(pattern(20 * 1024));
    expect(after[STATE]()).not.toBeInstanceOf(Parked);
  }, 60_000);
});
