// The SIMD module's two single-block codes (row-wise v128 and u32 words)
// and two chunk codes (four lanes, or one chunk at a time): the start-up
// probe picks per host and engine, so each host runs only one pair in the
// rest of the suite. Here all four pairs are forced in turn and held to
// @noble/hashes at the sizes single blocks serve, and past them.
import { blake3 as noble } from '@noble/hashes/blake3.js';
import { backendStatus } from 'blake3-kit';
import { describe, expect, it } from 'vitest';
import { WorkerPool } from '../../src/parallel/pool.js';
import { blockChoice, forceBlocks, holdProbe, kernelCode, probeBlocks } from '../../src/wasm/blocks.js';
import { core } from '../../src/wasm/core.js';
import { CONTEXT, flavour, KEY, load, random, seed } from '../shared/setup.js';

const b3 = await load();
const utf8 = new TextEncoder();
const E_MODE = -3; // crate/wasm/src/lib.rs

async function probeEnded(): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (blockChoice().how === 'probing' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
}

// Every length up to 1100, then ±3 around each block up to 4 KiB + 64.
const lengths: number[] = [];
for (let length = 0; length <= 1100; length++) lengths.push(length);
for (let block = 1152; block <= 4160; block += 64) for (let d = -3; d <= 3; d++) lengths.push(block + d);

describe.runIf(flavour === 'simd')('single blocks in the SIMD module', () => {
  it('the probe ends measured, keeps rows unless words were clearly faster, and runs lanes', async () => {
    await probeEnded();
    const choice = blockChoice();
    expect(choice.how).toBe('measured');
    expect(choice.rowsMicros).toBeGreaterThan(0);
    expect(choice.wordsMicros).toBeGreaterThan(0);
    // Words when under 0.95 of rows; the µs are rounded, so not judged within 1% of that.
    const ratio = choice.wordsMicros! / choice.rowsMicros!;
    if (Math.abs(ratio - 0.95) > 0.01) expect(choice.blocks).toBe(ratio < 0.95 ? 'words' : 'rows');
    // Two rounds that agree end it, else up to four: a probe that ended
    // before the fourth ended on a clear choice.
    expect([2, 3, 4]).toContain(choice.rounds);
    const clear = choice.wordsMicros! < choice.rowsMicros! * 0.96 || choice.rowsMicros! < choice.wordsMicros! * 0.96; // the µs are rounded
    if (choice.rounds! < 4) expect(clear).toBe(true);
    expect(choice.chunks).toBe('lanes');
    // Re-read message vectors in JavaScriptCore (Bun, WebKit), kept live elsewhere.
    const agent = globalThis.navigator?.userAgent ?? '';
    const javaScriptCore = 'Bun' in globalThis || (/AppleWebKit\//.test(agent) && !/(Chrome|Chromium)\//.test(agent));
    expect(choice.messages).toBe(javaScriptCore ? 'reloaded' : 'live');
    expect(core!.reload_message()).toBe(javaScriptCore ? 1 : 0);
    expect(core!.word_blocks()).toBe(choice.blocks === 'words' ? 1 : 0);
    expect(core!.lanes()).toBe(choice.chunks === 'lanes' ? 1 : 0);
    expect(kernelCode()).toBe((choice.blocks === 'words' ? 1 : 0) | (choice.chunks === 'single' ? 2 : 0) | (choice.messages === 'reloaded' ? 4 : 0));
    expect(backendStatus().wasmBlocks).toEqual(choice);
  });

  it('a probe waits while held: by holdProbe, and by the first call that hashes on this thread', async () => {
    const pause = () => new Promise((resolve) => setTimeout(resolve, 150));
    const release = holdProbe();
    probeBlocks(core!); // measures anew
    await pause();
    expect(blockChoice().how).toBe('probing');
    release();
    release(); // a second release changes nothing
    await probeEnded();
    expect(blockChoice().how).toBe('measured');
    // A pool's first call that holds the start (hashParallel below 256 MiB)
    // holds the probe too: its 18 slices cost Chromium's first 64 MiB call 18 ms.
    const pool = new WorkerPool(
      () => {
        throw new Error('no worker is started while the call holds the start');
      },
      undefined as never,
      undefined,
      2,
      () => 60_000,
    );
    const held = pool.acquire(true);
    expect(held).toBe(true);
    probeBlocks(core!);
    await pause();
    expect(blockChoice().how).toBe('probing');
    pool.terminate();
    pool.release(held);
    await probeEnded();
    expect(blockChoice().how).toBe('measured');
  });

  it('the export takes 0 or 1 only', () => {
    expect(core!.set_word_blocks(2)).toBe(E_MODE);
    expect(core!.set_word_blocks(-1)).toBe(E_MODE);
    expect(core!.set_word_blocks(1)).toBe(1);
    expect(core!.word_blocks()).toBe(1);
    expect(core!.set_word_blocks(0)).toBe(0);
    expect(core!.word_blocks()).toBe(0);
    expect(core!.set_lanes(2)).toBe(E_MODE);
    expect(core!.set_lanes(-1)).toBe(E_MODE);
    expect(core!.set_lanes(0)).toBe(0);
    expect(core!.lanes()).toBe(0);
    expect(core!.set_lanes(1)).toBe(1);
    expect(core!.lanes()).toBe(1);
    expect(core!.set_reload_message(2)).toBe(E_MODE);
    expect(core!.set_reload_message(1)).toBe(1);
    expect(core!.reload_message()).toBe(1);
    expect(core!.set_reload_message(0)).toBe(0);
    expect(core!.reload_message()).toBe(0);
  });

  const codes = [
    ['rows', 'lanes', 'live'],
    ['rows', 'lanes', 'reloaded'],
    ['rows', 'single', 'live'],
    ['words', 'lanes', 'live'],
    ['words', 'lanes', 'reloaded'],
    ['words', 'single', 'live'],
  ] as const;
  describe.each(codes)('%s blocks, %s chunks, %s messages', (blocks, chunks, messages) => {
    const rng = random(seed);
    const source = rng.bytes(8192);
    const modes = [
      { ours: {}, theirs: {} },
      { ours: { key: KEY }, theirs: { key: KEY } },
      { ours: { context: CONTEXT }, theirs: { context: utf8.encode(CONTEXT) } },
    ];

    it(`every length to 1100 and around blocks to 4 KiB, three modes (seed ${seed})`, () => {
      forceBlocks(core!, blocks, chunks, messages);
      expect(blockChoice()).toEqual({ blocks, chunks, messages, how: 'forced' });
      for (const { ours, theirs } of modes) {
        for (const length of lengths) {
          const input = source.subarray(length % 7, (length % 7) + length);
          const actual = b3.toHex(b3.hash(input, ours));
          const expected = b3.toHex(noble(input, theirs));
          if (actual !== expected) expect.fail(`${blocks}, length ${length}, ${Object.keys(ours)}: ${actual} != ${expected}`);
        }
      }
    });

    it('longer inputs across chunk groups and parents, extended output at positions, hashers fed in random pieces', () => {
      forceBlocks(core!, blocks, chunks, messages);
      for (const length of [5119, 8192, 8193, 12 * 1024 + 7, 33 * 1024, 64 * 1024 + 1, 200_000]) {
        const input = rng.bytes(length);
        expect(b3.toHex(b3.hash(input)), `length ${length}`).toBe(b3.toHex(noble(input)));
      }
      for (const length of [0, 1, 64, 65, 1023, 1024, 1025, 3000]) {
        const input = source.subarray(0, length);
        const reader = b3.createHasher().update(input).xof();
        reader.position = 70;
        expect(b3.toHex(reader.read(300)), `length ${length}`).toBe(b3.toHex(noble(input, { dkLen: 370 }).subarray(70)));
        reader.position = 1000;
        expect(b3.toHex(reader.read(1100)), `length ${length}, 1 KiB read`).toBe(b3.toHex(noble(input, { dkLen: 2100 }).subarray(1000)));
      }
      for (let i = 0; i < 40; i++) {
        const length = rng.int(5000);
        const input = source.subarray(0, length);
        const hasher = b3.createHasher({ key: KEY });
        for (let at = 0; at < length; ) {
          const piece = 1 + rng.int(300);
          hasher.update(input.subarray(at, at + piece));
          at += piece;
        }
        expect(b3.toHex(hasher.digest()), `length ${length}`).toBe(b3.toHex(noble(input, { key: KEY })));
        hasher.dispose();
      }
    });
  });
});

describe.runIf(flavour === 'scalar')('single blocks in the scalar module', () => {
  it('are words and single chunks only: asking for rows or lanes is a RangeError and changes nothing', () => {
    expect(blockChoice()).toEqual({ blocks: 'words', chunks: 'single', messages: 'live', how: 'only' });
    expect(() => forceBlocks(core!, 'rows', 'single')).toThrow(RangeError);
    expect(() => forceBlocks(core!, 'words', 'lanes')).toThrow(RangeError);
    expect(() => forceBlocks(core!, 'words', 'single', 'reloaded')).toThrow(RangeError);
    expect(core!.set_lanes(1)).toBe(E_MODE);
    expect(core!.set_reload_message(1)).toBe(E_MODE);
    expect(core!.reload_message()).toBe(0);
    expect(core!.word_blocks()).toBe(1);
    expect(core!.lanes()).toBe(0);
    expect(b3.toHex(b3.hash(new Uint8Array(1000)))).toBe(b3.toHex(noble(new Uint8Array(1000))));
  });
});

describe('backendStatus()', () => {
  it('names the backend and why it was chosen', () => {
    const status = backendStatus();
    expect(status.backend).toBe(b3.backend);
    expect(status.reason).toContain(b3.backend);
    expect(status.reason).toMatch(/asked for with|validates WebAssembly SIMD|has no WebAssembly SIMD/);
  });
});
