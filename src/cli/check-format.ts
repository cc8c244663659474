// b3sum's checkfile format: `<hex>  <path>` or `BLAKE3 (<path>) = <hex>`
// (--tag), with a leading backslash when the path holds an escaped backslash
// or newline. These rules, and the error messages, follow b3sum 1.8 so that
// checkfiles and output are interchangeable byte for byte.

export interface PrintedPath {
  text: string;
  escaped: boolean;
}

/** How a path appears in output: `\` as `\\`, newline as `\n`. */
export function printablePath(path: string): PrintedPath {
  if (!path.includes('\\') && !path.includes('\n')) return { text: path, escaped: false };
  return { text: path.replaceAll('\\', '\\\\').replaceAll('\n', '\\n'), escaped: true };
}

export interface CheckLine {
  /** The path as printed in the checkfile (escaped form, with its leading `\`). */
  shown: string;
  path: string;
  expectedHex: string;
}

const HEX = /^[0-9a-f]*$/;
const TAG_PREFIX = 'BLAKE3 (';
const TAG_SEPARATOR = ') = ';

/** Parses one checkfile line; throws an Error with b3sum's message. Matches
 * b3sum 1.8.7, probed line by line: the tag form splits at the last ") = ",
 * the plain form at the first two spaces, and the hash length is checked
 * before its digits. */
export function parseCheckLine(line: string): CheckLine {
  let rest = line.replace(/[\r\n]+$/, '');
  if (rest.length === 0) throw new Error('Empty line');
  const escaped = rest.startsWith('\\');
  if (escaped) rest = rest.slice(1);
  let hex: string | undefined;
  let printed = '';
  if (rest.startsWith(TAG_PREFIX)) {
    const at = rest.lastIndexOf(TAG_SEPARATOR);
    if (at >= TAG_PREFIX.length) {
      printed = rest.slice(TAG_PREFIX.length, at);
      hex = rest.slice(at + TAG_SEPARATOR.length);
    }
  }
  if (hex === undefined) {
    const at = rest.indexOf('  ');
    if (at < 0) throw new Error('Invalid check line format');
    hex = rest.slice(0, at);
    printed = rest.slice(at + 2);
  }
  if (hex.length !== 64) throw new Error('Invalid hash length');
  if (!HEX.test(hex)) throw new Error('Invalid hex');
  const path = escaped ? unescapePath(printed) : printed;
  if (path.length === 0) throw new Error('empty file path');
  if (path.includes('\0')) throw new Error('Null character in path');
  if (path.includes('\ufffd')) throw new Error('Unicode replacement character in path');
  return { shown: escaped ? `\\${printed}` : printed, path, expectedHex: hex };
}

function unescapePath(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = text[++i];
    if (next === 'n') out += '\n';
    else if (next === '\\') out += '\\';
    else throw new Error('Invalid backslash escape');
  }
  return out;
}
