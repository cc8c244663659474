// The tarballs a user installs: what scripts/pack.mjs makes for publishing
// (the main package lists the platform packages as optionalDependencies;
// a plain `npm pack` of the repository does not).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { blake3 } from '@noble/hashes/blake3.js';
import { build } from 'esbuild';
// @ts-expect-error: a plain .mjs module without types
import { PLATFORMS, packMain, packPlatform } from '../../scripts/pack.mjs';

export const root = fileURLToPath(new URL('../..', import.meta.url));

export interface Packed {
  main: string;
  /** Per triple: the tarball, or why there is none (its addon is not built). */
  platforms: Record<string, { tarball?: string; missing?: string }>;
}

/** Packs every package into `dir`. */
export function packAll(dir: string): Packed {
  const triples = Object.keys(PLATFORMS as Record<string, unknown>);
  return { main: packMain(dir), platforms: Object.fromEntries(triples.map((triple) => [triple, packPlatform(triple, dir)])) };
}

/** A fresh project in `dir`/`name` with `tarballs` installed as a user would
 * (offline: the tests' npm cache is all there is). `force` installs a
 * platform package on another platform. */
export function consumerProject(dir: string, name: string, tarballs: string[], { force = false } = {}): string {
  const project = join(dir, name);
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: `consumer-${name}`, private: true, type: 'module' }));
  const flags = ['--offline', '--no-audit', '--no-fund', '--ignore-scripts', ...(force ? ['--force'] : [])];
  execFileSync('npm', ['install', ...flags, ...tarballs], { cwd: project, stdio: 'ignore' });
  return project;
}

/** Bundles `source` (written to `project`/`name`) as wrangler does, with the
 * workerd condition and each imported .wasm as a compiled module, and runs
 * its test() handler in Cloudflare's workerd. `data` become ArrayBuffer
 * bindings (paths relative to the bundle's folder), `text` string ones.
 * Returns what it printed and its exit status. */
export async function runInWorkerd(
  project: string,
  name: string,
  source: string,
  {
    data = {},
    text = {},
    compatibilityDate = '2025-06-01',
  }: { data?: Record<string, string>; text?: Record<string, string>; compatibilityDate?: string } = {},
): Promise<{ output: string; status: number | null; outdir: string }> {
  writeFileSync(join(project, name), source);
  const outdir = join(project, 'out', name.replace(/\W/g, '-'));
  await build({
    absWorkingDir: project,
    entryPoints: [name],
    bundle: true,
    outdir,
    platform: 'neutral',
    format: 'esm',
    conditions: ['workerd', 'worker', 'browser'],
    loader: { '.wasm': 'copy' },
    logLevel: 'warning',
  });
  // The main module first: workerd runs the first one.
  const main = name.replace(/\.[cm]?[jt]s$/, '.js');
  const files = [main, ...readdirSync(outdir).filter((file) => file !== main && !file.endsWith('.capnp'))];
  const modules = files.map((file) => `(name = "${file}", ${file.endsWith('.wasm') ? 'wasm' : 'esModule'} = embed "${file}")`);
  const bindings = [
    ...Object.entries(data).map(([key, path]) => `(name = "${key}", data = embed "${path}")`),
    ...Object.entries(text).map(([key, value]) => `(name = "${key}", text = ${JSON.stringify(value)})`),
  ];
  const config = join(outdir, 'config.capnp'); // embed paths are relative to it
  writeFileSync(
    config,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (services = [(name = "main", worker = .worker)]);
const worker :Workerd.Worker = (modules = [${modules.join(', ')}], compatibilityDate = "${compatibilityDate}", bindings = [${bindings.join(', ')}]);\n`,
  );
  const run = spawnSync(join(root, 'node_modules', '.bin', 'workerd'), ['test', config, '--verbose'], { encoding: 'utf8', timeout: 60_000 });
  return { output: run.stdout + run.stderr, status: run.status, outdir };
}

/** What every blake3-kit/compat row runs, with blake3-wasm 2.x's API only
 * (hash, createHash, keyedHash, deriveKey, toString('hex')): synchronous,
 * no init(). `key` is the key's source text (a Buffer in Node, as
 * blake3-wasm's Node types want, a Uint8Array elsewhere). It leaves the
 * results in `compat`. */
export const compatProbe = (key: string) => `const input = new Uint8Array(100_003).map((_, i) => (i * 7) % 251);
const hasher = createHash();
for (let at = 0; at < input.length; at += 4099) hasher.update(input.subarray(at, at + 4099));
const compat = {
  abc: hash('abc').toString('hex'),
  buffer: typeof Buffer === 'function' && Buffer.isBuffer(hash('abc')),
  bytes: hash(input) instanceof Uint8Array,
  long: hash(input, { length: 131 }).toString('hex'),
  streamed: hasher.digest('hex'),
  keyed: keyedHash(${key}, input).toString('hex'),
  derived: deriveKey('blake3-kit compat probe', input, { length: 64 }).toString('hex'),
};`;

/** What compatProbe must leave in `compat`, from @noble/hashes and the
 * official test vector for 'abc'. */
export const compatExpected = (() => {
  const input = new Uint8Array(100_003).map((_, i) => (i * 7) % 251);
  const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
  return {
    abc: '6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85',
    bytes: true,
    long: hex(blake3(input, { dkLen: 131 })),
    streamed: hex(blake3(input)),
    keyed: hex(blake3(input, { key: new Uint8Array(32).fill(7) })),
    derived: hex(blake3(input, { context: new TextEncoder().encode('blake3-kit compat probe'), dkLen: 64 })),
  };
})();
