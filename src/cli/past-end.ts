// Output past the end of BLAKE3's, as b3sum prints it. BLAKE3 output ends
// after 2^64 - 1 bytes and our library stops there (every backend checks);
// the official crate's OutputReader just keeps counting 64-byte blocks, so
// `b3sum --seek 18446744073709551600 --length 32` prints 16 bytes of block
// 2^58 - 1 and 16 of block 2^58. To print the same, the CLI finds the root
// node itself and compresses it at any block counter here, in plain JS.
//
// Only the root is ours: the input is hashed by the library in 1 MiB
// subtrees (subtreeChainingValue, mergeSubtrees), which the stack below
// joins as upstream's Hasher joins chunks. JS compresses only what the
// library has no mode for: a root that is a single chunk (at most 16
// blocks), the parent that is the root, and derive_key's context key. Used
// only when a requested byte lies past the end; the first output bytes are
// checked against the library's digest, so a slip here cannot go unseen.

import { leftSubtreeLength, mergeSubtrees, subtreeChainingValue, type Blake3Hasher } from '../bao-node.js';

/** Subtrees the library hashes at a time (a power of two of chunks). */
const GROUP = 1024 * 1024;
const CHUNK = 1024;
const BLOCK = 64;
const IV = Uint32Array.of(0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19);
const PERMUTATION = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8];
const CHUNK_START = 1;
const CHUNK_END = 2;
const PARENT = 4;
const ROOT = 8;
const KEYED_HASH = 16;
const DERIVE_KEY_CONTEXT = 32;
const DERIVE_KEY_MATERIAL = 64;

/** The CLI's modes: hash, --keyed (the key) or --derive-key (the context). */
export type ModeOptions = { key: Uint8Array } | { context: string } | undefined;

/** Where the library's output ends: a read must end by this position. */
export const OUTPUT_END = 2n ** 64n - 1n;

function g(s: Uint32Array, a: number, b: number, c: number, d: number, x: number, y: number): void {
  s[a] = s[a]! + s[b]! + x;
  s[d] = rotate(s[d]! ^ s[a]!, 16);
  s[c] = s[c]! + s[d]!;
  s[b] = rotate(s[b]! ^ s[c]!, 12);
  s[a] = s[a]! + s[b]! + y;
  s[d] = rotate(s[d]! ^ s[a]!, 8);
  s[c] = s[c]! + s[d]!;
  s[b] = rotate(s[b]! ^ s[c]!, 7);
}

const rotate = (x: number, n: number) => (x >>> n) | (x << (32 - n));

/** BLAKE3's compression function: all 16 words of its output. */
function compress(cv: Uint32Array, block: Uint32Array, counter: bigint, length: number, flags: number): Uint32Array {
  const s = new Uint32Array(16);
  s.set(cv);
  s.set(IV.subarray(0, 4), 8);
  s[12] = Number(counter & 0xffffffffn);
  s[13] = Number((counter >> 32n) & 0xffffffffn);
  s[14] = length;
  s[15] = flags;
  let m = block;
  for (let round = 0; round < 7; round++) {
    g(s, 0, 4, 8, 12, m[0]!, m[1]!);
    g(s, 1, 5, 9, 13, m[2]!, m[3]!);
    g(s, 2, 6, 10, 14, m[4]!, m[5]!);
    g(s, 3, 7, 11, 15, m[6]!, m[7]!);
    g(s, 0, 5, 10, 15, m[8]!, m[9]!);
    g(s, 1, 6, 11, 12, m[10]!, m[11]!);
    g(s, 2, 7, 8, 13, m[12]!, m[13]!);
    g(s, 3, 4, 9, 14, m[14]!, m[15]!);
    const previous = m;
    m = Uint32Array.from(PERMUTATION, (i) => previous[i]!);
  }
  for (let i = 0; i < 8; i++) {
    s[i] = s[i]! ^ s[i + 8]!;
    s[i + 8] = s[i + 8]! ^ cv[i]!;
  }
  return s;
}

/** Little-endian words of `bytes` (at most 64), zero-padded to `count`. */
function words(bytes: Uint8Array, count: number): Uint32Array {
  const padded = new Uint8Array(count * 4);
  padded.set(bytes);
  const view = new DataView(padded.buffer);
  return Uint32Array.from({ length: count }, (_, i) => view.getUint32(4 * i, true));
}

function bytesOf(w: Uint32Array): Uint8Array {
  const out = new Uint8Array(w.length * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < w.length; i++) view.setUint32(4 * i, w[i]!, true);
  return out;
}

/** A node of the tree, before compression. */
interface TreeNode {
  cv: Uint32Array;
  block: Uint32Array;
  counter: bigint;
  length: number;
  flags: number;
}

const chainingValue = (node: TreeNode) => compress(node.cv, node.block, node.counter, node.length, node.flags).subarray(0, 8);

/** The last block of a chunk (`bytes`: at most 1024) as a node. */
function chunkNode(bytes: Uint8Array, chunk: bigint, key: Uint32Array, flags: number): TreeNode {
  let cv = key;
  const last = Math.max(0, Math.ceil(bytes.length / BLOCK) - 1);
  for (let i = 0; i < last; i++) {
    const block = words(bytes.subarray(i * BLOCK, (i + 1) * BLOCK), 16);
    cv = compress(cv, block, chunk, BLOCK, flags | (i === 0 ? CHUNK_START : 0)).slice(0, 8);
  }
  const tail = bytes.subarray(last * BLOCK);
  return { cv, block: words(tail, 16), counter: chunk, length: tail.length, flags: flags | CHUNK_END | (last === 0 ? CHUNK_START : 0) };
}

function parentNode(left: Uint32Array, right: Uint32Array, key: Uint32Array, flags: number): TreeNode {
  const block = new Uint32Array(16);
  block.set(left);
  block.set(right, 8);
  return { cv: key, block, counter: 0n, length: BLOCK, flags: flags | PARENT };
}

/** The root node of `bytes`, all in JS: for derive_key's context string.
 * Chunks merged on a stack as upstream's Hasher merges them (and as
 * RootTracker merges groups), so the tree's split is not computed here. */
function rootOf(bytes: Uint8Array, key: Uint32Array, flags: number): TreeNode {
  const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK));
  const stack: Uint32Array[] = [];
  for (let i = 0; i < chunks - 1; i++) {
    let cv = chainingValue(chunkNode(bytes.subarray(i * CHUNK, (i + 1) * CHUNK), BigInt(i), key, flags));
    for (let total = i + 1; (total & 1) === 0; total >>= 1) cv = chainingValue(parentNode(stack.pop()!, cv, key, flags));
    stack.push(cv);
  }
  const last = chunkNode(bytes.subarray((chunks - 1) * CHUNK), BigInt(chunks - 1), key, flags);
  if (stack.length === 0) return last;
  let right = chainingValue(last);
  for (let i = stack.length - 1; i > 0; i--) right = chainingValue(parentNode(stack[i]!, right, key, flags));
  return parentNode(stack[0]!, right, key, flags);
}

/** Takes the input as a Hasher would and keeps what the root node needs:
 * the chaining values of the whole subtrees so far and the last GROUP
 * bytes, not yet hashed (they may turn out to be the root's). */
export class RootTracker {
  readonly #options: ModeOptions;
  readonly #key: Uint32Array;
  readonly #flags: number;
  readonly #group = new Uint8Array(GROUP);
  #filled = 0;
  #groups = 0n;
  readonly #stack: Uint8Array[] = [];

  constructor(options: ModeOptions) {
    this.#options = options;
    if (options !== undefined && 'key' in options) {
      this.#key = words(options.key, 8);
      this.#flags = KEYED_HASH;
    } else if (options !== undefined) {
      const context = rootOf(new TextEncoder().encode(options.context), IV, DERIVE_KEY_CONTEXT);
      this.#key = compress(context.cv, context.block, 0n, context.length, context.flags | ROOT).slice(0, 8);
      this.#flags = DERIVE_KEY_MATERIAL;
    } else {
      this.#key = IV;
      this.#flags = 0;
    }
  }

  update(bytes: Uint8Array): this {
    for (let done = 0; done < bytes.length; ) {
      // A full group is hashed only once more input comes: the last one may be the root.
      if (this.#filled === GROUP) this.#push();
      const take = Math.min(GROUP - this.#filled, bytes.length - done);
      this.#group.set(bytes.subarray(done, done + take), this.#filled);
      this.#filled += take;
      done += take;
    }
    return this;
  }

  /** The group's chaining value onto the stack, merged as upstream merges chunks. */
  #push(): void {
    let cv = subtreeChainingValue(this.#group, { ...this.#options, offset: this.#groups * BigInt(GROUP) });
    this.#filled = 0;
    for (let total = ++this.#groups; (total & 1n) === 0n; total >>= 1n) cv = mergeSubtrees(this.#stack.pop()!, cv, this.#options);
    this.#stack.push(cv);
  }

  /** The root node of all input so far. */
  #root(): TreeNode {
    const last = this.#group.subarray(0, this.#filled);
    if (this.#stack.length === 0) {
      if (last.length <= CHUNK) return chunkNode(last, 0n, this.#key, this.#flags);
      const left = leftSubtreeLength(last.length);
      const cv = (part: Uint8Array, offset: number) => words(subtreeChainingValue(part, { ...this.#options, offset }), 8);
      return parentNode(cv(last.subarray(0, left), 0), cv(last.subarray(left), left), this.#key, this.#flags);
    }
    let right = subtreeChainingValue(last, { ...this.#options, offset: this.#groups * BigInt(GROUP) });
    for (let i = this.#stack.length - 1; i > 0; i--) right = mergeSubtrees(this.#stack[i]!, right, this.#options);
    return parentNode(words(this.#stack[0]!, 8), words(right, 8), this.#key, this.#flags);
  }

  /** Output from byte `position` on, read in order, past OUTPUT_END too.
   * `check`: the library's hasher over the same input. */
  reader(position: bigint, check: Blake3Hasher): { read(length: number): Uint8Array } {
    const root = this.#root();
    const block = (counter: bigint) => bytesOf(compress(root.cv, root.block, counter, root.length, root.flags | ROOT));
    const expected = check.digest({ length: BLOCK });
    if (!block(0n).every((byte, i) => byte === expected[i])) throw new Error('internal error: output past the end disagrees with the library');
    let at = position;
    return {
      read(length) {
        const out = new Uint8Array(length);
        for (let done = 0; done < length; ) {
          const counter = at / BigInt(BLOCK);
          const within = Number(at % BigInt(BLOCK));
          const piece = block(counter).subarray(within, within + length - done);
          out.set(piece, done);
          done += piece.length;
          at += BigInt(piece.length);
        }
        return out;
      },
    };
  }
}
