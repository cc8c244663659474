// What each BLAKE3 package costs a web page: its browser JS bundled and
// minified by esbuild from a one-line entry (so only what that API pulls in
// counts), gzipped (level 9), plus its separately fetched .wasm, gzipped.
// Packages that inline their wasm (base64 or generated at run time) have it
// inside the JS number.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { benchDir, repoDir } from './build.mjs';

const gz = (buf) => gzipSync(buf, { level: 9 }).length;

const ENTRIES = [
  {
    name: 'blake3-kit (simd wasm)',
    entry: `export { init, hash, createHasher } from ${JSON.stringify(join(repoDir, 'dist', 'browser.js'))};`,
    wasm: [join(repoDir, 'wasm', 'blake3-kit-simd.wasm')],
  },
  {
    name: 'blake3-kit (scalar wasm)',
    entry: `export { init, hash, createHasher } from ${JSON.stringify(join(repoDir, 'dist', 'browser.js'))};`,
    wasm: [join(repoDir, 'wasm', 'blake3-kit-scalar.wasm')],
  },
  {
    name: 'blake3-kit/bao (simd wasm)',
    entry: `export { init, hash, createHasher, baoEncode, baoDecode } from ${JSON.stringify(join(repoDir, 'dist', 'bao-browser.js'))};`,
    wasm: [join(repoDir, 'wasm', 'blake3-kit-simd.wasm')],
  },
  {
    name: 'reference simd (wasm-bindgen glue)',
    entry: `export * from ${JSON.stringify(join(benchDir, 'reference', 'pkg', 'simd', 'reference.js'))};`,
    wasm: [join(benchDir, 'reference', 'pkg', 'simd', 'reference_bg.wasm')],
  },
  { name: 'hash-wasm', entry: `export { createBLAKE3 } from 'hash-wasm';` },
  { name: '@noble/hashes', entry: `export { blake3 } from '@noble/hashes/blake3.js';` },
  {
    name: 'blake3-wasm',
    entry: `export * from 'blake3-wasm/esm/browser/index.js';`,
    wasm: [join(benchDir, 'node_modules', 'blake3-wasm', 'esm', 'wasm', 'blake3.wasm')],
  },
  { name: 'blake3-jit', entry: `export { hash, createHasher, createKeyed } from 'blake3-jit';` },
  { name: '@webbuf/blake3', entry: `export { blake3Hash, blake3Mac } from '@webbuf/blake3';` },
];

export async function measurePayload() {
  const esbuild = await import('esbuild');
  const rows = [];
  for (const { name, entry, wasm = [] } of ENTRIES) {
    try {
      const out = await esbuild.build({
        stdin: { contents: entry, resolveDir: benchDir, loader: 'js' },
        bundle: true,
        minify: true,
        format: 'esm',
        platform: 'browser',
        target: 'es2022',
        write: false,
        external: ['fs', 'path'], // blake3-wasm's emscripten glue, Node-only path
        logLevel: 'silent',
      });
      const js = out.outputFiles[0].contents;
      const wasmBytes = wasm.map((f) => readFileSync(f));
      const jsGzip = gz(js);
      const wasmGzip = wasmBytes.reduce((n, b) => n + gz(b), 0);
      rows.push({
        name,
        jsMinBytes: js.length,
        jsGzip,
        wasmBytes: wasmBytes.reduce((n, b) => n + b.length, 0),
        wasmGzip,
        totalGzip: jsGzip + wasmGzip,
      });
    } catch (error) {
      rows.push({ name, error: String(error.message ?? error).split('\n')[0] });
    }
  }
  return rows;
}
