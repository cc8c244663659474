// The two entries in one page, as an app that hashes with 'blake3-kit' and
// later content-addresses with 'blake3-kit/bao' has them: both load the
// same module, so what 'blake3-kit' started (hashers, workers) carries on,
// and content addressing works even before the bao entry's init(). The
// tests run in order on one page's state (each test file has its own).
import { blake3 } from '@noble/hashes/blake3.js';
import { describe, expect, it } from 'vitest';
import { flavour, pattern } from '../shared/setup.js';

// The shipped bundles, whose entries share their chunks (and so one wasm
// state) and whose workers run dist/worker.js.
type Main = typeof import('../../src/entries/browser.js');
type Bao = typeof import('../../src/entries/bao-browser.js');
const main: Main = await import(/* @vite-ignore */ '/dist/browser.js');
const bao: Bao = await import(/* @vite-ignore */ '/dist/bao-browser.js');
const { configureParallel, createHasher, hash, hashParallel, parallelStatus, startWorkers, toHex } = main;
const { baoDecode, baoEncode, baoEncodeParallel, hashMany, init: initBao } = bao;
const b3 = await main.init({ backend: `wasm-${flavour}` });

describe.sequential('blake3-kit, then blake3-kit/bao', () => {
  it("is one init(): the bao entry's is the main entry's", () => {
    expect(initBao).toBe(main.init);
  });

  it('hashes on workers, with a hasher holding state', async () => {
    configureParallel({ workers: 2, threshold: 0, pieceLength: 64 * 1024, helpWhileStarting: false });
    await startWorkers();
    expect(toHex(await hashParallel(pattern(600_000)))).toBe(toHex(blake3(pattern(600_000))));
    expect(parallelStatus().jobs).toBeGreaterThan(0);
  });

  it("then content addressing, hashMany and hashing all work, on the main entry's module, workers and hashers", async () => {
    const hasher = createHasher().update(pattern(3000));
    const api = await initBao({ backend: b3.backend } as never);
    expect(api).toBe(b3);
    expect(toHex(hasher.update(pattern(100, 3000)).digest())).toBe(toHex(blake3(pattern(3100))));
    hasher.dispose();
    const inputs = [pattern(0), pattern(64), pattern(1024), pattern(4097)];
    const digests = hashMany(inputs);
    for (const [i, input] of inputs.entries()) expect(toHex(digests.subarray(32 * i, 32 * i + 32))).toBe(toHex(blake3(input)));
    const content = pattern(70_000);
    const { encoding, hash: root } = baoEncode(content);
    expect(toHex(root)).toBe(toHex(blake3(content)));
    expect(baoDecode(encoding, root)).toEqual(content);
    expect(toHex(hash(content))).toBe(toHex(blake3(content)));
    // The pool the main entry started goes on: its workers have the
    // exports Bao encoding needs.
    const started = parallelStatus().started;
    const big = pattern(600_000);
    const parallel = await baoEncodeParallel(big);
    expect(parallel.encoding).toEqual(baoEncode(big).encoding);
    expect(parallelStatus().started).toBe(started);
  });
});
