// What we keep of a caller's bytes is a copy, also when they come as a Node
// Buffer, whose slice() is a view of the same memory: a key the caller
// reuses, a stream source that refills one Buffer for every piece.
import { createHasher, keyedHash } from 'blake3-kit';
import { baoEncode, baoEncodeParallel, baoEncodeStream } from 'blake3-kit/bao';
import { describe, expect, it } from 'vitest';
import { KEY, loadBao, pattern } from './setup.js';

await loadBao();

const NodeBuffer = (globalThis as { Buffer?: { from(bytes: Uint8Array): Uint8Array } }).Buffer;

/** A source that yields one Buffer, refilled with the next bytes each time. */
async function* refilled(content: Uint8Array, piece: number): AsyncGenerator<Uint8Array> {
  const buffer = NodeBuffer!.from(new Uint8Array(piece));
  for (let at = 0; at < content.length; at += piece) {
    const part = content.subarray(at, at + piece);
    buffer.set(part);
    yield buffer.subarray(0, part.length);
  }
}

describe.skipIf(NodeBuffer === undefined)('a Node Buffer is copied, not viewed', () => {
  it('a hasher keeps its key when the caller changes the Buffer it came in', () => {
    const key = NodeBuffer!.from(KEY);
    const hasher = createHasher({ key });
    key.fill(0);
    expect(hasher.update('abc').digest()).toEqual(keyedHash(KEY, 'abc'));
  });

  it('baoEncodeStream of a source that refills one Buffer encodes what it yielded', async () => {
    const content = pattern(5000);
    const { encoding } = await baoEncodeStream(refilled(content, 1000));
    expect(encoding).toEqual(baoEncode(content).encoding);
  });

  it('baoEncodeParallel of a source that refills one Buffer encodes what it yielded', async () => {
    const content = pattern(5000);
    const { encoding } = await baoEncodeParallel(refilled(content, 1000));
    expect(encoding).toEqual(baoEncode(content).encoding);
  });
});
