// Entry point with both wasm flavours embedded (blake3-kit/inline), for
// places that can't fetch or read a file next to the code: esbuild or Rollup
// without plugins, single-file bundles, Node apps bundled with
// `esbuild --platform=node`. init() compiles the chosen flavour from bytes,
// which a CSP allows with 'wasm-unsafe-eval'. It never fetches or reads a
// file, and has no workers (a single file has no worker script to start).
//
// Both flavours are embedded, so that engines without SIMD (Safari before
// 16.4) still work and init({ flavour }) means what it means elsewhere; only
// the chosen one is decoded. Measured (scripts/bundle.mjs prints it):
// dist/inline.js is 33.1 KB gzip (the two flavours' base64) and imports the
// API from dist/entry-core.js (16.2 KB gzip), as workerd/edge-light do. The default browser
// entry is 11.6 KB gzip plus one .wasm file (10.2/9.4 KB gzip).
// Decoding the base64 costs nothing visible: init() takes 2.7 ms in Node 20
// (median of 3), as the default entry's file read and compile do.

import type { Blake3 } from '../api.js';
import type { InitOptions } from '../backend.js';
import { initWith } from './entry-core.js';
import { embeddedWasm } from '../wasm/embedded.js';

// One self-contained file: content addressing and batch hashing too.
export * from './bao-entry-core.js';

const initInline = initWith(embeddedWasm, () =>
  Promise.reject(new TypeError('blake3-kit: the inline entry does not fetch or read files; pass options.source as bytes or a WebAssembly.Module')),
);

/** Compiles the embedded wasm once (later calls return the same result) and
 * resolves to the synchronous API. */
export function init(options?: InitOptions): Promise<Blake3> {
  return initInline(options);
}
