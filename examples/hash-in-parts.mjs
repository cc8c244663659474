#!/usr/bin/env node
// Hashes a file as independent parts, each in its own process, and combines
// their chaining values into the file's BLAKE3 hash: what a multipart upload
// hashed on several machines does. Parts are PART bytes, a power-of-two
// number of 1 KiB chunks (subtrees must be), the last one shorter.
//
//   node examples/hash-in-parts.mjs FILE [PART_BYTES]   (default 4 MiB)
//
// Prints `<hex>  FILE`, as b3sum does.
import { execFile } from 'node:child_process';
import { open, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { hash, init, leftSubtreeLength, mergeSubtrees, mergeSubtreesRoot, subtreeChainingValue, toHex } from 'blake3-kit/bao';

await init();
const [file, partArg, offsetArg] = process.argv.slice(2);
const part = Number(partArg ?? 4 << 20);

if (offsetArg !== undefined) {
  // A worker process: the chaining value of one part, as hex on stdout.
  const offset = Number(offsetArg);
  const { size } = await stat(file);
  const bytes = new Uint8Array(Math.min(part, size - offset));
  const handle = await open(file);
  try {
    await handle.read(bytes, 0, bytes.length, offset);
  } finally {
    await handle.close();
  }
  process.stdout.write(toHex(subtreeChainingValue(bytes, { offset })));
} else {
  if (!(part >= 1024 && Number.isInteger(Math.log2(part)))) throw new RangeError('PART_BYTES must be a power of two, 1024 or more');
  const { size } = await stat(file);
  if (size <= part) {
    // One part: no tree to combine (and one chunk or less has no subtrees).
    const handle = await open(file);
    process.stdout.write(`${toHex(hash(await handle.readFile()))}  ${file}\n`);
    await handle.close();
  } else {
    // Every part at once; each process reads and hashes its own bytes.
    const run = promisify(execFile);
    const self = fileURLToPath(import.meta.url);
    const offsets = Array.from({ length: Math.ceil(size / part) }, (_, i) => i * part);
    const values = await Promise.all(
      offsets.map(async (offset) =>
        Uint8Array.from(Buffer.from((await run(process.execPath, [self, file, String(part), String(offset)])).stdout, 'hex')),
      ),
    );
    // Combine in the tree's own shape: split where BLAKE3 splits.
    const subtree = (offset, length) => {
      if (length <= part) return values[offset / part];
      const left = leftSubtreeLength(length);
      return mergeSubtrees(subtree(offset, left), subtree(offset + left, length - left));
    };
    const left = leftSubtreeLength(size);
    process.stdout.write(`${toHex(mergeSubtreesRoot(subtree(0, left), subtree(left, size - left)))}  ${file}\n`);
  }
}
