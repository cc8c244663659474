// Entry point `blake3-kit/compat` for Node when a bundler resolves it (the
// `module` export condition): compat-node.ts with the wasm inside
// (node/embedded.ts), compiled synchronously at import, so that hash()
// works right after require() in a one-file bundle.

import type * as api from '../compat/node.js';
import { loadAtImport, loadWithApi } from '../compat/node-load.js';
import { embeddedFiles } from '../node/embedded.js';

export * from '../compat/node.js';

const loaded = loadAtImport(embeddedFiles);

/** Resolves to the API once the backend is in use: at once, as it loads at
 * import. Rejects with the import's failure, if it failed. */
export function load(): Promise<typeof api> {
  return loaded();
}

export default loadWithApi(load);
