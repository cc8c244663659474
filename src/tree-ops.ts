// The tree operations of the backend in use: the native ones init()
// registered, else wasm's. Imported only by the subtree and Bao APIs, so a
// bundle without them carries none of this.

import { activeEngine, nativeTreeOps, type TreeOps } from './engine.js';
import { wasmTreeOps } from './wasm/tree-ops.js';

/** Throws before init(). */
export function treeOps(): TreeOps {
  activeEngine();
  return nativeTreeOps() ?? wasmTreeOps;
}
