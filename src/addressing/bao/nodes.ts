// The hashing of one node of a Bao tree (the bao crate's format, and iroh's
// bao-tree with chunk groups): a leaf's or a parent's value, plain or keyed
// as bao-tree's keyed_* functions. The tree's shape is src/tree/'s.

import { activeEngine } from '../../engine.js';
import { checkKey } from '../../input.js';
import { treeOps } from '../../tree-ops.js';
import { MODE_KEYED, HASH_MODE, type ModeKey } from '../../modes.js';
import { high32, low32 } from '../../tree/geometry.js';

/** The bao crate's header: the content length as a little-endian u64. */
export const HEADER_LEN = 8;

/** The hashing `options.key` asks for: keyed with its 32 bytes (copied, so
 * a later change by the caller does not reach a call under way), or plain. */
export function treeHashingOf(options: { key?: unknown } | undefined): ModeKey {
  const key = options?.key;
  return key === undefined ? HASH_MODE : { mode: MODE_KEYED, key: copyOf(checkKey(key, 'options.key')) };
}

/** A copy of `bytes` in memory of our own, for a verifier to hash and
 * return: not `bytes.slice()`, which on a Node Buffer is a view. */
export function copyOf(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

/** A leaf's non-root chaining value: `bytes` at input byte `offset`. */
export function leafChainingValue(bytes: Uint8Array, offset: number, hashing: ModeKey = HASH_MODE): Uint8Array {
  return treeOps().chainingValueAt(hashing.mode, hashing.key, low32(offset), high32(offset), bytes);
}

/** A parent's chaining value from its 64 bytes: non-root, or the root hash. */
export function parentChainingValue(node: Uint8Array, root: boolean, hashing: ModeKey = HASH_MODE): Uint8Array {
  return treeOps().mergeSubtrees(hashing.mode, hashing.key, node.subarray(0, 32), node.subarray(32, 64), root, 32);
}

/** A leaf's value: the root hash when it is the whole tree, else its
 * chaining value at input byte `offset`. */
export function leafValue(bytes: Uint8Array, offset: number, isRoot: boolean, hashing: ModeKey = HASH_MODE): Uint8Array {
  return isRoot ? leafRootHash(bytes, hashing) : leafChainingValue(bytes, offset, hashing);
}

/** The root hash of a tree that is a single leaf: the BLAKE3 hash (keyed
 * if the tree is). */
export function leafRootHash(bytes: Uint8Array, hashing: ModeKey = HASH_MODE): Uint8Array {
  const out = new Uint8Array(32);
  activeEngine().hashInto(hashing.mode, hashing.key, bytes, out);
  return out;
}

/** `parts` joined into one array. */
export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
