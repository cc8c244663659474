// The streaming Bao decoder holds a tree path and one leaf, whatever the
// size: 1 GiB of content streamed through baoDecodeStream (outboard form)
// in a child process, its memory sampled while it runs. The content is made
// piece by piece on both sides, so neither side ever holds it whole.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { root } from './packed.js';

const MiB = 1 << 20;

const script = `
const b3 = await import(${JSON.stringify(join(root, 'dist', 'bao-node.js'))});
await b3.init({ backend: process.env.BACKEND });
const MiB = 1 << 20;
const PIECES = 1024; // 1 GiB
const piece = new Uint8Array(MiB).map((_, i) => (i * 31) % 251);
// Piece k: the pattern with k in its first four bytes. Handed out one at a
// time; each consumer is done with a piece before it asks for the next.
async function* content() {
  for (let k = 0; k < PIECES; k++) {
    new DataView(piece.buffer).setUint32(0, k, true);
    yield piece;
  }
}
const { encoding: outboard, hash } = await b3.baoEncodeStream(content(), { outboard: true });
// A full collection, then a turn of the event loop and another: the
// backing stores of dead ArrayBuffers are freed by a sweeper that may still
// be running when gc() returns (on a loaded machine this counted 6-22 MiB
// of already-dead buffers as kept, run to run).
const collect = async () => {
  globalThis.gc();
  await new Promise((resolve) => setImmediate(resolve));
  globalThis.gc();
};
await collect();
const used = () => { const m = process.memoryUsage(); return m.heapUsed + m.arrayBuffers; };
const baseline = used();
// What the decoder keeps: sampled after a full collection every 64 MiB
// (without one, garbage leaves from before the collector ran would count).
let peak = baseline;
const reader = b3.baoDecodeStream(content(), hash, { outboard }).getReader();
let bytes = 0;
let wrong = 0;
for (;;) {
  const { value, done } = await reader.read();
  if (done) break;
  // Spot checks: the piece number at every MiB, a pattern byte after it.
  for (let at = (MiB - (bytes % MiB)) % MiB; at + 5 <= value.length; at += MiB) {
    const k = (bytes + at) / MiB;
    if (new DataView(value.buffer, value.byteOffset + at).getUint32(0, true) !== k || value[at + 4] !== (4 * 31) % 251) wrong++;
  }
  if (Math.floor((bytes + value.length) / (64 * MiB)) > Math.floor(bytes / (64 * MiB))) {
    await collect();
    peak = Math.max(peak, used());
  }
  bytes += value.length;
}
console.log(JSON.stringify({ bytes, wrong, growth: peak - baseline, outboard: outboard.length }));
`;

describe.runIf(inject('flavour') === 'simd')('the streaming Bao decoder', () => {
  it('decodes 1 GiB with flat memory (under 4 MiB kept), every byte verified', () => {
    const run = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, BACKEND: inject('backend') },
      timeout: 240_000,
    });
    expect(run.stderr.slice(-600)).toBe('');
    const result = JSON.parse(run.stdout) as { bytes: number; wrong: number; growth: number; outboard: number };
    console.log(`1 GiB streamed through baoDecodeStream: memory kept ${(result.growth / MiB).toFixed(2)} MiB`);
    expect(result.bytes).toBe(1024 * MiB);
    expect(result.wrong).toBe(0);
    expect(result.outboard).toBe(8 + (1024 * 1024 - 1) * 64);
    expect(result.growth).toBeLessThan(4 * MiB);
  }, 300_000);
});
