// A worker's Blob slice, hashed as it is read: bytes go from the browser's
// stream straight into a hasher, through one reused buffer, so a 256 MiB
// File never sits in memory as whole 8 MiB slices.
//
// Measured in Chromium 156 (bench/parallel/browser.mjs --blob-only, one
// 256 MiB File, cached): a BYOB reader into a reused 256 KiB buffer took
// ~255 ms and 17-19 MiB of renderer growth; arrayBuffer() of each slice
// ~340 ms and 179-211 MiB; a default reader ~370 ms. But Chromium sometimes
// leaves a BYOB read unanswered (8 of 136 hashes, never in a run's first
// six): a read that has not answered within `stallMs` is given up on, the
// stream cancelled, and the rest of the slice read with arrayBuffer(). The
// hasher keeps what was fed, so nothing is read twice.

import type { Mode } from '../modes.js';
import { core, updateSlotBytes, finishSubtree, openSubtree } from '../wasm/workers.js';
import { high32, low32 } from '../tree/geometry.js';

const READ_LENGTH = 256 * 1024;

/** A cached 256 KiB read takes ~0.25 ms and a disk's first read a few ms.
 * A false alarm costs little (the rest of one slice read the slower way),
 * a stall this long on every slice of a 256 MiB File twice the time. */
export const STALL_MS = 500;

/** Buffers of finished reads, for the next slice (a worker reads at most
 * two slices at once). */
const spare: ArrayBuffer[] = [];

export interface SliceValue {
  cv: Uint8Array;
  /** A read stalled and the slice was finished with arrayBuffer(). */
  stalled: boolean;
}

/** The non-root chaining value of `blob`, a whole subtree at input
 * `offset`. */
export async function blobSubtreeValue(mode: Mode, key: Uint8Array | undefined, offset: number, blob: Blob, stallMs = STALL_MS): Promise<SliceValue> {
  const slot = openSubtree(mode, key, low32(offset), high32(offset));
  try {
    const fed = await streamInto(slot, blob, stallMs);
    const stalled = fed < blob.size;
    if (stalled) updateSlotBytes(slot, new Uint8Array(await blob.slice(fed).arrayBuffer()));
    return { cv: finishSubtree(slot), stalled };
  } finally {
    core!.hasher_free(slot);
  }
}

const STALLED = Symbol('stalled');

/** Feeds `blob`'s stream to `slot`; returns the bytes fed, fewer than the
 * blob's size only when a read stalled. */
async function streamInto(slot: number, blob: Blob, stallMs: number): Promise<number> {
  const stream = blob.stream();
  let byob: ReadableStreamBYOBReader | undefined;
  try {
    byob = stream.getReader({ mode: 'byob' });
  } catch {
    // Not a byte stream in this engine: its own chunks, as they come.
  }
  const reader = byob ?? stream.getReader();
  let buffer = byob ? (spare.pop() ?? new ArrayBuffer(READ_LENGTH)) : undefined;
  let fed = 0;
  try {
    for (;;) {
      const read = byob ? byob.read(new Uint8Array(buffer!)) : (reader as ReadableStreamDefaultReader<Uint8Array>).read();
      const result = await withDeadline(read, stallMs);
      if (result === STALLED) {
        // The pending read keeps the buffer; cancel() settles it.
        buffer = undefined;
        reader.cancel().catch(() => {});
        return fed;
      }
      if (result.done) break;
      updateSlotBytes(slot, result.value);
      fed += result.value.length;
      if (byob) buffer = result.value.buffer as ArrayBuffer;
    }
  } catch (error) {
    buffer = undefined;
    reader.cancel().catch(() => {});
    throw error;
  } finally {
    if (buffer !== undefined && buffer.byteLength === READ_LENGTH) spare.push(buffer);
  }
  return fed;
}

function withDeadline<T>(read: Promise<T>, ms: number): Promise<T | typeof STALLED> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<typeof STALLED>((resolve) => {
    timer = setTimeout(() => resolve(STALLED), ms);
  });
  return Promise.race([read, deadline]).finally(() => clearTimeout(timer));
}
