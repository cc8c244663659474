#!/usr/bin/env node
// Hashes files (or standard input) and prints `<hex>  <name>` lines as b3sum
// does. Files are streamed, so memory stays bounded whatever their size.
//
//   npm run --silent hash -- FILE...        (no FILE, or -, reads stdin)
import { createReadStream } from 'node:fs';
import { init, toHex } from 'blake3-kit';

const b3 = await init();
const names = process.argv.slice(2);
if (names.length === 0) names.push('-');

let failed = false;
for (const name of names) {
  try {
    const stream = name === '-' ? process.stdin : createReadStream(name, { highWaterMark: 1 << 20 });
    const hasher = b3.createHasher();
    try {
      for await (const chunk of stream) hasher.update(chunk);
      process.stdout.write(`${toHex(hasher.digest())}  ${name}\n`);
    } finally {
      hasher.dispose(); // Node 20 has no `using` syntax yet
    }
  } catch (error) {
    failed = true;
    process.stderr.write(`hash-file: ${name}: ${error.message}\n`);
  }
}
process.exitCode = failed ? 1 : 0;
