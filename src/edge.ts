// What the workerd and edge-light entries share: everything but the wasm
// imports, which differ in their specifier (Vercel wants `?module`). One
// file, so the package carries this code once (14 KB gzip less than one
// bundle per entry).

import type { Blake3 } from './api.js';
import { initBackend, type InitOptions } from './backend.js';
import type { Flavour, Platform } from './wasm/load.js';

export * from './api.js';

const edgePlatform: Platform = {
  defaultSource: () => {
    throw new Error('blake3-kit: the workerd/edge-light entry has no wasm file to locate');
  },
  load: (location) => fetch(location),
};

/** init() over the modules the platform's bundler compiled at deploy time. */
export function edgeInit(compiled: (flavour: Flavour) => WebAssembly.Module): (options?: InitOptions) => Promise<Blake3> {
  return (options) => {
    if (typeof options !== 'object' || options === null) return initBackend(edgePlatform, options ?? { source: compiled });
    return initBackend(edgePlatform, { ...options, source: options.source ?? compiled });
  };
}
