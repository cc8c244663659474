// The tree a verified fetch checks content against: the root hash the
// caller trusts (bytes, or a BDASL CID), and the parents of an outboard,
// in memory of our own: the bao crate's outboard (an 8-byte length header,
// then pre-order parents over 1 KiB chunks), or iroh's bao-tree outboard
// (no header; parents over groups of 2^chunkLog chunks, pre- or
// post-order). Given as bytes (copied) or fetched from a URL, read no
// further than options.maxOutboardBytes.

import { checkOptions, checkSignal, toBytes } from '../../input.js';
import { abortable } from '../../promises.js';
import { BaoVerifyError, checkHash, readHeader } from '../bao/decode.js';
import { checkStatus, fetchOutboard, MAX_OUTBOARD_BYTES } from '../bao/fetch.js';
import { copyOf, HEADER_LEN } from '../bao/nodes.js';
import { chunkLogOf, orderOf } from '../bao-tree/outboard.js';
import { parseCid } from '../cid.js';
import { BlockSize, CHUNK_LEAVES, PARENT_LEN } from '../../tree/geometry.js';
import { BodyReader } from './body.js';
import type { TreeOptions } from './options.js';

/** The options of a tree, checked; the outboard not loaded yet. */
export interface TreeSpec {
  root: Uint8Array;
  source: Uint8Array | string | URL | undefined;
  /** undefined: the bao crate's format (header, chunkLog 0, pre-order). */
  chunkLog: number | undefined;
  post: boolean;
  size: number | undefined;
  maxOutboardBytes: number;
}

/** A loaded tree: its parents (our copy, never handed out) and what they say. */
export interface Tree {
  root: Uint8Array;
  block: BlockSize;
  post: boolean;
  parents: Uint8Array;
  /** Leaves of the tree: one more than its parents. */
  leaves: number;
  /** The length the outboard's header or the caller declares, unproven. */
  claimed: number | undefined;
}

export function treeSpec(options: TreeOptions, name: string): TreeSpec {
  checkOptions(options, name);
  if (options === undefined) throw new TypeError(`blake3-kit: ${name} must be an object with at least { hash }`);
  const root = rootOf(options.hash, `${name}.hash`);
  const { outboard, size } = options;
  let source: TreeSpec['source'];
  if (typeof outboard === 'string' || outboard instanceof URL) source = outboard;
  else if (outboard !== undefined) source = copyOf(toBytes(outboard, `${name}.outboard`));
  const chunkLog = options.chunkLog === undefined ? undefined : chunkLogOf({ chunkLog: options.chunkLog });
  if (chunkLog !== undefined && outboard === undefined)
    throw new TypeError(`blake3-kit: ${name}.chunkLog needs ${name}.outboard (a bao-tree outboard)`);
  const post = orderOf(options) === 'post';
  if (post && chunkLog === undefined) throw new TypeError(`blake3-kit: ${name}.order is for a bao-tree outboard: give ${name}.chunkLog`);
  if (size !== undefined && (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0))
    throw new RangeError(`blake3-kit: ${name}.size must be a non-negative safe integer; got ${String(size)}`);
  const max = options.maxOutboardBytes ?? MAX_OUTBOARD_BYTES;
  if (typeof max !== 'number') throw new TypeError(`blake3-kit: ${name}.maxOutboardBytes must be a number`);
  if (!Number.isSafeInteger(max) || max < 0)
    throw new RangeError(`blake3-kit: ${name}.maxOutboardBytes must be a non-negative safe integer; got ${max}`);
  return { root, source, chunkLog, post, size, maxOutboardBytes: max };
}

/** A 32-byte hash, or the digest a CID names (a copy either way). */
function rootOf(hash: unknown, name: string): Uint8Array {
  if (typeof hash !== 'string') return checkHash(hash, name);
  const { digest } = parseCid(hash);
  if (digest.length !== 32) throw new RangeError(`blake3-kit: ${name} names a ${digest.length}-byte digest; a tree's root hash is 32 bytes`);
  return digest;
}

/** The tree of `spec`: its outboard fetched with `get` where it is a URL. */
export async function loadTree(spec: TreeSpec, get: typeof fetch, signal: AbortSignal | undefined): Promise<Tree> {
  checkSignal(signal, 'signal');
  const { root, source, chunkLog, post, size, maxOutboardBytes } = spec;
  if (source === undefined) throw new TypeError('blake3-kit: a tree needs an outboard');
  const bytes = source instanceof Uint8Array ? source : await fetchTreeBytes(get, source, signal, maxOutboardBytes, chunkLog === undefined);
  if (chunkLog === undefined) {
    const claimed = readHeader(bytes, 'outboard');
    if (bytes.length !== HEADER_LEN + CHUNK_LEAVES.parentsLength(claimed)) throw new BaoVerifyError('outboard does not agree with its length header');
    if (size !== undefined && size !== claimed)
      throw new BaoVerifyError(`the outboard's header declares ${claimed} bytes of content, not the ${size} of options.size`);
    const parents = bytes.subarray(HEADER_LEN);
    return { root, block: CHUNK_LEAVES, post: false, parents, leaves: parents.length / PARENT_LEN + 1, claimed };
  }
  const block = BlockSize.of(chunkLog);
  if (bytes.length % PARENT_LEN !== 0) throw new BaoVerifyError(`a bao-tree outboard is 64-byte parents; got ${bytes.length} bytes`);
  const leaves = bytes.length / PARENT_LEN + 1;
  if (size !== undefined && block.leaves(size) !== leaves)
    throw new BaoVerifyError(`the outboard has ${leaves - 1} parents, which ${size} bytes of content at chunkLog ${chunkLog} do not have`);
  return { root, block, post, parents: bytes, leaves, claimed: size };
}

/** An outboard by URL: the bao crate's read header first (fetchOutboard),
 * a bao-tree one (no header) up to `max` bytes. */
async function fetchTreeBytes(get: typeof fetch, url: string | URL, signal: AbortSignal | undefined, max: number, bao: boolean): Promise<Uint8Array> {
  if (bao) return fetchOutboard(get, url, signal, max);
  const response = await abortable(get(url, { signal }), signal);
  checkStatus(response, 'outboard');
  const declared = Number(response.headers.get('Content-Length') ?? Number.NaN);
  const body = new BodyReader(response, signal);
  try {
    if (declared > max) throw overCap(max, ` (${declared} bytes by its Content-Length)`);
    // Room for one byte more than allowed, which tells an outboard that is
    // too long; grown as it arrives where no length is declared, so a small
    // outboard never costs the cap.
    let bytes = new Uint8Array(Number.isSafeInteger(declared) && declared >= 0 ? declared + 1 : Math.min(max + 1, 64 * 1024));
    let got = 0;
    for (;;) {
      got += await body.fill(bytes.subarray(got));
      if (got > max) throw overCap(max, '');
      if (got < bytes.length) break;
      const grown = new Uint8Array(Math.min(max + 1, bytes.length * 2));
      grown.set(bytes);
      bytes = grown;
    }
    return bytes.subarray(0, got);
  } finally {
    body.release();
  }
}

const overCap = (max: number, declared: string) => new RangeError(`blake3-kit: the outboard${declared} is over options.maxOutboardBytes (${max})`);
