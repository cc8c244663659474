// The tree operations of the backend in use: the native ones init()
// registered, else wasm's. Imported only by the subtree and Bao APIs, so a
// bundle without them carries none of this.

import { activeEngine, nativeTreeOps, type TreeOps } from './engine.js';
import { requireTreeExports } from './wasm/core.js';
import { wasmTreeOps } from './wasm/tree-ops.js';

/** Throws before init(), and where the wasm module in use is the hashing
 * entry's, which lacks these operations' exports. */
export function treeOps(): TreeOps {
  activeEngine();
  const native = nativeTreeOps();
  if (native !== undefined) return native;
  requireTreeExports('content addressing (Bao, bao-tree, subtrees)');
  return wasmTreeOps;
}
