// HTTP byte ranges over verified chunks, as BDASL's "Verifying HTTP Range
// Requests" section maps them (dasl.ing/bdasl.html): a `Range: bytes=
// {start}-{end}` (end inclusive, either omitted) becomes the chunk range
// holding those bytes, which is fetched and verified whole; the first and
// last chunks are then cut to the bytes asked for.

import { lengthOf, rangeOf, toBytes } from '../../input.js';
import { CHUNK_LEN } from '../../tree/geometry.js';
import type { VerifiedPiece } from './range-walk.js';

/** An HTTP byte range: `start` and `end` (inclusive), either omitted. */
export interface HttpByteRange {
  start?: number;
  end?: number;
}

/**
 * The chunks holding an HTTP byte range, [first, end) in 1024-byte chunks
 * as bao-tree takes them (end Infinity with no end byte). An omitted start
 * is byte 0, as BDASL reads it (RFC 9110 reads `bytes=-N` as the last N
 * bytes, which needs the size: pass that range's start instead).
 */
export function httpRangeChunks(range: HttpByteRange): [number, number] {
  const { from, last } = checkHttpRange(range);
  // BDASL's formula says ⌈start / 1024⌉, but its own example (bytes=500-1600
  // retrieves chunks 0 and 1) needs the floor: ⌈500 / 1024⌉ = 1 would miss
  // bytes 500-1023. Its ⌈end / 1024⌉ as an exclusive end chunk agrees with
  // ⌊end / 1024⌋ + 1 except where end is a multiple of 1024, whose chunk it
  // would leave out (bytes=0-1024 needs chunk 1): the latter is used.
  return [Math.floor(from / CHUNK_LEN), last === undefined ? Number.POSITIVE_INFINITY : Math.floor(last / CHUNK_LEN) + 1];
}

/**
 * The bytes of an HTTP byte range out of verified pieces in order (what
 * the decoders return for httpRangeChunks' chunks): the first and last cut
 * to the range, the ones between whole. A range past the content's end
 * stops there, as HTTP's does. RangeError if the pieces leave a gap in it.
 */
export function httpRangeBytes(pieces: readonly VerifiedPiece[], range: HttpByteRange): Uint8Array {
  const { from, last } = checkHttpRange(range);
  if (!Array.isArray(pieces)) throw new TypeError('blake3-kit: pieces must be an array of { offset, bytes }');
  const limit = last === undefined ? Number.POSITIVE_INFINITY : last + 1;
  // The array's length, each piece and each piece's fields read once; the
  // part of a piece's bytes in the range is checked and copied before the
  // next piece is read, whose getters could shrink, detach or rewrite an
  // earlier piece's buffer (a view kept until the end then read zeros).
  const count = pieces.length;
  const parts: Uint8Array[] = [];
  let at = from; // the first byte of the range not held yet
  let gap = false;
  let covered = 0; // where the last piece ends
  for (let i = 0; i < count; i++) {
    const piece: unknown = pieces[i];
    if (typeof piece !== 'object' || piece === null) throw new TypeError(`blake3-kit: pieces[${i}] must be an object { offset, bytes }`);
    const { offset, bytes: given } = piece as VerifiedPiece;
    if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
      throw new RangeError(`blake3-kit: pieces[${i}].offset must be a non-negative safe integer; got ${String(offset)}`);
    }
    const bytes = toBytes(given, `pieces[${i}].bytes`);
    covered = offset + lengthOf(bytes);
    const end = Math.min(covered, limit);
    if (gap || end <= at) continue;
    // Pieces after a gap are read (and checked) but not used.
    if (offset > at) {
      gap = true;
      continue;
    }
    parts.push(rangeOf(bytes, at - offset, end - offset).slice());
    at = end;
  }
  const to = Math.min(limit, covered);
  if (at < to) throw new RangeError(`blake3-kit: the pieces do not hold byte ${at} of the range`);
  const out = new Uint8Array(Math.max(0, to - from));
  let filled = 0;
  for (const part of parts) {
    if (filled >= out.length) break;
    const take = Math.min(part.length, out.length - filled);
    out.set(take === part.length ? part : part.subarray(0, take), filled);
    filled += take;
  }
  return out;
}

function checkHttpRange(range: unknown): { from: number; last: number | undefined } {
  if (typeof range !== 'object' || range === null) throw new TypeError('blake3-kit: range must be an object { start?, end? }');
  const { start, end } = range as HttpByteRange;
  for (const [name, value] of [
    ['start', start],
    ['end', end],
  ] as const) {
    if (value !== undefined && (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0))
      throw new RangeError(`blake3-kit: range.${name} must be a non-negative safe integer; got ${String(value)}`);
  }
  const from = start ?? 0;
  if (end !== undefined && end < from) throw new RangeError(`blake3-kit: range.end (${end}) is before range.start (${from})`);
  return { from, last: end };
}
