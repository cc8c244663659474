// HTTP byte ranges over verified chunks, as BDASL's "Verifying HTTP Range
// Requests" section maps them (dasl.ing/bdasl.html): a `Range: bytes=
// {start}-{end}` (end inclusive, either omitted) becomes the chunk range
// holding those bytes, which is fetched and verified whole; the first and
// last chunks are then cut to the bytes asked for.

import { CHUNK_LEN } from '../tree/geometry.js';
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
  const covered = pieces.length === 0 ? 0 : pieces.at(-1)!.offset + pieces.at(-1)!.bytes.length;
  const to = last === undefined ? covered : Math.min(last + 1, covered);
  const out = new Uint8Array(Math.max(0, to - from));
  let at = from;
  for (const { offset, bytes } of pieces) {
    const end = Math.min(offset + bytes.length, to);
    if (end <= at) continue;
    if (offset > at) break;
    out.set(bytes.subarray(at - offset, end - offset), at - from);
    at = end;
  }
  if (at < to) throw new RangeError(`blake3-kit: the pieces do not hold byte ${at} of the range`);
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
