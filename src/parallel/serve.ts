// The worker side: instantiate the module the calling thread sent, then
// answer each job with the chaining value of its subtree.

import { attach } from '../wasm/core.js';
import { instantiate } from '../wasm/load.js';
import { chunkChainingValuesAt, subtreeChainingValue } from '../wasm/subtree.js';
import type { FromWorker, ToWorker } from './protocol.js';

export function serve(post: (message: FromWorker, transfer?: ArrayBuffer[]) => void): (message: ToWorker) => void {
  return (message) => {
    if (message.type === 'init') {
      try {
        attach(instantiate(message.module));
        post({ type: 'ready' });
      } catch (error) {
        post({ type: 'init-failed', message: String((error as Error)?.message ?? error) });
      }
      return;
    }
    const { id, mode, key, offset, bytes, chunks, returnBytes } = message;
    const failed = (error: unknown) => post({ type: 'failed', id, message: String((error as Error)?.message ?? error) });
    const answer = (piece: Uint8Array) => {
      try {
        const cv = chunks ? chunkChainingValuesAt(mode, key, offset, piece) : subtreeChainingValue(mode, key, offset, piece);
        if (returnBytes) post({ type: 'done', id, cv, bytes: piece }, [piece.buffer as ArrayBuffer]);
        else post({ type: 'done', id, cv, bytes: undefined });
      } catch (error) {
        failed(error);
      }
    };
    if (bytes instanceof Uint8Array) answer(bytes);
    // A Blob slice is read here, off the calling thread; the next job's
    // read runs while this one hashes. Tried: freeing each piece once
    // hashed with `buffer.transfer(0)`: a 256 MiB File's peak resident
    // growth in Chromium 156 went from 203-211 MiB to 1,811 MiB (bench/
    // parallel/browser.mjs --blob-only, two runs each; cause not found).
    // Also tried: hashing the slice as it streams in, through a BYOB reader
    // into one reused 256 KiB buffer. Per 256 MiB File (urandom, cached):
    // ~255 ms instead of ~340, renderer peak growth 17-19 MiB instead of
    // 35-180 (the dead 8 MiB buffers wait for a GC). But a read sometimes
    // never answered, first or mid-slice, never in a run's first six
    // hashes: 8 of 136 hashes with one buffer (also with one stream per
    // worker, and stopping at the slice's size), 9 of 54 with two; the
    // pool's job timeout rescued each after 30 s. A default reader: no stall
    // in 36, but ~370 ms. Not kept.
    else bytes.arrayBuffer().then((buffer) => answer(new Uint8Array(buffer)), failed);
  };
}
