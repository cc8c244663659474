// How a worker reads a Blob slice (src/parallel/read-blob.ts): hashed as it
// streams in, and finished with arrayBuffer() when a read stalls, as
// Chromium's BYOB reads sometimes do. Run here on the calling thread, with
// made-up streams that stall, so the stall path runs on every engine.
import { describe, expect, it } from 'vitest';
import { MODE_DERIVE_KEY, MODE_HASH, MODE_KEYED } from '../../src/modes.js';
import { blobSubtreeValue } from '../../src/parallel/read-blob.js';
import { chainingValueAtOffset } from '../../src/wasm/subtree.js';
import { KEY, load, random } from '../shared/setup.js';

await load();

const MiB = 1 << 20;
const toHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** Whether this engine has byte streams (then a slice is read with BYOB). */
const byteStreams = (() => {
  try {
    new ReadableStream({ type: 'bytes' }).getReader({ mode: 'byob' });
    return true;
  } catch {
    return false;
  }
})();

/** A Blob look-alike whose stream() gives the first `deliver` bytes in
 * 64 KiB chunks and then never answers (or errors, with `fail`); slice()
 * is a real Blob's. */
function stallingBlob(bytes: Uint8Array, deliver: number, options: { byteStream: boolean; fail?: Error }) {
  const real = new Blob([bytes as Uint8Array<ArrayBuffer>]);
  const state = { cancelled: false, streams: 0 };
  const source = {
    start(controller: { enqueue(chunk: Uint8Array<ArrayBuffer>): void; error(reason: unknown): void }) {
      for (let at = 0; at < deliver; at += 64 * 1024) controller.enqueue(bytes.slice(at, Math.min(deliver, at + 64 * 1024)));
      if (options.fail) controller.error(options.fail);
    },
    cancel() {
      state.cancelled = true;
    },
  };
  const blob = {
    size: bytes.length,
    slice: (start?: number, end?: number) => real.slice(start, end),
    stream: () => {
      state.streams++;
      return options.byteStream ? new ReadableStream({ ...source, type: 'bytes' }) : new ReadableStream(source);
    },
    arrayBuffer: () => real.arrayBuffer(),
  } as unknown as Blob;
  return { blob, state };
}

describe('a Blob slice hashed as it streams in', () => {
  it('gives the chaining value of the slice at its offset, in every mode', async () => {
    const bytes = random(41).bytes(2 * MiB);
    const context = new Uint8Array(32).fill(9);
    for (const [mode, key] of [
      [MODE_HASH, undefined],
      [MODE_KEYED, KEY],
      [MODE_DERIVE_KEY, context],
    ] as const) {
      for (const [offset, length] of <[number, number][]>[
        [0, 1024],
        [2 * MiB, 2 * MiB],
        [4 * MiB, MiB + 777],
        [2 ** 32, 300 * 1024],
        [3 * 2 ** 40, 1],
      ]) {
        const slice = bytes.subarray(0, length);
        const { cv, stalled } = await blobSubtreeValue(mode, key, offset, new Blob([slice as Uint8Array<ArrayBuffer>]));
        expect(stalled).toBe(false);
        expect(toHex(cv), `mode ${mode}, ${length} B at ${offset}`).toBe(toHex(chainingValueAtOffset(mode, key, offset, slice)));
      }
    }
  });

  for (const byteStream of byteStreams ? [true, false] : [false]) {
    const kind = byteStream ? 'a BYOB read' : 'a read';
    for (const deliver of [0, 300 * 1024, 2 * MiB - 1]) {
      it(`finishes with arrayBuffer() when ${kind} stalls after ${deliver} bytes`, async () => {
        const bytes = random(deliver + 1).bytes(2 * MiB);
        const { blob, state } = stallingBlob(bytes, deliver, { byteStream });
        const started = performance.now();
        const { cv, stalled } = await blobSubtreeValue(MODE_KEYED, KEY, 6 * MiB, blob, 100);
        const took = performance.now() - started;
        expect(stalled).toBe(true);
        expect(toHex(cv)).toBe(toHex(chainingValueAtOffset(MODE_KEYED, KEY, 6 * MiB, bytes)));
        // The stream is let go of, and the wait was the deadline, not the pool's 30 s.
        expect(state.cancelled).toBe(true);
        expect(took).toBeLessThan(5000);
      });
    }
  }

  it('rejects when the stream errors, and hashes the next slice', async () => {
    const bytes = random(3).bytes(MiB);
    const { blob } = stallingBlob(bytes, 100 * 1024, { byteStream: byteStreams, fail: new Error('the file changed') });
    await expect(blobSubtreeValue(MODE_HASH, undefined, 0, blob, 1000)).rejects.toThrow('the file changed');
    const { cv } = await blobSubtreeValue(MODE_HASH, undefined, 0, new Blob([bytes as Uint8Array<ArrayBuffer>]));
    expect(toHex(cv)).toBe(toHex(chainingValueAtOffset(MODE_HASH, undefined, 0, bytes)));
  });

  it('hashes two slices read at once (a worker takes two jobs)', async () => {
    const bytes = random(77).bytes(4 * MiB);
    const [left, right] = await Promise.all([
      blobSubtreeValue(MODE_HASH, undefined, 0, new Blob([bytes.subarray(0, 2 * MiB) as Uint8Array<ArrayBuffer>])),
      blobSubtreeValue(MODE_KEYED, KEY, 2 * MiB, new Blob([bytes.subarray(2 * MiB) as Uint8Array<ArrayBuffer>])),
    ]);
    expect(toHex(left!.cv)).toBe(toHex(chainingValueAtOffset(MODE_HASH, undefined, 0, bytes.subarray(0, 2 * MiB))));
    expect(toHex(right!.cv)).toBe(toHex(chainingValueAtOffset(MODE_KEYED, KEY, 2 * MiB, bytes.subarray(2 * MiB))));
  });
});
