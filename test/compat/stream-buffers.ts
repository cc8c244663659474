// The part of the stream-buffers package (MIT) that blake3's tests use: a
// Readable fed with put() and ended with stop(). Not a dependency of ours,
// so this stands in for it (ADAPTED.md).

import { Readable } from 'node:stream';

export class ReadableStreamBuffer extends Readable {
  readonly #chunks: Buffer[] = [];
  #stopped = false;

  put(data: Buffer | string): void {
    this.#chunks.push(typeof data === 'string' ? Buffer.from(data) : data);
    this.#flow();
  }

  stop(): void {
    this.#stopped = true;
    this.#flow();
  }

  override _read(): void {
    this.#flow();
  }

  // Chunks of 8 KiB, as stream-buffers' default chunkSize: the hasher gets many updates.
  #flow(): void {
    while (this.#chunks.length > 0) {
      const chunk = this.#chunks.shift()!;
      for (let i = 0; i < chunk.length; i += 8192) this.push(chunk.subarray(i, i + 8192));
    }
    if (this.#stopped) this.push(null);
  }
}
