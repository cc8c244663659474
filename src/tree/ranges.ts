// Chunk range sets, the query a tree walk can be pruned by (iroh's
// bao-tree: range_collections' RangeSet, as sorted boundaries): which ranges
// go to which subtree, and what a range past the end asks for. NodeWalk
// splits them as it descends; the bao-tree range encoder and decoders parse
// them here.

import { CHUNK_LEN } from './geometry.js';

/** A range set as sorted boundaries: ranges [b0, b1), [b2, b3), ...; an odd
 * count leaves the last one open (range_collections' RangeSet). */
export type Boundaries = readonly number[];

/** `ranges` checked, sorted and merged into boundaries. */
export function boundariesOf(ranges: unknown): number[] {
  if (!Array.isArray(ranges)) throw new TypeError('blake3-kit: ranges must be an array of [start, end] chunk ranges');
  const pairs: [number, number][] = [];
  for (let i = 0; i < ranges.length; i++) {
    const pair: unknown = ranges[i];
    if (!Array.isArray(pair) || pair.length !== 2) throw new TypeError(`blake3-kit: ranges[${i}] must be a [start, end] pair`);
    const [start, end] = pair as [unknown, unknown];
    if (typeof start !== 'number' || typeof end !== 'number') throw new TypeError(`blake3-kit: ranges[${i}] must hold two numbers`);
    if (!Number.isSafeInteger(start) || start < 0 || !(end === Number.POSITIVE_INFINITY || (Number.isSafeInteger(end) && end >= start))) {
      throw new RangeError(
        `blake3-kit: ranges[${i}] must be [start, end] with 0 <= start <= end (chunks; end may be Infinity); got [${start}, ${end}]`,
      );
    }
    if (end > start) pairs.push([start, end]);
  }
  pairs.sort((a, b) => a[0] - b[0]);
  // Overlapping and touching ranges merge, as in a RangeSet.
  const out: number[] = [];
  let start = -1;
  let end = -1;
  for (const [from, to] of pairs) {
    if (start >= 0 && from <= end) end = Math.max(end, to);
    else {
      if (start >= 0) out.push(start, end);
      [start, end] = [from, to];
    }
  }
  if (start >= 0) {
    out.push(start);
    if (end !== Number.POSITIVE_INFINITY) out.push(end);
  }
  return out;
}

/** Index of `value` in sorted `b`, or -(insertion point) - 1. */
function search(b: Boundaries, value: number): number {
  let lo = 0;
  let hi = b.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (b[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo < b.length && b[lo] === value ? lo : -lo - 1;
}

/** bao-tree's truncate_ranges: ranges past a blob of `size` bytes ask for
 * its last chunk, and are cut to an open range from there. */
export function truncate(b: Boundaries, size: number): Boundaries {
  const last = Math.max(0, Math.ceil(size / CHUNK_LEN) - 1);
  const found = search(b, last);
  let keep: number;
  if (found >= 0) keep = found % 2 === 0 || b.length === found + 1 ? found + 1 : found;
  else {
    const at = -found - 1;
    keep = at % 2 === 0 ? (b.length === at ? at : at + 1) : at;
  }
  return b.slice(0, keep);
}

/** range_collections' split: the ranges below `at`, and from `at` on (whose
 * first range may start before `at`). */
function splitAt(b: Boundaries, at: number): [Boundaries, Boundaries] {
  const found = search(b, at);
  if (found >= 0) return found % 2 === 0 ? [b.slice(0, found), b.slice(found)] : [b.slice(0, found), b.slice(found + 1)];
  const i = -found - 1;
  return i % 2 === 0 ? [b.slice(0, i), b.slice(i)] : [b.slice(0, i), b.slice(i - 1)];
}

const ALL: Boundaries = [0];

/** bao-tree's split_inner: splitAt, with a part that covers its whole
 * subtree made the canonical "all", which isAll recognises. */
export function splitInner(b: Boundaries, start: number, mid: number): [Boundaries, Boundaries] {
  let [left, right] = splitAt(b, mid);
  if (left.length === 1 && left[0]! <= start) left = ALL;
  if (right.length === 1 && right[0]! <= mid) right = ALL;
  return [left, right];
}

export const isAll = (b: Boundaries) => b.length === 1 && b[0] === 0;
