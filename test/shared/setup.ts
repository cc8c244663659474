// Every shared test file starts with `const b3 = await load()`: the backend
// comes from the vitest project (node-simd, node-native, chromium-scalar,
// firefox-simd, webkit-scalar, ...).
import { init } from 'blake3-kit';
import { init as initBao } from 'blake3-kit/bao';
import { expect, inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    flavour: 'simd' | 'scalar';
    /** `auto`: Node's default, native above the routing threshold and wasm below. */
    backend: 'wasm-simd' | 'wasm-scalar' | 'native' | 'auto';
    /** The browser projects' engine; undefined in Node. */
    engine?: 'chromium' | 'firefox' | 'webkit';
  }
}

export const flavour = inject('flavour');
export const backend = inject('backend');

const expected = { native: 'native', auto: 'native+wasm-simd', 'wasm-simd': 'wasm-simd', 'wasm-scalar': 'wasm-scalar' };

export async function load() {
  // Every platform takes the backend: browsers the wasm ones.
  const b3 = await init({ backend } as never);
  expect(b3.backend).toBe(expected[backend]);
  return b3;
}

/** load() through 'blake3-kit/bao', for files that use content addressing
 * or hashMany, as their users would import it. */
export async function loadBao() {
  const b3 = await initBao({ backend } as never);
  expect(b3.backend).toBe(expected[backend]);
  return b3;
}

/** Input of the official vectors: byte i is i % 251. */
export function pattern(length: number, start = 0): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i + start) % 251;
  return bytes;
}

/** A seeded generator (mulberry32), so a failure names its seed and
 * reproduces: BLAKE3_KIT_SEED=<seed> in Node. */
export function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    seed,
    int: (below: number) => Math.floor(next() * below),
    bytes(length: number) {
      const out = new Uint8Array(length);
      for (let i = 0; i < length; i++) out[i] = Math.floor(next() * 256);
      return out;
    },
  };
}

const envSeed = typeof process !== 'undefined' ? Number(process.env?.BLAKE3_KIT_SEED) : NaN;
export const seed = Number.isFinite(envSeed) ? envSeed : Math.floor(Math.random() * 2 ** 31);

export const KEY = new TextEncoder().encode('whats the Elvish word for friend');
export const CONTEXT = 'BLAKE3 2019-12-27 16:29:52 test vectors context';

/** What `run` threw, or undefined. */
export function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** `bytes` as a ReadableStream of pieces whose sizes `size()` picks (at least 1). */
export function piecesOf(bytes: Uint8Array, size: () => number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      const end = Math.min(bytes.length, at + Math.max(1, size()));
      controller.enqueue(bytes.slice(at, end));
      at = end;
    },
  });
}

/** 1-3 random chunk ranges for a blob of `chunks` chunks: some open (to
 * Infinity), some past the end, as bao-tree range tests ask. */
export function randomChunkRanges(rng: ReturnType<typeof random>, chunks: number): [number, number][] {
  const ranges: [number, number][] = [];
  for (let n = 1 + rng.int(3); n > 0; n--) {
    const start = rng.int(chunks + 2);
    ranges.push([start, rng.int(6) === 0 ? Number.POSITIVE_INFINITY : start + 1 + rng.int(30)]);
  }
  return ranges;
}

/** `pieces` joined into one array. */
export function concatBytes(pieces: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(pieces.reduce((n, piece) => n + piece.length, 0));
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}
