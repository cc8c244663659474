// Wasm memory stays flat: over create/dispose cycles, and over forgotten
// hashers once the garbage collector has run.
import { memoryStats } from 'blake3-kit';
import { describe, expect, it } from 'vitest';
import { load } from './setup.js';

const b3 = await load();
// Hashers take a wasm slot only once input outgrows their JS batch.
const slotSized = new Uint8Array(2048);
const stats = () => memoryStats()!;
const gc = (globalThis as { gc?: () => void }).gc;
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('memory', () => {
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
    const hashers = Array.from({ length: 5000 }, () => b3.createHasher().update(slotSized));
    const peak = stats().memoryBytes;
    expect(stats().liveHashers).toBeGreaterThanOrEqual(5000);
    for (const h of hashers) h.dispose();
    const again = Array.from({ length: 5000 }, () => b3.createHasher().update(slotSized));
    expect(stats().memoryBytes).toBe(peak);
    for (const h of again) h.dispose();
  });
});
