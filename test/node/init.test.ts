// init() options, idempotence and failures. Each test imports a fresh copy of
// the package, so module state (the loaded core, the SIMD probe cache) starts
// empty.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';

const wasmUrl = (flavour: string) => new URL(`../../wasm/blake3-kit-${flavour}.wasm`, import.meta.url);
const ABC = '6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85';

async function fresh() {
  vi.resetModules();
  return import('blake3-kit');
}

afterEach(() => vi.restoreAllMocks());

describe('init', () => {
  it('is idempotent: concurrent and repeated calls share one load', async () => {
    const b3 = await fresh();
    expect(() => b3.hash('abc')).toThrow(/call `await init\(\)`/);
    expect(b3.backend()).toBeUndefined();
    const [a, b] = await Promise.all([b3.init(), b3.init()]);
    const c = await b3.init({ flavour: a.backend === 'wasm-simd' ? 'simd' : 'scalar' });
    expect(a.backend).toBe('wasm-simd'); // Node 20 has SIMD
    expect(b.backend).toBe(a.backend);
    expect(c.backend).toBe(a.backend);
    expect(b3.backend()).toBe('wasm-simd');
    await expect(b3.init({ flavour: 'scalar' })).rejects.toThrow(/already initialised with wasm-simd/);
    expect(b3.toHex(b3.hash('abc'))).toBe(ABC);
  });

  it.each([
    ['a path', () => fileURLToPath(wasmUrl('scalar'))],
    ['a file URL', () => wasmUrl('scalar')],
    ['a file URL string', () => wasmUrl('scalar').href],
    ['bytes', () => readFile(wasmUrl('scalar'))],
    ['an ArrayBuffer', async () => new Uint8Array(await readFile(wasmUrl('scalar'))).buffer],
    ['a WebAssembly.Module', async () => new WebAssembly.Module(await readFile(wasmUrl('scalar')))],
  ])('takes the module from %s and reports its real flavour', async (_, source) => {
    const b3 = await fresh();
    const api = await b3.init({ source: await source() });
    expect(api.backend).toBe('wasm-scalar');
    expect(b3.toHex(api.hash('abc'))).toBe(ABC);
  });

  it('takes the backend from init({ backend }); flavour is a deprecated alias that must agree', async () => {
    let b3 = await fresh();
    expect((await b3.init({ backend: 'wasm-scalar' })).backend).toBe('wasm-scalar');
    b3 = await fresh();
    expect((await b3.init({ flavour: 'scalar', backend: 'wasm' })).backend).toBe('wasm-scalar');
    b3 = await fresh();
    await expect(b3.init({ backend: 'wasm-simd', flavour: 'scalar' })).rejects.toThrow(/flavour scalar does not go with backend wasm-simd/);
    await expect(b3.init({ backend: 'wasm-x' as never })).rejects.toThrow(/options\.backend must be one of/);
    expect((await b3.init({ backend: 'wasm' })).backend).toBe('wasm-simd');
    expect(new b3.Hasher()).toBeInstanceOf(b3.Hasher); // the one Hasher, after init
  });

  it('takes a function from flavour to source', async () => {
    const b3 = await fresh();
    const seen: string[] = [];
    const api = await b3.init({
      flavour: 'scalar',
      source: (flavour) => {
        seen.push(flavour);
        return wasmUrl(flavour);
      },
    });
    expect(seen).toEqual(['scalar']);
    expect(api.backend).toBe('wasm-scalar');
  });

  it('chooses scalar when the engine has no SIMD, and refuses forced SIMD clearly', async () => {
    const validate = vi.spyOn(WebAssembly, 'validate').mockReturnValue(false);
    const b3 = await fresh();
    await expect(b3.init({ flavour: 'simd' })).rejects.toThrow(/"simd" was forced, but this engine does not support WebAssembly SIMD/);
    const api = await b3.init(); // a failed init can be retried
    expect(api.backend).toBe('wasm-scalar');
    expect(b3.simdSupported()).toBe(false);
    expect(validate).toHaveBeenCalledTimes(1); // the probe result is cached
  });

  it('rejects bad options and foreign modules with clear errors, and can be retried', async () => {
    const b3 = await fresh();
    await expect(b3.init({ flavour: 'avx2' as never })).rejects.toThrow(TypeError);
    await expect(b3.init('simd' as never)).rejects.toThrow(TypeError);
    await expect(b3.init({ source: '/no/such/file.wasm' })).rejects.toThrow(/ENOENT/);
    await expect(b3.init({ source: new Uint8Array([1, 2, 3]) })).rejects.toThrow(WebAssembly.CompileError);
    await expect(b3.init({ source: 42 as never })).rejects.toThrow(/options\.source must be .*; got number/);
    // A valid module that is not ours.
    const empty = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);
    await expect(b3.init({ source: empty })).rejects.toThrow(/ABI is not version/);
    const withImport = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 2, 7, 1, 1, 109, 1, 102, 0, 0]);
    await expect(b3.init({ source: withImport })).rejects.toThrow(/imports m\.f/);
    const api = await b3.init();
    expect(b3.toHex(api.hash('abc'))).toBe(ABC);
  });
});
