// iroh's bao-tree outboards: the parents of a tree whose leaves are chunk
// groups of 2^chunkLog chunks (iroh: 4, 16 KiB), with no length prefix (the
// length is kept beside them), in pre-order (parents before children, as in
// bao) or post-order (children first, so it can be written as data arrives).
// At chunkLog 0 in pre-order this is bao's outboard without its header.
//
// baoTreeDecodeOutboard copies the content and the outboard before it
// hashes or compares anything, and returns that copy of the content: the
// caller may change either during the call without a changed byte being
// passed on.

import type { ModeKey } from '../../modes.js';
import { checkOptions, toBytes, type Input, inputBytes } from '../../input.js';
import { BaoVerifyError, checkHash, firstDifferentParent } from '../bao/decode.js';
import { encodeTree } from '../bao/encode.js';
import { sameBytes } from '../../equal.js';
import { isParent, treeLevels, writeParent } from '../bao/levels.js';
import { copyOf, treeHashingOf } from '../bao/nodes.js';
import { BlockSize } from '../../tree/geometry.js';
import { type Order, ParentStore, Tree } from '../../tree/tree.js';

export interface BaoTreeOptions {
  /** log2 of the chunks per leaf group, 0 to 16; 4 (16 KiB) by default, as iroh. */
  chunkLog?: number;
  /** Where each parent goes: before its subtrees ('pre', the default) or after ('post'). */
  order?: 'pre' | 'post';
  /** 32 bytes: every node keyed with it, as bao-tree's keyed_* functions
   * (the root hash is then keyedHash(key, content)). */
  key?: ArrayBufferView | ArrayBufferLike;
}

/** `options` checked, and its chunkLog (4, iroh's, by default). */
export function chunkLogOf(options: { chunkLog?: number } | undefined): number {
  checkOptions(options, 'options');
  const chunkLog = options?.chunkLog ?? 4;
  if (!Number.isInteger(chunkLog) || chunkLog < 0 || chunkLog > 16) {
    throw new RangeError(`blake3-kit: options.chunkLog must be an integer from 0 to 16; got ${String(chunkLog)}`);
  }
  return chunkLog;
}

function treeOptions(options: BaoTreeOptions | undefined): { block: BlockSize; order: Order; hashing: ModeKey } {
  return { block: BlockSize.of(chunkLogOf(options)), order: orderOf(options), hashing: treeHashingOf(options) };
}

/** `options.order`, checked: 'pre' by default. */
export function orderOf(options: { order?: unknown } | undefined): Order {
  const order = options?.order ?? 'pre';
  if (order !== 'pre' && order !== 'post') throw new TypeError(`blake3-kit: options.order must be 'pre' or 'post'; got ${String(order)}`);
  return order;
}

/** The bao-tree outboard of `input` ((groups - 1) x 64 bytes) and its root hash. */
export function baoTreeOutboard(input: Input, options?: BaoTreeOptions): { outboard: Uint8Array; hash: Uint8Array } {
  const { block, order, hashing } = treeOptions(options);
  const content = inputBytes(input, 'input');
  const tree = Tree.of(content.length, block);
  const outboard = new Uint8Array(tree.parentsLength);
  // Pre-order in one pass of the backend's; post-order from every chaining value at once.
  const hash =
    order === 'pre' ? encodeTree(content, block, outboard, 0, true, hashing) : writeParents(new ParentStore(tree, outboard, order), content, hashing);
  return { outboard, hash };
}

/** `content`, verified against `hash` with its bao-tree outboard. */
export function baoTreeDecodeOutboard(
  content: ArrayBufferView | ArrayBufferLike,
  outboard: ArrayBufferView | ArrayBufferLike,
  hash: ArrayBufferView | ArrayBufferLike,
  options?: BaoTreeOptions,
): Uint8Array {
  const { block, order, hashing } = treeOptions(options);
  const data = copyOf(toBytes(content, 'content'));
  const parents = copyOf(toBytes(outboard, 'outboard'));
  const root = checkHash(hash);
  const tree = Tree.of(data.length, block);
  if (parents.length !== tree.parentsLength) throw new BaoVerifyError('outboard does not fit the content length');
  if (order === 'pre') {
    // The backend builds the whole outboard in one pass; compared as stored.
    const built = new Uint8Array(parents.length);
    if (!sameBytes(encodeTree(data, block, built, 0, true, hashing), root)) {
      throw new BaoVerifyError('the content does not match the hash');
    }
    const bad = firstDifferentParent(parents, 0, built);
    if (bad >= 0) {
      const offset = tree.parentOffset(bad);
      throw new BaoVerifyError(`the tree node above byte ${offset} does not match the hash`, offset);
    }
    return data;
  }
  const { levels, top: found } = treeLevels(data, 0, true, hashing);
  if (!sameBytes(found, root)) throw new BaoVerifyError('the content does not match the hash');
  const store = new ParentStore(tree, parents, order);
  const walk = tree.walk({ parentsOnly: true });
  while (walk.next()) {
    if (!isParent(levels, walk, parents, store.positionOf(walk))) {
      throw new BaoVerifyError(`the tree node above byte ${walk.offset} does not match the hash`, walk.offset);
    }
  }
  return data;
}

/** Writes every parent of `content` into `store` from all its chaining
 * values at once; returns the root hash. */
function writeParents(store: ParentStore, content: Uint8Array, hashing: ModeKey): Uint8Array {
  const { levels, top: root } = treeLevels(content, 0, true, hashing);
  const walk = store.tree.walk({ parentsOnly: true });
  while (walk.next()) writeParent(levels, walk, store.bytes, store.positionOf(walk));
  return root;
}
