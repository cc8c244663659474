// NativeHasher: the one Hasher on native state, plus what only the addon
// can do: hash off the JS thread, from memory or from a file descriptor.

import { ADOPT, BUSY, Hasher, STATE } from '../hasher.js';
import { checkSignal, type Input, type KeyOption } from '../input.js';
import { notInitialized, ownedModeOf } from '../modes.js';
import { NATIVE_STEP, abortable, absorb } from './absorb.js';
import { addon, type NativeHasherHandle } from './addon.js';
import { nativeEngine } from './engine.js';
import { inputBytes } from './hash.js';

/** A Hasher on the native addon, with asynchronous updates. Its `clone()`
 * and `xof()` give a plain Hasher and XofReader. */
export class NativeHasher extends Hasher {
  constructor(options?: KeyOption) {
    if (addon === undefined) notInitialized();
    const { mode, key } = ownedModeOf(options, 'options', nativeEngine.contextKey);
    super(ADOPT, nativeEngine, mode, key);
  }

  /**
   * Hashes `input` off the JS thread: for large pieces of streams. Bytes in a
   * SharedArrayBuffer are read in place; any others are copied first, a
   * piece at a time while the last one hashes, so detaching or shrinking
   * them meanwhile can't reach the hashing threads: the call rejects
   * instead, and so does an abort (with the signal's reason). A failed call
   * leaves the hasher as it was. Bytes changed in place during the call may
   * be hashed before or after the change.
   * @param onProgress internal: bytes of `input` done so far.
   */
  async updateAsync(input: Input, signal?: AbortSignal, onProgress?: (done: number) => void): Promise<void> {
    checkSignal(signal, 'signal');
    const bytes = inputBytes(input, 'input');
    const state = this[STATE]() as NativeHasherHandle;
    // One piece is all-or-nothing in the addon; several need a snapshot.
    const before = bytes.length > NATIVE_STEP ? state.clone() : undefined;
    this[BUSY](true);
    let failed = false;
    try {
      await absorb(state, bytes, signal, onProgress);
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      this[BUSY](false, failed ? before : undefined);
      if (!failed) before?.free();
    }
  }

  /** Hashes bytes of an open file off the JS thread; resolves to the bytes
   * hashed, fewer than `length` if the file ended first. */
  async updateFromFd(fd: number, offset: number, length: number, mmap: boolean, signal?: AbortSignal): Promise<number> {
    checkSignal(signal, 'signal');
    for (const [name, value] of [
      ['fd', fd],
      ['offset', offset],
      ['length', length],
    ] as const) {
      if (typeof value !== 'number') throw new TypeError(`blake3-kit: ${name} must be a number; got ${typeof value}`);
      if (!Number.isSafeInteger(value) || value < 0 || (name === 'fd' && value > 0x7fffffff)) {
        throw new RangeError(`blake3-kit: ${name} must be a non-negative ${name === 'fd' ? 'file descriptor' : 'safe integer'}; got ${value}`);
      }
    }
    if (typeof mmap !== 'boolean') throw new TypeError(`blake3-kit: mmap must be a boolean; got ${typeof mmap}`);
    const state = this[STATE]() as NativeHasherHandle;
    this[BUSY](true);
    try {
      return await abortable((inner) => state.updateFromFd(fd, offset, length, mmap, inner), signal);
    } finally {
      this[BUSY](false);
    }
  }
}
