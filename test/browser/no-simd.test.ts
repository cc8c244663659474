// An engine without WebAssembly SIMD: the probe is stubbed before the package
// is first imported (a static import would run before the stub).
import { expect, it } from 'vitest';

it('chooses the scalar module when WebAssembly.validate reports no SIMD', async () => {
  const realValidate = WebAssembly.validate;
  const realCompileStreaming = WebAssembly.compileStreaming;
  let probes = 0;
  let streamed = 0;
  WebAssembly.compileStreaming = (source) => {
    streamed++;
    return realCompileStreaming(source);
  };
  WebAssembly.validate = () => {
    probes++;
    return false;
  };
  try {
    const b3 = await import('blake3-kit');
    await expect(b3.init({ flavour: 'simd' })).rejects.toThrow(/does not support WebAssembly SIMD/);
    const api = await b3.init();
    expect(api.backend).toBe('wasm-scalar');
    expect(api.toHex(api.hash('abc'))).toBe('6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85');
    expect(probes).toBe(1);
    expect(streamed).toBe(1); // the .wasm file is compiled while it downloads
  } finally {
    WebAssembly.validate = realValidate;
    WebAssembly.compileStreaming = realCompileStreaming;
  }
});
