// The columns of the bench: every runtime it can measure in, and whether this
// machine has it. Process runtimes run bench/node/child.mjs under their own
// binary (fork with execPath, whose IPC Deno and Bun speak too); browsers
// load the same page and bundle (bench/browser/harness.mjs) through one of
// three drivers (bench/lib/browser-runner.mjs).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_VERSIONS, nodeBinary } from '../../scripts/node-versions.mjs';
import { repoDir } from './build.mjs';

export const FIREFOX_PATH = '/usr/bin/firefox-esr';
export const WEBKIT_DRIVER = '/usr/bin/WebKitWebDriver';
export const MINIBROWSER = `/usr/lib/${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu/webkit2gtk-4.1/MiniBrowser`;
export const XVFB = '/usr/bin/Xvfb';
const bin = (name) => join(repoDir, 'node_modules', '.bin', name);

// Deno gets what the rows need and no more: reading the repo (modules, the
// addon, the job file), the environment (packages and blake3-kit read a few
// variables), FFI for the two native rows, and system facts (os.cpus() for
// the worker count). No network, no writes, no subprocesses.
const DENO_FLAGS = ['run', '--no-prompt', '--no-lock', '--allow-read', '--allow-env', '--allow-ffi', '--allow-sys'];

const hostMajor = process.versions.node.split('.')[0];

/** Every runtime, in column order. `id` is what --runtimes takes; `file` the
 * name of its results (`node` stays the host Node's, as before this list). */
export function allRuntimes() {
  const missing = (path, how) => (existsSync(path) ? undefined : `${path} missing (${how})`);
  const nodes = NODE_VERSIONS.filter((v) => v.split('.')[0] !== hostMajor).map((version) => ({
    id: `node${version.split('.')[0]}`,
    file: `node${version.split('.')[0]}`,
    kind: 'process',
    platform: 'node',
    nodeVersion: version,
    execPath: nodeBinary(version),
    execArgv: [],
    unavailable: () => missing(nodeBinary(version), 'npm run bench installs it unless --no-setup, as node scripts/setup.mjs --test does'),
  }));
  return [
    { id: `node${hostMajor}`, file: 'node', kind: 'process', platform: 'node', host: true, execPath: process.execPath, execArgv: [], unavailable: () => undefined },
    ...nodes,
    { id: 'deno', file: 'deno', kind: 'process', platform: 'node', execPath: bin('deno'), execArgv: DENO_FLAGS, unavailable: () => missing(bin('deno'), 'the root devDependency deno: npm ci') },
    { id: 'bun', file: 'bun', kind: 'process', platform: 'node', execPath: bin('bun'), execArgv: [], unavailable: () => missing(bin('bun'), 'the root devDependency bun: npm ci') },
    { id: 'chromium', file: 'chromium', kind: 'browser', platform: 'browser', unavailable: () => undefined },
    {
      id: 'firefox',
      file: 'firefox',
      kind: 'browser',
      platform: 'browser',
      unavailable: () => missing(FIREFOX_PATH, 'apt-get install -y firefox-esr'),
    },
    {
      id: 'webkit',
      file: 'webkit',
      kind: 'browser',
      platform: 'browser',
      unavailable: () =>
        missing(WEBKIT_DRIVER, 'apt-get install -y webkit2gtk-driver') ?? missing(MINIBROWSER, 'apt-get install -y webkit2gtk-driver') ?? missing(XVFB, 'apt-get install -y xvfb'),
    },
  ];
}

/** The runtimes a command line asks for: --runtimes ids (`node` is the host
 * Node), else --node / --browser as before (host Node, Chromium), else all. */
export function selectRuntimes({ runtimes, node, browser }) {
  const all = allRuntimes();
  const ids = runtimes.flatMap((r) => r.split(',')).map((r) => r.trim().toLowerCase()).filter(Boolean);
  if (ids.length) {
    const host = all[0].id;
    const picked = [];
    for (const id of ids) {
      const rt = all.find((r) => r.id === (id === 'node' ? host : id));
      if (!rt) throw new Error(`--runtimes: unknown runtime ${id} (known: ${all.map((r) => r.id).join(', ')})`);
      if (!picked.includes(rt)) picked.push(rt);
    }
    return all.filter((r) => picked.includes(r));
  }
  if (node || browser) return all.filter((r) => (node && r.host) || (browser && r.id === 'chromium'));
  return all;
}
