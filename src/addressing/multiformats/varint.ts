// Unsigned varints (LEB128) as multiformats uses them: at most 9 bytes
// (63 bits), and only the shortest encoding of each number is valid.

/** `value` (a safe non-negative integer) as a varint. */
export function encodeVarint(value: number): number[] {
  const out: number[] = [];
  while (value >= 0x80) {
    out.push((value % 0x80) | 0x80);
    value = Math.floor(value / 0x80);
  }
  out.push(value);
  return out;
}

/** The varint at `bytes[at]`: its value and the index after it. Throws a
 * RangeError naming `what` if it is cut short, too long or not minimal. */
export function decodeVarint(bytes: Uint8Array, at: number, what: string): [value: number, next: number] {
  let value = 0;
  for (let i = 0; i < 9; i++) {
    const byte = bytes[at + i];
    if (byte === undefined) throw new RangeError(`blake3-kit: ${what} ends inside a varint`);
    value += (byte & 0x7f) * 2 ** (7 * i);
    if (byte < 0x80) {
      if (byte === 0 && i > 0) throw new RangeError(`blake3-kit: ${what} has a varint that is not in its shortest form`);
      if (!Number.isSafeInteger(value)) throw new RangeError(`blake3-kit: ${what} has a varint past 2^53`);
      return [value, at + i + 1];
    }
  }
  throw new RangeError(`blake3-kit: ${what} has a varint longer than 9 bytes`);
}
