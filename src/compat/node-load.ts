// The load at import of `blake3-kit/compat` in Node (compat-node.ts, and
// compat-node-bundle.ts for bundlers): the wasm compiled synchronously
// from the package's files (packaged.ts), or the native addon where
// BLAKE3_KIT_BACKEND and the default `auto` say so, with no top-level
// await, so require() of the entry works (Node >= 20.19).

import { initBackendSync, type SyncBackendPlatform } from '../backend.js';
import { nodePlatform } from '../node/backend.js';
import type { PackagedFiles } from '../node/packaged.js';
import * as api from './node.js';
import { failedAtImport, importError } from './ready.js';

/** Loads the backend now; returns compat's load(): the API once the
 * backend is in use, at once (3.x's Node build needed `await load()`;
 * callers that await it keep working), or the import's failure. A failure
 * is kept, not thrown: the first call reports it. */
export function loadAtImport(files: PackagedFiles): () => Promise<typeof api> {
  const platform: SyncBackendPlatform = {
    ...nodePlatform(files),
    compileSync: (flavour) => new WebAssembly.Module(files.wasmBytes(flavour)),
  };
  let loaded: Promise<unknown>;
  try {
    loaded = Promise.resolve(initBackendSync(platform));
  } catch (error) {
    failedAtImport(error);
    loaded = Promise.reject(error);
    loaded.catch(() => {}); // reported by the first call, or by load()
  }
  return () =>
    loaded.then(
      () => api,
      () => Promise.reject(importError()),
    );
}

/** The default export: load(), carrying every named export too. Node's
 * default import of theirs (CommonJS) is the whole module, so
 * `import blake3 from 'blake3-wasm'; blake3.hash(x)` works, and so does it
 * here; `import load from …; await load()` works too. */
export function loadWithApi(load: () => Promise<typeof api>): typeof load & typeof api & { load: typeof load } {
  return Object.assign(() => load(), api, { load });
}
