// The simd128 kernel (crate/wasm/src/kernel/wasm_simd.rs) against the
// portable one, module against module through the raw ABI. The portable
// kernel is held to the official crate by `cargo test`, which cannot run
// simd128 code natively; this closes the loop for the SIMD build, with many
// more lengths than the noble differential tests can afford. Both node
// projects run it, with different seeds.
import { readFileSync } from 'node:fs';
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { CONTEXT, flavour, KEY, random, seed } from '../shared/setup.js';

interface Core {
  memory: WebAssembly.Memory;
  staging_ptr(): number;
  staging_len(): number;
  key_ptr(): number;
  derive_context_key(len: number): number;
  hash_oneshot(mode: number, inputLen: number, outLen: number): number;
  hasher_new(mode: number): number;
  hasher_update(slot: number, len: number): number;
  hasher_finalize(slot: number, outLen: number, lo: number, hi: number): number;
  hasher_free(slot: number): number;
  hasher_set_input_offset(slot: number, lo: number, hi: number): number;
  hasher_finalize_non_root(slot: number): number;
  merge_non_root(mode: number): number;
  merge_root(mode: number, outLen: number, lo: number, hi: number): number;
}

function instantiate(name: string) {
  const module = new WebAssembly.Module(readFileSync(new URL(`../../wasm/blake3-kit-${name}.wasm`, import.meta.url)));
  const imports: Record<string, Record<string, () => void>> = {};
  for (const { module: from, name: field } of WebAssembly.Module.imports(module)) (imports[from] ??= {})[field] = () => {};
  const core = new WebAssembly.Instance(module, imports).exports as unknown as Core & { __wbindgen_start?: () => void };
  core.__wbindgen_start?.();
  const staging = () => new Uint8Array(core.memory.buffer, core.staging_ptr(), core.staging_len());
  const ok = (code: number) => {
    if (code < 0) throw new Error(`${name}: error ${code}`);
    return code;
  };
  const out = (len: number) => Array.from(staging().subarray(0, len), (b) => b.toString(16).padStart(2, '0')).join('');
  return {
    name,
    setMode(mode: number) {
      if (mode === 1) new Uint8Array(core.memory.buffer, core.key_ptr(), 32).set(KEY);
      if (mode === 2) {
        const context = new TextEncoder().encode(CONTEXT);
        staging().set(context);
        ok(core.derive_context_key(context.length));
      }
    },
    oneshot(mode: number, input: Uint8Array, outLen: number) {
      staging().set(input);
      ok(core.hash_oneshot(mode, input.length, outLen));
      return out(outLen);
    },
    streamed(mode: number, input: Uint8Array, pieces: number[], reads: [number, number][], offset?: number) {
      const slot = ok(core.hasher_new(mode));
      if (offset !== undefined) ok(core.hasher_set_input_offset(slot, offset % 2 ** 32, Math.floor(offset / 2 ** 32)));
      let fed = 0;
      for (const piece of pieces) {
        staging().set(input.subarray(fed, fed + piece));
        ok(core.hasher_update(slot, piece));
        fed += piece;
      }
      const results: string[] = [];
      if (offset !== undefined) {
        ok(core.hasher_finalize_non_root(slot));
        results.push(out(32));
      }
      for (const [position, len] of reads) {
        if (offset !== undefined) break;
        ok(core.hasher_finalize(slot, len, position % 2 ** 32, Math.floor(position / 2 ** 32)));
        results.push(out(len));
      }
      ok(core.hasher_free(slot));
      return results.join(' ');
    },
    merges(mode: number, pairs: Uint8Array) {
      staging().set(pairs);
      ok(core.merge_non_root(mode));
      const parent = out(32);
      staging().set(pairs);
      ok(core.merge_root(mode, 100, 12345, 0));
      return `${parent} ${out(100)}`;
    },
  };
}

const simd = instantiate('simd');
const scalar = instantiate('scalar');
// Different seeds in the two node projects: twice the random coverage.
const rng = random(seed + (flavour === 'simd' ? 0 : 1));
const source = rng.bytes((1 << 20) + 64);

describe.each([0, 1, 2])(`simd128 and portable kernels agree in mode %i (seed ${seed})`, (mode) => {
  // Each test sets its mode's key: describe bodies all run at collection,
  // so a key set there would be the last mode's for every test.
  beforeEach(() => {
    simd.setMode(mode);
    scalar.setMode(mode);
    // Both modules hash with the key this mode names, not merely the same one.
    const input = source.subarray(0, 1500);
    const expected =
      mode === 0 ? blake3(input) : mode === 1 ? blake3(input, { key: KEY }) : blake3(input, { context: new TextEncoder().encode(CONTEXT) });
    expect(simd.oneshot(mode, input, 32)).toBe(bytesToHex(expected));
    expect(scalar.oneshot(mode, input, 32)).toBe(bytesToHex(expected));
  });

  it('one-shot, every length within ±64 of each multiple of 1024 up to 64 KiB', () => {
    for (let multiple = 1024; multiple <= 64 * 1024; multiple += 1024) {
      for (let length = multiple - 64; length <= Math.min(multiple + 64, 64 * 1024); length++) {
        const input = source.subarray(length % 61, (length % 61) + length);
        const outLen = length % 7 === 0 ? 131 : 32;
        const a = simd.oneshot(mode, input, outLen);
        const b = scalar.oneshot(mode, input, outLen);
        if (a !== b) expect.fail(`length ${length}: simd ${a} != scalar ${b}`);
      }
    }
  });

  it('streamed, random lengths up to 1 MiB in random pieces, XOF at random positions', () => {
    for (let i = 0; i < 40; i++) {
      const length = i < 10 ? rng.int(5000) : rng.int((1 << 20) + 1);
      const input = source.subarray(rng.int(64)).subarray(0, length);
      const pieces: number[] = [];
      for (let fed = 0; fed < length; ) {
        const kind = rng.int(5);
        const piece = Math.min(length - fed, kind === 0 ? rng.int(2) : kind === 1 ? rng.int(64) : kind === 2 ? rng.int(5000) : rng.int(65537));
        pieces.push(piece);
        fed += piece;
      }
      const reads: [number, number][] = [
        [0, 32],
        [rng.int(2 ** 40), 200],
        [2 ** 64 - 4096, 100],
      ];
      const a = simd.streamed(mode, input, pieces, reads);
      const b = scalar.streamed(mode, input, pieces, reads);
      if (a !== b) expect.fail(`length ${length}, pieces ${pieces.join(',')}: simd ${a} != scalar ${b}`);
    }
  });

  it('subtrees at random chunk-aligned offsets, and merges', () => {
    for (let i = 0; i < 60; i++) {
      const shift = rng.int(30);
      const offset = (rng.int(8) * 2 + 1) * 1024 * 2 ** shift;
      const max = 1024 * 2 ** shift;
      const length = 1 + rng.int(Math.min(max, 300 * 1024));
      const input = source.subarray(0, length);
      const pieces = [];
      for (let fed = 0; fed < length; fed += 65536) pieces.push(Math.min(65536, length - fed));
      const a = simd.streamed(mode, input, pieces, [], offset);
      const b = scalar.streamed(mode, input, pieces, [], offset);
      if (a !== b) expect.fail(`offset ${offset}, length ${length}: simd ${a} != scalar ${b}`);
      const pairs = rng.bytes(64);
      expect(simd.merges(mode, pairs)).toBe(scalar.merges(mode, pairs));
    }
  });
});
