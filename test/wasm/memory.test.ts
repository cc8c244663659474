// Wasm memory stays flat: over create/dispose cycles, and over forgotten
// hashers once the garbage collector has run. It grows in few steps, a
// hasher's slot is small (crate/wasm/src/slots.rs), and hashers past
// MAX_SLOTS keep their state in JS memory (src/wasm/engine.ts).
import { blake3 as noble } from '@noble/hashes/blake3.js';
import { memoryStats } from 'blake3-kit';
import { describe, expect, it } from 'vitest';
import { MAX_SLOTS } from '../../src/wasm/engine.js';
import { CONTEXT, KEY, load, random, seed } from '../shared/setup.js';

const b3 = await load();
// Hashers take a wasm slot only once input outgrows their JS batch.
const slotSized = new Uint8Array(2048);
const stats = () => memoryStats()!;
const gc = (globalThis as { gc?: () => void }).gc;
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Runs `create` `count` times, keeping the results; returns them and how
 * many times wasm memory grew meanwhile. */
function countGrows<T>(count: number, create: () => T): { held: T[]; grows: number } {
  const held: T[] = [];
  let bytes = stats().memoryBytes;
  let grows = 0;
  for (let i = 0; i < count; i++) {
    held.push(create());
    const now = stats().memoryBytes;
    if (now !== bytes) grows++;
    bytes = now;
  }
  return { held, grows };
}

/** Collects garbage until forgotten hashers have given their slots back. */
async function collectUntil(liveHashers: number): Promise<void> {
  for (let i = 0; i < 50 && stats().liveHashers > liveHashers; i++) {
    await nextTask();
    gc!();
  }
  expect(stats().liveHashers).toBe(liveHashers);
}

describe('memory', () => {
  // First in the file, so that it starts from a fresh module's memory.
  it('grows in a few geometric steps, by at most 1 KiB a hasher, and for at most MAX_SLOTS of them', () => {
    const before = stats();
    // One grow per 64 KiB page used to make V8 collect garbage on nearly
    // every grow past ~64 MB: 100k hashers were ~1,600 grows and 200 MB.
    const { held, grows } = countGrows(100_000, () => b3.createHasher().update(slotSized));
    const grown = stats().memoryBytes - before.memoryBytes;
    expect(stats().liveHashers).toBe(before.liveHashers + MAX_SLOTS);
    for (const h of held) h.dispose();
    expect(stats().liveHashers).toBe(before.liveHashers);
    expect(grows).toBeLessThanOrEqual(30);
    expect(grown).toBeLessThanOrEqual(MAX_SLOTS * 1024);
  });

  it('hashers and readers past MAX_SLOTS (state in JS memory) hash like the others, in every mode', () => {
    const rng = random(seed);
    const held = Array.from({ length: MAX_SLOTS }, () => b3.createHasher().update(slotSized));
    const slotsHeld = stats().liveHashers;
    const deep = rng.bytes(2 * 1024 * 1024 + 5000); // a stack past a slot's head
    for (const options of [{}, { key: KEY }, { context: CONTEXT }]) {
      const one = (input: Uint8Array, length = 32) => b3.createHasher(options).update(input).digest({ length });
      const first = rng.bytes(1500);
      const hasher = b3.createHasher(options).update(first);
      const copy = hasher.clone();
      hasher.update('é').update(deep);
      const both = new Uint8Array([...first, 0xc3, 0xa9, ...deep]);
      const reader = hasher.xof();
      expect(reader.read(100)).toEqual(b3.hash(both, { ...options, length: 100 }));
      reader.position = 2n ** 40n;
      const far = b3.createHasher(options).update(both).xof();
      far.position = 2n ** 40n;
      expect(reader.read(70_000)).toEqual(far.read(70_000));
      expect(hasher.digest({ length: 70_000 })).toEqual(one(both, 70_000));
      expect(copy.update(slotSized).digest()).toEqual(b3.hash(new Uint8Array([...first, ...slotSized]), options));
      expect(hasher.reset().update(first).digest()).toEqual(one(first));
      // Between calls they hold no slot.
      expect(stats().liveHashers).toBe(slotsHeld);
      for (const h of [hasher, copy, reader, far]) h.dispose();
    }
    for (const h of held) h.dispose();
  });

  it.runIf(gc)('reuses the memory of a burst of 10^5 forgotten hashers in the next bursts', async () => {
    const before = stats();
    const sizes: number[] = [];
    for (let burst = 0; burst < 3; burst++) {
      for (let i = 0; i < 100_000; i++) b3.createHasher().update(slotSized);
      sizes.push(stats().memoryBytes);
      await collectUntil(before.liveHashers);
    }
    expect(sizes[1]).toBe(sizes[0]);
    expect(sizes[2]).toBe(sizes[0]);
    expect(sizes[0]! - before.memoryBytes).toBeLessThanOrEqual(100_000 * 1024);
  });

  it('keeps hashing right when deep hashers grow memory inside update', () => {
    // Between calls a hasher keeps one chaining value per set bit of its
    // chunk count, and from 11 on they spill from its slot's head into a
    // tail. After a 63-chunk head start, 64 KiB staging piece k ends at chunk
    // 63 + 64k: piece 31 (2047 chunks) takes a tail, piece 32 gives it back
    // and piece 47 (3071) takes one again. So each hasher takes a tail with
    // pieces still to come, and holds one at the end; 100 of them outgrow
    // the first tail pages, so memory grows inside update().
    const headStart = 63 * 1024 + 100;
    const input = random(seed).bytes(headStart + 47 * 65536);
    const expected = noble(input);
    const before = stats().memoryBytes;
    const hashers = Array.from({ length: 100 }, () => b3.createHasher().update(input.subarray(0, headStart)).update(input.subarray(headStart)));
    const grown = stats().memoryBytes > before;
    const digests = hashers.map((h) => h.digest());
    // The clone copies a tail too.
    const copy = hashers[0]!.clone().update('x');
    const withX = new Uint8Array(input.length + 1);
    withX.set(input);
    withX[input.length] = 'x'.charCodeAt(0);
    const copyDigest = copy.digest();
    for (const h of [...hashers, copy]) h.dispose();
    expect(grown).toBe(true);
    for (const digest of digests) expect(digest).toEqual(expected);
    expect(copyDigest).toEqual(noble(withX));
  });

  it('stays flat over 10^6 create/dispose cycles', () => {
    b3.createHasher().update(slotSized).dispose(); // the first slot allocates a page
    const before = stats();
    for (let i = 0; i < 1_000_000; i++) {
      const hasher = b3.createHasher();
      if (i % 2 === 0) hasher.update(slotSized);
      if (i % 1000 === 0) hasher.update('x').digest();
      hasher.dispose();
    }
    expect(stats()).toEqual(before);
  });

  it('stays flat over 10^6 one-shot hashes of every size class', () => {
    const before = stats();
    const big = new Uint8Array(200_000);
    for (let i = 0; i < 1_000_000; i++) b3.hash(i % 10_000 === 0 ? big : 'abc');
    expect(stats()).toEqual(before);
  });

  it.runIf(gc)('stays flat over 10^6 forgotten hashers once the garbage collector runs', async () => {
    const before = stats();
    const batch = 20_000;
    let afterFirstBatch = 0;
    for (let done = 0; done < 1_000_000; done += batch) {
      for (let i = 0; i < batch; i++) b3.createHasher().update(slotSized);
      await nextTask();
      gc!();
      await nextTask();
      if (done === 0) afterFirstBatch = stats().memoryBytes;
    }
    gc!();
    for (let i = 0; i < 20 && stats().liveHashers > before.liveHashers; i++) {
      await nextTask();
      gc!();
    }
    // ~2 KB per slot: one batch is ~40 MB; 10^6 leaked would be ~2 GB.
    expect(stats().memoryBytes).toBeLessThanOrEqual(Math.max(afterFirstBatch, before.memoryBytes) * 2);
    expect(stats().liveHashers).toBe(before.liveHashers);
  });

  it('recycles slots: a second generation of hashers allocates nothing', () => {
    const hashers = Array.from({ length: 3000 }, () => b3.createHasher().update(slotSized));
    const peak = stats().memoryBytes;
    expect(stats().liveHashers).toBeGreaterThanOrEqual(3000);
    for (const h of hashers) h.dispose();
    const again = Array.from({ length: 3000 }, () => b3.createHasher().update(slotSized));
    expect(stats().memoryBytes).toBe(peak);
    for (const h of again) h.dispose();
  });
});
