// --check: b3sum's checkfile loop. Each line names a file and its expected
// hash; the file is hashed and the line answered with OK or FAILED, in
// checkfile order, as b3sum answers.

import { toHex, type Blake3 } from '../node.js';
import type { Options } from './args.js';
import { parseCheckLine } from './check-format.js';
import { describe, withoutPrefix } from './errors.js';
import { NAME } from './help.js';
import { err, out } from './io.js';
import { chunks, feed } from './read.js';

const strictLine = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The checkfile's lines, each with its newline, read as Rust's read_line
 * reads them: one at a time, so output keeps pace with input; a line that is
 * not UTF-8 ends the file with an error, after the lines before it were
 * checked. A BOM stays, and fails the first line. */
function* lines(checkfile: Buffer): Generator<string> {
  const decode = (pieces: Buffer[]) => {
    try {
      return strictLine.decode(Buffer.concat(pieces));
    } catch {
      throw new Error('stream did not contain valid UTF-8');
    }
  };
  // A line's pieces from earlier chunks (copied: chunks reuses its buffer).
  let partial: Buffer[] = [];
  for (const chunk of chunks(checkfile)) {
    let start = 0;
    for (let newline: number; (newline = chunk.indexOf(0x0a, start)) >= 0; start = newline + 1) {
      const line = decode([...partial, chunk.subarray(start, newline + 1)]);
      partial = [];
      yield line;
    }
    if (start < chunk.length) partial.push(Buffer.from(chunk.subarray(start)));
  }
  if (partial.length > 0) yield decode(partial);
}

async function checkLine(b3: Blake3, line: string, options: Options): Promise<boolean> {
  let parsed: ReturnType<typeof parseCheckLine>;
  try {
    parsed = parseCheckLine(line);
  } catch (error) {
    err(`${NAME}: ${(error as Error).message}`);
    return false;
  }
  const hasher = b3.createHasher();
  let found: string;
  try {
    await feed(Buffer.from(parsed.path), hasher, options);
    found = toHex(hasher.digest());
  } catch (error) {
    out(`${parsed.shown}: FAILED (${withoutPrefix(describe(error))})\n`);
    return false;
  } finally {
    hasher.dispose();
  }
  if (found !== parsed.expectedHex) {
    out(`${parsed.shown}: FAILED\n`);
    return false;
  }
  if (!options.quiet) out(`${parsed.shown}: OK\n`);
  return true;
}

export async function checkFiles(b3: Blake3, options: Options): Promise<number> {
  let failures = 0;
  for (const checkfile of options.files) {
    for (const line of lines(checkfile)) {
      if (!(await checkLine(b3, line, options))) failures++;
    }
  }
  if (failures > 0) err(`${NAME}: WARNING: ${failures} computed checksum${failures === 1 ? '' : 's'} did NOT match`);
  return failures > 0 ? 1 : 0;
}
