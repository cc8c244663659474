// Entry point `blake3-kit/bao` for Cloudflare Workers and Vercel Edge (the
// `workerd` and `edge-light` conditions, as workerd.ts): the hashing API,
// content addressing and batch hashing, over the deploy-time compiled
// modules with every export.

import scalarModule from '../wasm/blake3-kit-scalar.wasm';
import simdModule from '../wasm/blake3-kit-simd.wasm';
import type { Blake3 } from '../api.js';
import type { InitOptions } from '../backend.js';
import { initWith } from './entry-core.js';

export * from './bao-entry-core.js';

const initEdge = initWith(
  (flavour) => (flavour === 'simd' ? simdModule : scalarModule),
  (location) => fetch(location),
);

/** Instantiates the deploy-time compiled wasm once (later calls return the
 * same result) and resolves to the synchronous API. */
export function init(options?: InitOptions): Promise<Blake3> {
  return initEdge(options);
}
