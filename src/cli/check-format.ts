// b3sum's checkfile format: `<hex>  <path>` or `BLAKE3 (<path>) = <hex>`
// (--tag), with a leading backslash when the path holds an escaped
// backslash, newline or carriage return. These rules, and the error
// messages, follow b3sum 1.8.7 so that checkfiles and output are
// interchangeable byte for byte.

// Names are shown as Rust's to_string_lossy shows them: invalid UTF-8
// becomes U+FFFD (the same maximal-subpart rule as TextDecoder), and a
// leading U+FEFF is part of the name, not a byte order mark.
const lossy = new TextDecoder('utf-8', { ignoreBOM: true });

export interface PrintedPath {
  text: string;
  escaped: boolean;
}

/** How a file name appears in output: `\` as `\\`, newline as `\n`, CR as `\r`. */
export function printablePath(path: Buffer): PrintedPath {
  const text = lossy.decode(path);
  if (!/[\\\n\r]/.test(text)) return { text, escaped: false };
  return { text: text.replaceAll('\\', '\\\\').replaceAll('\n', '\\n').replaceAll('\r', '\\r'), escaped: true };
}

/** A file name as b3sum names it in error messages: lossy, unescaped. */
export const displayPath = (path: Buffer) => lossy.decode(path);

export interface CheckLine {
  /** The path as printed in the checkfile (escaped form, with its leading `\`). */
  shown: string;
  path: string;
  expectedHex: string;
}

const HEX = /^[0-9a-f]*$/;
const TAG_PREFIX = 'BLAKE3 (';
const TAG_SEPARATOR = ') = ';

/** Parses one checkfile line; throws an Error with b3sum's message. As in
 * b3sum, the plain form is tried first (split at the first two spaces), then
 * the tag form (split at the last ") = "), and the hash's length in bytes is
 * checked before its digits. */
export function parseCheckLine(line: string): CheckLine {
  let rest = line.replace(/[\r\n]+$/, '');
  if (rest.length === 0) throw new Error('Empty line');
  const escaped = rest.startsWith('\\');
  if (escaped) rest = rest.slice(1);
  let hex: string;
  let printed: string;
  const split = rest.indexOf('  ');
  const tagEnd = rest.startsWith(TAG_PREFIX) ? rest.lastIndexOf(TAG_SEPARATOR) : -1;
  if (split >= 0) {
    hex = rest.slice(0, split);
    printed = rest.slice(split + 2);
  } else if (tagEnd >= TAG_PREFIX.length) {
    printed = rest.slice(TAG_PREFIX.length, tagEnd);
    hex = rest.slice(tagEnd + TAG_SEPARATOR.length);
  } else {
    throw new Error('Invalid check line format');
  }
  if (Buffer.byteLength(hex) !== 64) throw new Error('Invalid hash length');
  if (!HEX.test(hex)) throw new Error('Invalid hex');
  const path = escaped ? unescapeName(printed) : printed;
  if (path.length === 0) throw new Error('empty file path');
  if (path.includes('\0')) throw new Error('Null character in path');
  if (path.includes('\ufffd')) throw new Error('Unicode replacement character in path');
  return { shown: escaped ? `\\${printed}` : printed, path, expectedHex: hex };
}

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', '\\': '\\' };

function unescapeName(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const replacement = ESCAPES[text[++i] ?? ''];
    if (replacement === undefined) throw new Error('Invalid backslash escape');
    out += replacement;
  }
  return out;
}
