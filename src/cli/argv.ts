// The command's arguments as the bytes the kernel passed, as b3sum sees them.
// Node decodes argv as UTF-8 and replaces invalid bytes with U+FFFD, so a
// file name that is not UTF-8 would name another file, and an invalid
// --derive-key context would pass silently. On Linux /proc/self/cmdline
// still holds the original bytes; elsewhere the decoded strings are all we
// have, and such arguments behave as their U+FFFD spelling.

import { fs } from './system.js';

const lossy = new TextDecoder('utf-8', { ignoreBOM: true });

/** The bytes of `decoded`, the arguments after the script name as Node
 * decoded them, where the kernel still has them. */
export function rawArgs(decoded: readonly string[]): Buffer[] {
  // Valid UTF-8 decodes and encodes back to the same bytes; only a U+FFFD
  // can stand for bytes that were not. Not reading /proc then saves ~0.25
  // ms of a run on a small file.
  if (!decoded.some((arg) => arg.includes('\uFFFD'))) return decoded.map((arg) => Buffer.from(arg));
  const fromProc = procArgs(decoded.length);
  // Node's own options sit between the executable and the script; the
  // arguments are the last ones. Trust them only if they decode to what Node
  // decoded, so a rewritten process title can never change the arguments.
  if (fromProc?.every((raw, i) => lossy.decode(raw) === decoded[i])) return fromProc;
  return decoded.map((arg) => Buffer.from(arg));
}

function procArgs(count: number): Buffer[] | undefined {
  let cmdline: Buffer;
  try {
    cmdline = fs.readFileSync('/proc/self/cmdline');
  } catch {
    return undefined;
  }
  const all: Buffer[] = [];
  for (let start = 0; start < cmdline.length; ) {
    let end = cmdline.indexOf(0, start);
    if (end < 0) end = cmdline.length;
    all.push(cmdline.subarray(start, end));
    start = end + 1;
  }
  return all.length >= count + 2 ? all.slice(all.length - count) : undefined;
}
