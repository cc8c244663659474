// init()'s known-answer test (src/wasm/self-test.ts), against a module that
// computes wrong digests: the packaged SIMD build with BLAKE3's IV changed by
// one bit. It still validates and runs; only its answers are wrong, as a
// miscompiling engine's would be. A failed init() leaves nothing attached,
// so the cases run in order in one module state, the successful one last.
import { readFileSync } from 'node:fs';
import { blake3 as noble } from '@noble/hashes/blake3.js';
import { backendStatus, init, toHex } from 'blake3-kit';
import { describe, expect, inject, it, vi } from 'vitest';

const wasmFile = (flavour: string) => readFileSync(new URL(`../../wasm/blake3-kit-${flavour}.wasm`, import.meta.url));

/** The module with every copy of IV[0] (0x6A09E667) off by one bit: as
 * i32.const immediates (signed LEB128) and as little-endian bytes (v128
 * constants, data). */
function withWrongIv(bytes: Uint8Array): Uint8Array {
  const broken = Uint8Array.from(bytes);
  const patterns = [
    [0x41, 0xe7, 0xcc, 0xa7, 0xd0, 0x06],
    [0x67, 0xe6, 0x09, 0x6a],
  ];
  let patched = 0;
  for (const pattern of patterns) {
    for (let at = 0; at + pattern.length <= broken.length; at++) {
      if (pattern.every((byte, i) => broken[at + i] === byte)) {
        broken[at + (pattern[0] === 0x41 ? 1 : 0)]! ^= 1;
        patched++;
      }
    }
  }
  expect(patched).toBeGreaterThan(0);
  expect(WebAssembly.validate(broken)).toBe(true);
  return broken;
}

describe.runIf(inject('flavour') === 'simd')('the known-answer test at init()', () => {
  const simd = wasmFile('simd');
  const scalar = wasmFile('scalar');
  const brokenSimd = withWrongIv(simd);
  const brokenScalar = withWrongIv(scalar);

  it('rejects a wrong module given as the only source, naming the case', async () => {
    await expect(init({ backend: 'wasm', source: brokenSimd })).rejects.toThrow(
      /wasm-simd module gave a wrong answer in its self-test at init\(\) \(hash of 0 bytes: [0-9a-f]{16}… instead of af1349b9f5f9a1a6…\).*no other build/,
    );
  });

  it('rejects when the build was forced, rather than handing out another', async () => {
    await expect(init({ backend: 'wasm-simd', source: () => brokenSimd })).rejects.toThrow(/self-test.*no other build to use/);
  });

  it('rejects when both builds are wrong', async () => {
    await expect(init({ backend: 'wasm', source: (flavour) => (flavour === 'simd' ? brokenSimd : brokenScalar) })).rejects.toThrow(
      /wasm-simd module gave a wrong answer.*and so did wasm-scalar/,
    );
  });

  it('falls back to the other build, says why once, and hashes right', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const b3 = await init({ backend: 'wasm', source: (flavour) => (flavour === 'simd' ? brokenSimd : scalar) });
    expect(b3.backend).toBe('wasm-scalar');
    expect(warn.mock.calls).toEqual([[expect.stringMatching(/wasm-simd module gave a wrong answer .* so wasm-scalar is used/)]]);
    expect(backendStatus().reason).toMatch(/^wasm-scalar \(the wasm-simd module gave a wrong answer in its self-test/);
    for (const length of [0, 1, 1025, 70_000]) {
      const input = Uint8Array.from({ length }, (_, i) => i % 251);
      expect(toHex(b3.hash(input))).toBe(toHex(noble(input)));
    }
    warn.mockRestore();
  });
});
