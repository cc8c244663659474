// test/vectors.json comes from the official crate (crate/vectors), in the
// format of upstream's test_vectors.json, so the JS suite checks against the
// reference implementation rather than against itself.
//
//   node scripts/vectors.mjs            print the vectors
//   node scripts/vectors.mjs --write    regenerate test/vectors.json
//   node scripts/vectors.mjs --check    exit 1 if test/vectors.json is out of date
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMain, main, root, spawnCollect } from './lib.mjs';

export const vectorsPath = join(root, 'test', 'vectors.json');

/** The vectors JSON as the official crate prints it. */
export async function generateVectors() {
  const args = ['run', '-q', '--release', '--manifest-path', join(root, 'crate', 'Cargo.toml'), '-p', 'blake3-kit-vectors'];
  const r = await spawnCollect('cargo', args, { tee: false });
  if (r.code !== 0) throw new Error(`\`cargo ${args.join(' ')}\` failed: ${r.error?.message ?? `exit ${r.code ?? r.signal}`}`);
  return r.stdout;
}

if (isMain(import.meta.url)) {
  await main(async () => {
    const fresh = await generateVectors();
    if (process.argv.includes('--write')) {
      writeFileSync(`${vectorsPath}.tmp`, fresh);
      renameSync(`${vectorsPath}.tmp`, vectorsPath);
      console.log(`vectors: wrote test/vectors.json (${fresh.length} bytes)`);
    } else if (process.argv.includes('--check')) {
      if (readFileSync(vectorsPath, 'utf8') !== fresh) {
        throw new Error('test/vectors.json differs from what crate/vectors generates; run `npm run vectors` and review the diff');
      }
      console.log('vectors: test/vectors.json is up to date');
    } else {
      process.stdout.write(fresh);
    }
  });
}
