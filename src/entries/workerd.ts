// Entry point for edge runtimes that compile wasm only at deploy time:
// Cloudflare Workers (the `workerd` condition) and Vercel Edge (the
// `edge-light` condition). There, compiling bytes at run time is refused
// ("Wasm code generation disallowed by embedder") and there is no file URL
// to fetch; the platform's bundler turns an imported .wasm into a compiled
// WebAssembly.Module instead. scripts/bundle.mjs keeps these imports as
// they are (dist/workerd.js) or with Vercel's `?module` suffix
// (dist/edge-light.js). No workers: these runtimes have no Web Workers.

// The same modules as blake3-kit/bao's (bao-workerd.ts): one of each flavour.
import scalarModule from '../wasm/blake3-kit-scalar.wasm';
import simdModule from '../wasm/blake3-kit-simd.wasm';
import type { Blake3 } from '../api.js';
import type { InitOptions } from '../backend.js';
import { initWith } from './entry-core.js';

export * from './entry-core.js';

const initEdge = initWith(
  (flavour) => (flavour === 'simd' ? simdModule : scalarModule),
  (location) => fetch(location),
);

/** Instantiates the deploy-time compiled wasm once (later calls return the
 * same result) and resolves to the synchronous API. */
export function init(options?: InitOptions): Promise<Blake3> {
  return initEdge(options);
}
