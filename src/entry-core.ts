// What the entries that bring their own wasm share (workerd and edge-light,
// which import it as modules, and inline, which embeds it): the whole API
// and init() over a platform that never locates a file. One file, so the
// package carries this code once: two more bundles of it cost the main
// tarball ~40 KB gzip.

import type { Blake3 } from './api.js';
import { initBackend, type InitOptions } from './backend.js';
import type { Flavour, Platform, WasmSource } from './wasm/load.js';

export * from './api.js';

/** init() for an entry whose wasm comes from `source` unless the caller
 * passes one; `entry` names it in errors. */
export function initWith(
  entry: string,
  source: (flavour: Flavour) => WasmSource,
  load: Platform['load'],
): (options?: InitOptions) => Promise<Blake3> {
  const platform: Platform = {
    defaultSource: () => {
      throw new Error(`blake3-kit: the ${entry} entry has no wasm file to locate`);
    },
    load,
  };
  return (options) => {
    // Not an object: initBackend rejects it with the usual message.
    if (typeof options !== 'object' || options === null) return initBackend(platform, options ?? { source });
    return initBackend(platform, { ...options, source: options.source ?? source });
  };
}
