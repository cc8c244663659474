// Entry point `blake3-kit/compat` for Node: blake3-wasm's API (2.x and
// 3.x), usable right after import as theirs is (compat/node-load.ts), with
// the package's files beside it. Bundlers get compat-node-bundle.ts
// instead, by the `module` export condition. The state is the main
// entry's: a later init() from 'blake3-kit' gets this backend.

import type * as api from '../compat/node.js';
import { loadAtImport, loadWithApi } from '../compat/node-load.js';
import { filesBeside } from '../node/packaged.js';

export * from '../compat/node.js';

const loaded = loadAtImport(filesBeside(import.meta.url));

/** Resolves to the API once the backend is in use: at once, as it loads at
 * import. Rejects with the import's failure, if it failed. */
export function load(): Promise<typeof api> {
  return loaded();
}

export default loadWithApi(load);
