// Saved states keep no secret and stay inside BLAKE3's domain, on every
// backend: no state holds its key (format v2), states of format v1 (which
// held it) still load, and at the input limit of 2^64 - 1 bytes, states
// forged from test/state-edges.json (written by the official crate) finish
// to the official output, while every update past the limit throws a
// RangeError and changes nothing.
import { blake3 as noble } from '@noble/hashes/blake3.js';
import { describe, expect, it } from 'vitest';
import edges from '../state-edges.json';
import { CONTEXT, KEY, load, pattern, random, seed, thrownBy } from './setup.js';

const b3 = await load();
type Hasher = InstanceType<typeof b3.Hasher>;

const modes = [
  { name: 'hash', ours: undefined, theirs: {} },
  { name: 'keyed_hash', ours: { key: KEY }, theirs: { key: KEY } },
  { name: 'derive_key', ours: { context: CONTEXT }, theirs: { context: new TextEncoder().encode(CONTEXT) } },
] as const;
type ModeName = (typeof modes)[number]['name'];

const HEADER = 24;
const CHECK = 16;
const fromHex = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (byte) => Number.parseInt(byte, 16));

/** A state with this header and `body`, sealed with a right checksum. */
function seal(header: Uint8Array, body: Uint8Array): Uint8Array {
  const state = new Uint8Array(HEADER + body.length + CHECK);
  state.set(header.subarray(0, HEADER));
  state.set(body, HEADER);
  state.set(noble(state.subarray(0, HEADER + body.length), { dkLen: CHECK }), HEADER + body.length);
  return state;
}

/** A valid header (magic, version, mode, key check) for a hasher made with `options`. */
function headerFor(options: (typeof modes)[number]['ours']): Uint8Array {
  using hasher = b3.createHasher(options);
  return hasher.save().slice(0, HEADER);
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let at = 0; at + needle.length <= haystack.length; at++) {
    for (let i = 0; i < needle.length; i++) if (haystack[at + i] !== needle[i]) continue outer;
    return at;
  }
  return -1;
}

/** The hasher's output (131 bytes) as hex; the hasher is unchanged. */
const output = (hasher: Hasher) => b3.toHex(hasher.digest({ length: 131 }));

describe(`saved states keep no key (seed ${seed})`, () => {
  const rng = random(seed);
  // Every length the issue found the key at, and more around chunk ends.
  const lengths = [0, 1, 64, 1024, 1025, 1088, 2048, 2049, 8222, 1_048_640, rng.int(3_000_000), 1024 * rng.int(300) + 1];

  it('a keyed state holds no 32-byte run of its key, at any length', () => {
    for (const length of lengths) {
      using hasher = b3.createHasher({ key: KEY }).update(pattern(length));
      const state = hasher.save();
      expect(indexOf(state, KEY), `length ${length}`).toBe(-1);
      // Nor half of it (the chunk value field is all zeros before a block).
      for (const part of [KEY.subarray(0, 16), KEY.subarray(16)]) expect(indexOf(state, part), `length ${length}`).toBe(-1);
      const blocks = state[HEADER + 8];
      if (blocks === 0) expect([...state.subarray(HEADER + 12, HEADER + 44)].every((byte) => byte === 0)).toBe(true);
    }
  });

  it.each(modes)('$name: a version 1 state (with the key in it) loads and finishes to the one-pass output', ({ ours, theirs }) => {
    for (const length of [0, 1, 1025, 5000, 70_000 + rng.int(5000)]) {
      using source = b3.createHasher(ours).update(pattern(length));
      const v2 = source.save();
      const blocks = v2[HEADER + 8];
      // v1 wrote the chunk's value there: the key itself before any block.
      const key = ours === undefined ? hashModeKey() : 'key' in ours ? KEY : fromHex(edges.context_key);
      const body = v2.slice(HEADER, v2.length - CHECK);
      if (blocks === 0) body.set(key, 12);
      const header = v2.slice(0, HEADER);
      header[4] = 1;
      const v1 = seal(header, body);
      using resumed = b3.createHasher(ours).load(v1);
      resumed.update(pattern(3000, 7));
      const expected = b3.toHex(noble(new Uint8Array([...pattern(length), ...pattern(3000, 7)]), { ...theirs, dkLen: 131 }));
      expect(output(resumed), `length ${length}`).toBe(expected);
      if (blocks !== 0) continue;
      // A v1 field that is not this hasher's key: refused, nothing changed.
      body[12]! ^= 1;
      using target = b3.createHasher(ours).update(pattern(10));
      const error = thrownBy(() => target.load(seal(header, body)));
      expect(error).toBeInstanceOf(RangeError);
      expect((error as Error).message).toMatch(/not this hasher's key/);
      expect(b3.toHex(target.digest())).toBe(b3.toHex(noble(pattern(10), theirs)));
    }
  });
});

/** BLAKE3's IV as bytes: the key a v1 hash-mode state held. */
function hashModeKey(): Uint8Array {
  const words = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
  return Uint8Array.from(words.flatMap((word) => [word & 0xff, (word >>> 8) & 0xff, (word >>> 16) & 0xff, word >>> 24]));
}

describe("inside BLAKE3's domain: states at the input limit (test/state-edges.json)", () => {
  it('use the vectors key and context, and reach the last chunk', () => {
    expect(edges.key).toBe(new TextDecoder().decode(KEY));
    expect(edges.context_string).toBe(CONTEXT);
    expect(edges.cases.some((c) => c.room === '0' && c.chunk_counter === String(2n ** 54n - 1n))).toBe(true);
  });

  const rng = random(seed + 1);
  for (const { name, ours } of modes) {
    it.each(edges.cases.map((c) => [`${c.chunk_counter} +${c.block_len}+${c.more_len}`, c] as const))(`${name}: %s`, (_, c) => {
      const state = seal(headerFor(ours), fromHex(c.body));
      using hasher = b3.createHasher(ours).load(state);
      const more = pattern(c.block_len + c.more_len).subarray(c.block_len);
      // Random pieces: some gather in the JS batch, some go straight on.
      for (let at = 0; at < more.length; ) {
        const size = 1 + rng.int([16, 2000, 300_000][rng.int(3)]!);
        hasher.update(more.subarray(at, at + size));
        at += size;
      }
      const expected = c[name as ModeName];
      expect(output(hasher)).toBe(expected);
      // States below the last few MiB before the limit: only the output.
      if (BigInt(c.room) > 1n << 20n) return;
      const room = Number(c.room);
      // Past the room, by a large update, a small one, a string: refused,
      // with the hasher as it was.
      for (const past of [new Uint8Array(room + 1), new Uint8Array(room + 70_000), 'x'.repeat(room + 1)]) {
        const error = thrownBy(() => hasher.update(past));
        expect(error, `an update of ${past.length} past a room of ${room}`).toBeInstanceOf(RangeError);
        expect((error as Error).message).toMatch(/past 2\^64 - 1 bytes/);
        expect(output(hasher)).toBe(expected);
      }
      if (room === 0) {
        const error = thrownBy(() => hasher.save());
        expect(error).toBeInstanceOf(RangeError);
        expect((error as Error).message).toMatch(/2\^64 - 1 bytes/);
        return;
      }
      // Up to the room in one-byte updates (the batch path), then one more.
      using filled = hasher.clone();
      const step = Math.min(room, 40);
      for (let i = 0; i < step; i++) filled.update(new Uint8Array([i]));
      if (step === room) {
        expect(thrownBy(() => filled.update(new Uint8Array(1)))).toBeInstanceOf(RangeError);
        expect(thrownBy(() => filled.save())).toBeInstanceOf(RangeError);
      }
      // Its saved state loads and finishes the same.
      using resumed = b3.createHasher(ours).load(hasher.save());
      expect(output(resumed)).toBe(expected);
    });
  }

  /** A body after 2^54 - 1 chunks whose last chunk holds `inChunk` bytes. */
  function lastChunkBody(inChunk: number): Uint8Array {
    const body = new Uint8Array(108 + 32 * 54).fill(0x33, 108);
    const view = new DataView(body.buffer);
    view.setBigUint64(0, 2n ** 54n - 1n, true);
    const blocks = Math.floor((inChunk - 1) / 64);
    body.set([blocks, inChunk - 64 * blocks, 54, 0], 8);
    body.fill(0x5a, 12, 44);
    body.set(pattern(inChunk - 64 * blocks), 44);
    return body;
  }

  it.each(modes)('$name: a state of 2^64 or 2^64 - 1 bytes is refused; of 2^64 - 2, it loads with 1 byte of room', ({ ours }) => {
    const header = headerFor(ours);
    for (const inChunk of [1024, 1023]) {
      using hasher = b3.createHasher(ours).update(pattern(100));
      const error = thrownBy(() => hasher.load(seal(header, lastChunkBody(inChunk))));
      expect(error, `${inChunk} bytes in the last chunk`).toBeInstanceOf(RangeError);
      expect((error as Error).message).toMatch(/2\^64 - 1 bytes or more|2\^64 - 2 bytes/);
      expect(b3.toHex(hasher.digest())).toBe(b3.toHex(b3.createHasher(ours).update(pattern(100)).digest()));
    }
    using hasher = b3.createHasher(ours).load(seal(header, lastChunkBody(1022)));
    expect(thrownBy(() => hasher.update(new Uint8Array(2)))).toBeInstanceOf(RangeError);
    hasher.update(new Uint8Array(1));
    expect(thrownBy(() => hasher.update(''))).toBeUndefined();
    expect(thrownBy(() => hasher.update('a'))).toBeInstanceOf(RangeError);
  });

  it('updateAsync and updateFromFd refuse input past the room, and change nothing', async () => {
    const header = headerFor({ key: KEY });
    using hasher = b3.createHasher({ key: KEY }).load(seal(header, lastChunkBody(1000)));
    if (!hasher.supports('updateAsync')) return;
    const before = output(hasher);
    await expect(hasher.updateAsync(new Uint8Array(24))).rejects.toThrow(RangeError);
    await expect(hasher.updateAsync(new Uint8Array(20 << 20))).rejects.toThrow(/past 2\^64 - 1 bytes/);
    expect(output(hasher)).toBe(before);
    await hasher.updateAsync(new Uint8Array(23));
    expect(thrownBy(() => hasher.update(new Uint8Array(1)))).toBeInstanceOf(RangeError);
    await expect(hasher.updateFromFd(0, 0, 1, false)).rejects.toThrow(RangeError);
  });
});
