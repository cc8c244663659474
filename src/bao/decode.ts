// Verifying Bao decoders over whole buffers. Every parent is checked before
// its children are read, every leaf before its bytes are copied out, and
// nothing (not even the length, which only the final leaf vouches for) is
// returned until the whole tree is verified.

import { toBytes } from '../input.js';
import { equal } from './equal.js';
import { parentNode, treeLevels } from './levels.js';
import { blockLength, HEADER_LEN, leftLength, PARENT_LEN, parentsLength } from './tree.js';

/** The encoding does not match the hash, or is malformed (truncated, extra
 * bytes, a length header that disagrees with it). */
export class BaoVerifyError extends Error {
  readonly code = 'ERR_BAO_VERIFY';
  constructor(message: string) {
    super(`blake3-kit: ${message}`);
    this.name = 'BaoVerifyError';
  }
}

/** The content length in a Bao header (unverified). */
export function readHeader(bytes: Uint8Array, what: string): number {
  if (bytes.length < HEADER_LEN) throw new BaoVerifyError(`${what} is shorter than its 8-byte header`);
  const length = new DataView(bytes.buffer, bytes.byteOffset, HEADER_LEN).getBigUint64(0, true);
  if (length > BigInt(Number.MAX_SAFE_INTEGER)) throw new BaoVerifyError(`${what} declares more content than fits in memory`);
  return Number(length);
}

export function checkHash(hash: unknown): Uint8Array {
  const bytes = toBytes(hash, 'hash');
  if (bytes.length !== 32) throw new RangeError(`blake3-kit: hash must be 32 bytes; got ${bytes.length}`);
  return bytes;
}

/** The content of a combined Bao encoding, verified against `hash`. */
export function baoDecode(encoding: ArrayBufferView | ArrayBufferLike, hash: ArrayBufferView | ArrayBufferLike): Uint8Array {
  const bytes = toBytes(encoding, 'encoding');
  const root = checkHash(hash);
  const length = readHeader(bytes, 'encoding');
  const block = blockLength(0);
  if (bytes.length !== HEADER_LEN + parentsLength(length, block) + length) {
    throw new BaoVerifyError(`encoding is ${bytes.length} bytes, which its length header does not account for`);
  }
  return decodeTree(length, block, root, bytes, HEADER_LEN, undefined);
}

/** `content`, verified against `hash` with its Bao outboard encoding. */
export function baoDecodeOutboard(
  content: ArrayBufferView | ArrayBufferLike,
  outboard: ArrayBufferView | ArrayBufferLike,
  hash: ArrayBufferView | ArrayBufferLike,
): Uint8Array {
  const data = toBytes(content, 'content');
  const tree = toBytes(outboard, 'outboard');
  const root = checkHash(hash);
  const length = readHeader(tree, 'outboard');
  const block = blockLength(0);
  if (length !== data.length || tree.length !== HEADER_LEN + parentsLength(length, block)) {
    throw new BaoVerifyError('content and outboard do not agree with the length header');
  }
  return decodeTree(length, block, root, tree, HEADER_LEN, data);
}

/**
 * Verifies the pre-order tree in `tree` from `start` (with the leaves in
 * place, or in `content` for an outboard) and returns a copy of the content.
 * The content's whole tree is computed in one batched pass, then the root
 * and every stored parent are compared with it.
 */
function decodeTree(length: number, block: number, root: Uint8Array, tree: Uint8Array, start: number, content: Uint8Array | undefined): Uint8Array {
  const out = content === undefined ? new Uint8Array(length) : content.slice();
  const parents: number[] = [];
  let cursor = start;
  forEachLeafAndParent(length, block, (offset, size, isLeaf) => {
    if (!isLeaf) {
      parents.push(cursor, offset, size);
      cursor += PARENT_LEN;
    } else if (content === undefined) {
      out.set(tree.subarray(cursor, cursor + size), offset);
      cursor += size;
    }
  });
  const { levels, root: found } = treeLevels(out);
  if (!equal(found, root)) throw new BaoVerifyError('the content does not match the hash');
  for (let i = 0; i < parents.length; i += 3) {
    const [at, offset, size] = [parents[i]!, parents[i + 1]!, parents[i + 2]!];
    if (!equal(tree.subarray(at, at + PARENT_LEN), parentNode(levels, offset, size, leftLength(size)))) {
      throw new BaoVerifyError(`the tree node above byte ${offset} does not match the hash`);
    }
  }
  return out;
}

/** Visits every node of a pre-order tree over `length` bytes. */
function forEachLeafAndParent(length: number, block: number, visit: (offset: number, size: number, isLeaf: boolean) => void): void {
  const subtree = (offset: number, size: number): void => {
    visit(offset, size, size <= block);
    if (size <= block) return;
    const left = leftLength(size);
    subtree(offset, left);
    subtree(offset + left, size - left);
  };
  subtree(0, length);
}
