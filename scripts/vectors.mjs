// The JSON vector files that come from the official crate (crate/vectors),
// so the suites check against the reference implementation rather than
// against themselves:
//   test/vectors.json       the official test_vectors.json format
//   test/state-edges.json   saved states at BLAKE3's input limit
//   test/output-edges.json  output read across the end of its 2^64 - 1 bytes
//
//   node scripts/vectors.mjs            print them
//   node scripts/vectors.mjs --write    regenerate the files
//   node scripts/vectors.mjs --check    exit 1 if a file is out of date
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isMain, main, root, spawnCollect } from './lib.mjs';

/** Each file and the arguments of crate/vectors that print it. */
export const vectorFiles = [
  { path: join(root, 'test', 'vectors.json'), args: [] },
  { path: join(root, 'test', 'state-edges.json'), args: ['--state-edges'] },
  { path: join(root, 'test', 'output-edges.json'), args: ['--output-edges'] },
];

/** A vector file's JSON as the official crate prints it. */
export async function generateVectors(args = []) {
  const cargo = ['run', '-q', '--release', '--manifest-path', join(root, 'crate', 'Cargo.toml'), '-p', 'blake3-kit-vectors', '--', ...args];
  const r = await spawnCollect('cargo', cargo, { tee: false });
  if (r.code !== 0) throw new Error(`\`cargo ${cargo.join(' ')}\` failed: ${r.error?.message ?? `exit ${r.code ?? r.signal}`}`);
  return r.stdout;
}

if (isMain(import.meta.url)) {
  await main(async () => {
    for (const { path, args } of vectorFiles) {
      const fresh = await generateVectors(args);
      const name = relative(root, path);
      if (process.argv.includes('--write')) {
        writeFileSync(`${path}.tmp`, fresh);
        renameSync(`${path}.tmp`, path);
        console.log(`vectors: wrote ${name} (${fresh.length} bytes)`);
      } else if (process.argv.includes('--check')) {
        if (readFileSync(path, 'utf8') !== fresh) {
          throw new Error(`${name} differs from what crate/vectors generates; run \`npm run vectors\` and review the diff`);
        }
        console.log(`vectors: ${name} is up to date`);
      } else {
        process.stdout.write(fresh);
      }
    }
  });
}
