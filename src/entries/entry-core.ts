// What the entries that bring their own wasm share (workerd and edge-light,
// which import it as modules, and inline, which embeds it): the hashing API
// and init() over a platform whose modules come with the entry. One file, so the
// package carries this code once: two more bundles of it cost the main
// tarball ~40 KB gzip.

import type { Blake3 } from '../api.js';
import { initBackend, type InitOptions } from '../backend.js';
import type { Flavour, Platform, WasmSource } from '../wasm/load.js';

export * from '../api.js';

/** init() for an entry whose wasm is `source` (the module for each
 * flavour) unless the caller passes one. */
export function initWith(source: (flavour: Flavour) => WasmSource, load: Platform['load']): (options?: InitOptions) => Promise<Blake3> {
  const platform: Platform = { defaultSource: source, load };
  return (options) => initBackend(platform, options);
}
