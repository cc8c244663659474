// Piece-sized buffers, reused across calls: shared memory where it can be
// posted, otherwise plain buffers that travel to a worker and back. Fresh
// ones cost a zero-filled allocation each call: with them, 16 MiB from a
// plain buffer on 2 workers ran at 1.00x the single thread; see the README
// for the numbers now. At most POOLED_BYTES stay held per length and kind
// between calls (terminateWorkers frees them all).

const POOLED_BYTES = 32 * 1024 * 1024;
const pools = new Map<string, PieceBuffers>();

/** The buffers of `length` bytes, shared or not, for every parallel API. */
export function pieceBuffers(length: number, shared: boolean): PieceBuffers {
  const key = `${length}:${shared}`;
  let pool = pools.get(key);
  if (!pool) pools.set(key, (pool = new PieceBuffers(length, shared)));
  return pool;
}

export function dropPieceBuffers(): void {
  pools.clear();
}

export class PieceBuffers {
  readonly shared: boolean;
  readonly #length: number;
  readonly #free: Uint8Array[] = [];

  constructor(length: number, shared: boolean) {
    this.#length = length;
    this.shared = shared;
  }

  take(): Uint8Array {
    return this.#free.pop() ?? new Uint8Array(this.shared ? new SharedArrayBuffer(this.#length) : new ArrayBuffer(this.#length));
  }

  /** `view`'s bytes in a buffer of ours. */
  copy(view: Uint8Array): Uint8Array {
    const buffer = this.take();
    buffer.set(view);
    return view.length === this.#length ? buffer : buffer.subarray(0, view.length);
  }

  /** Takes back a buffer from take() or copy(); anything else is ignored. */
  release(bytes: Uint8Array): void {
    if (bytes.buffer.byteLength !== this.#length || bytes.byteOffset !== 0) return;
    if ((this.#free.length + 1) * this.#length > POOLED_BYTES) return;
    this.#free.push(new Uint8Array(bytes.buffer, 0, this.#length));
  }
}
