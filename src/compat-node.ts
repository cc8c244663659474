// Entry point `blake3-kit/compat` for Node: blake3-wasm's API (2.x and
// 3.x), usable right after import as theirs is. The backend loads
// synchronously at import (the wasm file read and compiled, or the native
// addon where BLAKE3_KIT_BACKEND and the default `auto` say so), with no
// top-level await, so require() of this ESM file works (Node >= 20.19).
// The state is the main entry's: a later init() from 'blake3-kit' gets
// this backend.

import { readFileSync } from 'node:fs';
import { initBackendSync, type SyncBackendPlatform } from './backend.js';
import * as api from './compat/node.js';
import { failedAtImport, importError } from './compat/ready.js';
import { nodePlatform } from './node/backend.js';
import type { Flavour } from './wasm/load.js';

export * from './compat/node.js';

// Relative to this file, which is dist/compat-node.js once bundled.
const wasm = (flavour: Flavour) => new URL(`../wasm/blake3-kit-${flavour}.wasm`, import.meta.url);
const platform: SyncBackendPlatform = {
  ...nodePlatform({ wasm, localAddon: () => new URL(`../native/blake3-kit.${process.platform}-${process.arch}.node`, import.meta.url) }),
  compileSync: (flavour) => new WebAssembly.Module(readWasm(wasm(flavour))),
};

function readWasm(location: URL): Uint8Array<ArrayBuffer> {
  try {
    return readFileSync(location) as Uint8Array<ArrayBuffer>;
  } catch (error) {
    throw new Error(
      `blake3-kit/compat: ${location.href} is missing: the package's wasm files are not beside this code, as happens when it is bundled; keep blake3-kit out of the bundle (external)`,
      { cause: error },
    );
  }
}

let loaded: Promise<unknown>;
try {
  loaded = Promise.resolve(initBackendSync(platform));
} catch (error) {
  failedAtImport(error);
  loaded = Promise.reject(error);
  loaded.catch(() => {}); // reported by the first call, or by load()
}

/** Resolves to the API once the backend is in use: at once, as it loads at
 * import (3.x's Node build needed `await load()`; callers that await it
 * keep working). Rejects with the import's failure, if it failed. */
export function load(): Promise<typeof api> {
  return loaded.then(
    () => api,
    () => Promise.reject(importError()),
  );
}

/** The default export: load(), carrying every named export too. Node's
 * default import of theirs (CommonJS) is the whole module, so
 * `import blake3 from 'blake3-wasm'; blake3.hash(x)` works, and so does it
 * here; `import load from …; await load()` works too. */
const loadWithApi: typeof load & typeof api & { load: typeof load } = Object.assign(() => load(), api, { load });

export default loadWithApi;
