// Saved hasher states (Hasher.save / load, src/state.ts) in every backend:
// a state saved at any point and loaded into a fresh hasher finishes to the
// one-pass output (and @noble/hashes'); every damaged or mismatched state
// throws and leaves the hasher as it was.
import { blake3 as noble } from '@noble/hashes/blake3.js';
import { describe, expect, it } from 'vitest';
import { MAX_SLOTS } from '../../src/wasm/engine.js';
import { backend, CONTEXT, KEY, load, pattern, random, seed, thrownBy } from './setup.js';

const b3 = await load();
const utf8 = new TextEncoder();

const modes = [
  { name: 'hash', ours: undefined, theirs: {} },
  { name: 'keyed_hash', ours: { key: KEY }, theirs: { key: KEY } },
  { name: 'derive_key', ours: { context: CONTEXT }, theirs: { context: utf8.encode(CONTEXT) } },
] as const;

const rng = random(seed);
const LENGTHS = [0, 1, 64, 1023, 1024, 1025, 2048, 4096, 16 * 1024 - 1, 16 * 1024, 16 * 1024 + 1, 100 * 1024, rng.int(300_000), rng.int(5000)];

/** Feeds `bytes` to `hasher` in random pieces (some below the JS batch
 * threshold, some above, some chunk-aligned). */
function feed(hasher: InstanceType<typeof b3.Hasher>, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length; ) {
    const size = [1, 64, 1024, 2048, 1 + rng.int(70_000)][rng.int(5)]!;
    hasher.update(bytes.subarray(at, at + size));
    at += size;
  }
}

const IV_BYTES = Uint8Array.from(
  [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19].flatMap((word) => [
    word & 0xff,
    (word >>> 8) & 0xff,
    (word >>> 16) & 0xff,
    word >>> 24,
  ]),
);

describe(`saved states (seed ${seed})`, () => {
  describe.each(modes)('$name', ({ ours, theirs }) => {
    it('a state saved at any point finishes to the one-pass output in a fresh hasher', () => {
      for (const length of LENGTHS) {
        const input = pattern(length);
        const expected = b3.toHex(noble(input, { ...theirs, dkLen: 131 }));
        for (const split of new Set([0, 1, length >> 1, length - 1, length, rng.int(length + 1)])) {
          if (split < 0 || split > length) continue;
          const source = b3.createHasher(ours);
          feed(source, input.subarray(0, split));
          const saved = source.save();
          expect(b3.toHex(source.save()), 'save is canonical and leaves the hasher as it was').toBe(b3.toHex(saved));
          const resumed = b3.createHasher(ours);
          expect(resumed.load(saved)).toBe(resumed);
          feed(resumed, input.subarray(split));
          expect(b3.toHex(resumed.digest({ length: 131 })), `length ${length} split ${split}`).toBe(expected);
          expect(b3.toHex(resumed.xof().read(131))).toBe(expected);
          feed(source, input.subarray(split));
          expect(b3.toHex(source.digest({ length: 131 })), 'the source goes on unchanged').toBe(expected);
          source.dispose();
          resumed.dispose();
        }
      }
    });

    it('the bytes depend on the input only, not on how it was split', () => {
      for (const length of [1, 1024, 1025, 4096, 70_000]) {
        const input = pattern(length);
        const states = [input.length, 1, 1024, 3000].map((piece) => {
          using hasher = b3.createHasher(ours);
          for (let at = 0; at < length; at += piece) hasher.update(input.subarray(at, at + piece));
          return b3.toHex(hasher.save());
        });
        expect(new Set(states).size, `length ${length}`).toBe(1);
      }
    });

    it('load replaces what the hasher had, and a saved state loads again and again', () => {
      using source = b3.createHasher(ours);
      const saved = source.update(pattern(5000)).save();
      using target = b3.createHasher(ours);
      target.update(pattern(777));
      target.load(saved).load(saved).update(pattern(10, 3));
      using twice = b3.createHasher(ours).load(saved);
      const expected = b3.toHex(noble(new Uint8Array([...pattern(5000), ...pattern(10, 3)]), theirs));
      expect(b3.toHex(target.digest())).toBe(expected);
      expect(b3.toHex(twice.update(pattern(10, 3)).digest())).toBe(expected);
    });
  });

  it('writes the header and trailer of the format', () => {
    for (const [length, mode, options, keyBytes] of [
      [0, 0, undefined, IV_BYTES],
      [1025, 0, undefined, IV_BYTES],
      [5000, 1, { key: KEY }, KEY],
      [70_000, 2, { context: CONTEXT }, undefined],
    ] as const) {
      using hasher = b3.createHasher(options);
      const state = hasher.update(pattern(length)).save();
      const chunks = length === 0 ? 0 : Math.floor((length - 1) / 1024);
      const stack = chunks.toString(2).replace(/0/g, '').length;
      expect(state.length).toBe(24 + 108 + 32 * stack + 16);
      expect(String.fromCharCode(...state.subarray(0, 4))).toBe('B3KS');
      expect([...state.subarray(4, 8)]).toEqual([2, mode, 0, 0]);
      if (keyBytes !== undefined) {
        const check = noble(utf8.encode('blake3-kit saved state key check'), { key: keyBytes, dkLen: 16 });
        expect(b3.toHex(state.subarray(8, 24))).toBe(b3.toHex(check));
      }
      const end = state.length - 16;
      expect(b3.toHex(state.subarray(end))).toBe(b3.toHex(noble(state.subarray(0, end), { dkLen: 16 })));
      const body = new DataView(state.buffer, 24);
      expect(body.getBigUint64(0, true)).toBe(BigInt(chunks));
      const inChunk = length - 1024 * chunks;
      expect([body.getUint8(8), body.getUint8(9), body.getUint8(10), body.getUint8(11)]).toEqual([
        inChunk === 0 ? 0 : Math.floor((inChunk - 1) / 64),
        inChunk === 0 ? 0 : inChunk - 64 * Math.floor((inChunk - 1) / 64),
        stack,
        0,
      ]);
    }
  });

  // Past MAX_SLOTS live hashers, wasm keeps a hasher's state in JS memory
  // (src/wasm/engine.ts): such hashers save and load too.
  it.runIf(backend.startsWith('wasm'))('hashers whose wasm state is parked in JS memory', () => {
    const held = Array.from({ length: MAX_SLOTS }, () => b3.createHasher().update(pattern(2048)));
    try {
      using parked = b3.createHasher({ key: KEY }).update(pattern(70_000));
      const saved = parked.save();
      using source = b3.createHasher({ key: KEY });
      source.update(pattern(70_000));
      expect(b3.toHex(saved)).toBe(b3.toHex(source.save()));
      using resumed = b3.createHasher({ key: KEY }).update(pattern(3)).load(saved);
      const expected = b3.toHex(noble(new Uint8Array([...pattern(70_000), ...pattern(5)]), { key: KEY }));
      expect(b3.toHex(resumed.update(pattern(5)).digest())).toBe(expected);
    } finally {
      for (const hasher of held) hasher.dispose();
    }
  });

  describe('load rejects, and leaves the hasher usable', () => {
    /** `hasher`, with some input, still finishes right after a failed load. */
    function expectUnchanged(hasher: InstanceType<typeof b3.Hasher>, before: Uint8Array, theirs: object): void {
      hasher.update(pattern(100, 7));
      expect(b3.toHex(hasher.digest())).toBe(b3.toHex(noble(new Uint8Array([...before, ...pattern(100, 7)]), theirs)));
    }

    function savedAfter(length: number, options?: { key?: Uint8Array; context?: string }): Uint8Array {
      using hasher = b3.createHasher(options);
      return hasher.update(pattern(length)).save();
    }

    it('every single-byte change of a saved state, at several lengths', () => {
      for (const length of [0, 1, 1025, 5000]) {
        const saved = savedAfter(length, { key: KEY });
        const before = pattern(300);
        using hasher = b3.createHasher({ key: KEY }).update(before);
        for (let at = 0; at < saved.length; at++) {
          for (const flip of [0x01, 0x80]) {
            const bad = saved.slice();
            bad[at]! ^= flip;
            const error = thrownBy(() => hasher.load(bad));
            expect(error, `byte ${at} ^ ${flip} of a ${length}-byte state`).toBeInstanceOf(Error);
          }
        }
        expectUnchanged(hasher, before, { key: KEY });
      }
    });

    it('another format version, mode, key or context, with a message that says so', () => {
      const cases: [Uint8Array, { key?: Uint8Array; context?: string } | undefined, RegExp][] = [];
      const v3 = savedAfter(2000);
      v3[4] = 3;
      cases.push([v3, undefined, /saved by state format v3; this version reads v1 and v2/]);
      const magic = savedAfter(10);
      magic[0] = 0x41;
      cases.push([magic, undefined, /not a blake3-kit saved state/]);
      cases.push([savedAfter(2000), { key: KEY }, /saved from a hash hasher; this hasher is keyed_hash/]);
      cases.push([savedAfter(2000, { key: KEY }), { context: CONTEXT }, /saved from a keyed_hash hasher; this hasher is derive_key/]);
      const otherKey = KEY.slice();
      otherKey[0]! ^= 1;
      cases.push([savedAfter(2000, { key: KEY }), { key: otherKey }, /another key\/context/]);
      cases.push([savedAfter(2000, { context: CONTEXT }), { context: `${CONTEXT}!` }, /another key\/context/]);
      for (const [state, options, message] of cases) {
        const before = pattern(1500);
        using hasher = b3.createHasher(options).update(before);
        expect(() => hasher.load(state)).toThrow(message);
        const theirs = options?.key ? { key: options.key } : options?.context ? { context: utf8.encode(options.context) } : {};
        expectUnchanged(hasher, before, theirs);
      }
    });

    it('truncated, extended and non-byte states', () => {
      const saved = savedAfter(3000);
      const before = pattern(20);
      using hasher = b3.createHasher().update(before);
      for (const bad of [saved.subarray(0, saved.length - 1), saved.subarray(0, 147), new Uint8Array(0), new Uint8Array([...saved, 0])]) {
        expect(thrownBy(() => hasher.load(bad))).toBeInstanceOf(RangeError);
      }
      // A whole stack entry more or less is the right shape: the checksum catches it.
      for (const bad of [saved.subarray(0, saved.length - 32), new Uint8Array([...saved, ...new Uint8Array(32)])]) {
        expect(() => hasher.load(bad)).toThrow(/corrupted/);
      }
      for (const bad of ['B3KS', 42, null, undefined, {}, [...saved]]) {
        expect(
          thrownBy(() => hasher.load(bad as never)),
          String(bad),
        ).toBeInstanceOf(TypeError);
      }
      // Any byte view and ArrayBuffer are accepted.
      expect(b3.createHasher().load(new DataView(saved.buffer.slice(0)) as never)).toBeInstanceOf(b3.Hasher);
      expect(b3.createHasher().load(saved.buffer.slice(0) as never)).toBeInstanceOf(b3.Hasher);
      expectUnchanged(hasher, before, {});
    });

    it('a body that breaks the format under a valid checksum', async () => {
      const saved = savedAfter(3000);
      // Re-seal a changed body with a right checksum, as a buggy writer would.
      const bad = saved.slice();
      bad[24 + 11] = 1; // the body's reserved byte
      const end = bad.length - 16;
      bad.set(noble(bad.subarray(0, end), { dkLen: 16 }), end);
      const before = pattern(64);
      using hasher = b3.createHasher().update(before);
      const error = thrownBy(() => hasher.load(bad));
      expect(error).toBeInstanceOf(RangeError);
      expect((error as Error).message).toMatch(/saved state .*is not valid: .*reserved/);
      expectUnchanged(hasher, before, {});
    });

    it('a disposed or busy hasher', async () => {
      const saved = savedAfter(10);
      const hasher = b3.createHasher();
      hasher.dispose();
      expect(() => hasher.save()).toThrow(/disposed/);
      expect(() => hasher.load(saved)).toThrow(/disposed/);
      using busy = b3.createHasher();
      if (!busy.supports('updateAsync')) return;
      const running = busy.updateAsync(pattern(4 << 20));
      expect(() => busy.save()).toThrow(/busy/);
      expect(() => busy.load(saved)).toThrow(/busy/);
      await running;
      expect(b3.toHex(busy.digest())).toBe(b3.toHex(noble(pattern(4 << 20))));
    });
  });
});
