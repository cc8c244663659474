// The two multibase encodings of CIDv1 strings: base32 (RFC 4648, lower
// case, no padding; prefix 'b', the default) and base58btc (the Bitcoin
// alphabet; prefix 'z').

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export function toBase32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** Base32 digits by character code, either case, ASCII only: -1 for the
 * rest. toLowerCase() would also fold the Kelvin sign (U+212A) to 'k'. */
const BASE32_DIGITS = (() => {
  const digits = new Int8Array(128).fill(-1);
  for (let digit = 0; digit < 32; digit++) {
    digits[BASE32.charCodeAt(digit)] = digit;
    digits[BASE32.toUpperCase().charCodeAt(digit)] = digit;
  }
  return digits;
})();

/** Base32 (either case) back to bytes; null if a character is not base32
 * or the trailing bits are not zero (a non-canonical string). */
export function fromBase32(text: string): Uint8Array | null {
  const out = new Uint8Array(Math.floor((text.length * 5) / 8));
  let bits = 0;
  let value = 0;
  let at = 0;
  for (let i = 0; i < text.length; i++) {
    const digit = BASE32_DIGITS[text.charCodeAt(i)] ?? -1;
    if (digit < 0) return null;
    value = ((value << 5) | digit) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      out[at++] = (value >>> (bits - 8)) & 0xff;
      bits -= 8;
    }
  }
  if (bits >= 5 || (value & ((1 << bits) - 1)) !== 0) return null;
  return out;
}

export function toBase58(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  const digits: number[] = [];
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i]!;
    for (let j = 0; j < digits.length; j++) {
      carry += digits[j]! * 256;
      digits[j] = carry % 58;
      carry = Math.floor(carry / 58);
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = Math.floor(carry / 58);
    }
  }
  return (
    '1'.repeat(zeros) +
    digits
      .reverse()
      .map((digit) => BASE58[digit])
      .join('')
  );
}

/** Base58btc back to bytes; null if a character is not in the alphabet.
 * Quadratic in the length, as base conversion is: callers bound it. */
export function fromBase58(text: string): Uint8Array | null {
  let zeros = 0;
  while (zeros < text.length && text[zeros] === '1') zeros++;
  const bytes: number[] = [];
  for (let i = zeros; i < text.length; i++) {
    let carry = BASE58.indexOf(text[i]!);
    if (carry < 0) return null;
    for (let j = 0; j < bytes.length; j++) {
      carry += bytes[j]! * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  return Uint8Array.from([...new Array<number>(zeros).fill(0), ...bytes.reverse()]);
}
