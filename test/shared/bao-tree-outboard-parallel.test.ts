// baoTreeOutboardParallel where the pool keeps the input on this thread (no
// workers, or a small input): a Blob or stream is hashed here 1 MiB at a
// time and gives baoTreeOutboard's outboard and hash, with progress and
// abort. On the workers: test/shared/parallel-cases.ts.
import { baoTreeOutboard, toHex } from 'blake3-kit/bao';
import { describe, expect, it } from 'vitest';
import { baoTreeOutboardOn } from '../../src/addressing/bao-tree/outboard-parallel.js';
import { loadBao, pattern, random, seed } from './setup.js';

const b3 = await loadBao();
const rng = random(seed);
/** A pool that takes nothing, as one without workers. */
const declining = { chunkValues: async () => undefined, blobChunkValues: async () => undefined, streamChunkValues: async () => undefined };

describe(`baoTreeOutboardParallel on this thread (seed ${seed})`, () => {
  it('builds the outboard of a Blob or stream 1 MiB at a time, as baoTreeOutboard does', async () => {
    for (const [length, tree] of [
      [3 * 1024 * 1024 + 5, { chunkLog: 4 }],
      [(1 << 20) + rng.int(1 << 21), { chunkLog: 3, order: 'post' as const }],
      [1 << 20, { chunkLog: 0 }],
      [700, {}],
      [0, {}],
    ] as const) {
      const bytes = pattern(length, 3) as Uint8Array<ArrayBuffer>;
      const theirs = baoTreeOutboard(bytes, tree);
      const seen: number[] = [];
      const fromBlob = await baoTreeOutboardOn(declining, new Blob([bytes]), { ...tree, onProgress: (done) => seen.push(done) });
      expect(toHex(fromBlob.hash), `Blob of ${length}`).toBe(toHex(theirs.hash));
      expect(toHex(b3.hash(fromBlob.outboard))).toBe(toHex(b3.hash(theirs.outboard)));
      expect(seen.at(-1)).toBe(length);
      async function* odd() {
        for (let at = 0; at < length; at += 77_777) yield bytes.subarray(at, at + 77_777);
      }
      const fromStream = await baoTreeOutboardOn(declining, odd(), tree);
      expect(toHex(fromStream.hash), `stream of ${length}`).toBe(toHex(theirs.hash));
      expect(toHex(b3.hash(fromStream.outboard))).toBe(toHex(b3.hash(theirs.outboard)));
      expect(toHex((await baoTreeOutboardOn(declining, bytes, tree)).outboard)).toBe(toHex(theirs.outboard));
    }
  });

  it('stops when the signal aborts', async () => {
    const stop = new AbortController();
    const run = baoTreeOutboardOn(declining, new Blob([pattern(4 << 20) as Uint8Array<ArrayBuffer>]), {
      signal: stop.signal,
      onProgress: () => stop.abort(new Error('picked another file')),
    });
    await expect(run).rejects.toThrow('picked another file');
  });
});
