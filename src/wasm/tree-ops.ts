// The tree operations on wasm, as one record for src/addressing/tree-ops.ts and the
// Node routing: the subtree pieces (subtree.ts) and the Bao pre-order
// writer (pre-order.ts).

import type { TreeOps } from '../engine.js';
import { preOrder } from './pre-order.js';
import { chainingValueAt, chunkChainingValues, mergeNonRoot, mergeRoot, parentChainingValues } from './subtree.js';

export const wasmTreeOps: TreeOps = {
  chainingValueAt,
  chunkChainingValues,
  parentChainingValues,
  mergeSubtrees: (mode, key, left, right, root, length) => (root ? mergeRoot(mode, key, left, right, length) : mergeNonRoot(mode, key, left, right)),
  preOrder,
};
