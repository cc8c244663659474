#!/usr/bin/env node
// Hashes files (or standard input) and prints `<hex>  <name>` lines as b3sum
// does, with the package's Node API. Files go through hashFile (the native
// addon's threads where it is built, else wasm workers); stdin is streamed
// into a hasher. Memory stays bounded whatever the size.
//
//   node examples/hash-file.mjs FILE...        (no FILE, or -, reads stdin)
import { hashFile, hashStream, init, nativeStatus, toHex } from 'blake3-kit';

const b3 = await init();
if (process.env.VERBOSE) {
  const { loaded, cpuFeatures, error } = nativeStatus();
  process.stderr.write(`backend ${b3.backend}${loaded ? ` (${cpuFeatures})` : error ? ` (addon: ${error.cause?.message ?? error.message})` : ''}\n`);
}
const names = process.argv.slice(2);
if (names.length === 0) names.push('-');

let failed = false;
for (const name of names) {
  try {
    const digest = name === '-' ? await hashStream(process.stdin) : await hashFile(name);
    process.stdout.write(`${toHex(digest)}  ${name}\n`);
  } catch (error) {
    failed = true;
    process.stderr.write(`hash-file: ${name}: ${error.code ?? error.message}\n`);
  }
}
process.exitCode = failed ? 1 : 0;
