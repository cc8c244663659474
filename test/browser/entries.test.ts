// The two entries in one page, as an app that hashes with 'blake3-kit' and
// later content-addresses with 'blake3-kit/bao' has them: in browsers the
// first loads the hashing-only module, the second the full one. The tests
// run in order on one page's state (each test file has its own).
import { blake3 } from '@noble/hashes/blake3.js';
import { describe, expect, it } from 'vitest';
import { flavour, pattern } from '../shared/setup.js';

// The shipped bundles, whose entries share their chunks (and so one wasm
// state) and whose workers run dist/worker.js.
type Main = typeof import('../../src/browser.js');
type Bao = typeof import('../../src/bao-browser.js');
const main: Main = await import(/* @vite-ignore */ '/dist/browser.js');
const bao: Bao = await import(/* @vite-ignore */ '/dist/bao-browser.js');
const { configureParallel, createHasher, hash, hashParallel, parallelStatus, startWorkers, toHex } = main;
const { baoDecode, baoEncode, baoEncodeParallel, hashMany, init: initBao } = bao;
const b3 = await main.init({ backend: `wasm-${flavour}` });
const NEEDS_BAO = /needs the wasm module that init\(\) from 'blake3-kit\/bao' loads/;

describe.sequential('blake3-kit, then blake3-kit/bao', () => {
  it('hashes on the hashing-only module, and says what content addressing needs', () => {
    expect(toHex(hash('abc'))).toBe(toHex(blake3(new TextEncoder().encode('abc'))));
    expect(() => hashMany([pattern(10)])).toThrow(NEEDS_BAO);
    expect(() => baoEncode(pattern(5000))).toThrow(NEEDS_BAO);
    // The failed calls left the hashing API as it was.
    expect(toHex(hash(pattern(5000)))).toBe(toHex(blake3(pattern(5000))));
  });

  it('hashes on workers that run the hashing-only module', async () => {
    configureParallel({ workers: 2, threshold: 0, pieceLength: 64 * 1024, helpWhileStarting: false });
    await startWorkers();
    expect(toHex(await hashParallel(pattern(600_000)))).toBe(toHex(blake3(pattern(600_000))));
    expect(parallelStatus().jobs).toBeGreaterThan(0);
  });

  it('refuses to replace the module while a hasher holds state in it, and hashes on', async () => {
    const hasher = createHasher().update(pattern(3000));
    await expect(initBao({ backend: b3.backend } as never)).rejects.toThrow(/hashers hold state in it; call init\(\) from 'blake3-kit\/bao' first/);
    expect(toHex(hasher.update(pattern(100, 3000)).digest())).toBe(toHex(blake3(pattern(3100))));
    hasher.dispose();
  });

  it('replaces it once nothing holds it: content addressing, hashMany and hashing all work', async () => {
    const api = await initBao({ backend: b3.backend } as never);
    expect(api.backend).toBe(b3.backend);
    const inputs = [pattern(0), pattern(64), pattern(1024), pattern(4097)];
    const digests = hashMany(inputs);
    for (const [i, input] of inputs.entries()) expect(toHex(digests.subarray(32 * i, 32 * i + 32))).toBe(toHex(blake3(input)));
    const content = pattern(70_000);
    const { encoding, hash: root } = baoEncode(content);
    expect(toHex(root)).toBe(toHex(blake3(content)));
    expect(baoDecode(encoding, root)).toEqual(content);
    expect(toHex(createHasher().update(content).digest())).toBe(toHex(blake3(content)));
    // The pool started on the old module restarts on the new one, whose
    // workers have the exports Bao encoding needs.
    const big = pattern(600_000);
    await startWorkers();
    const parallel = await baoEncodeParallel(big);
    expect(parallel.encoding).toEqual(baoEncode(big).encoding);
    expect(parallelStatus().jobs).toBeGreaterThan(0);
  });
});
