// Packs what would be published: blake3-kit itself, and one package per
// platform with the native addon (npm/<triple>/, the napi-rs layout).
//
// The main package lists the platform packages in optionalDependencies only
// here, as napi-rs's prepublish step does: in the repository's package.json
// they would have to be in package-lock.json too, and `npm ci` would fetch
// them (unpublished, or worse, someone else's) into our own node_modules.
//
//   node scripts/pack.mjs [--dest DIR]   (default: the current directory)
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CROSS, PLATFORM_BUILDS, platformOutput, output as localAddon } from './build-native.mjs';
import { isMain, main, root } from './lib.mjs';

const manifest = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

/** Every platform package (npm/<triple>/), and where its addon is built. */
export const PLATFORMS = {
  // setup.mjs builds it on an x86-64 Linux machine like this one.
  'linux-x64-gnu': { addon: localAddon },
  // The aarch64 step of scripts/test.mjs cross-builds it.
  'linux-arm64-gnu': { addon: join(root, 'crate', 'target', Object.keys(CROSS)[0], 'native', 'libblake3_kit_node.so') },
  // The musl, windows and macos steps of scripts/test.mjs cross-build these.
  ...Object.fromEntries(Object.keys(PLATFORM_BUILDS).map((triple) => [triple, { addon: platformOutput(triple) }])),
};

/** Packs `files` ([absolute source, name in the package]) with `pkg` as
 * package.json into `dest`; returns the tarball's path. */
function packStaged(files, pkg, dest) {
  const stage = mkdtempSync(join(tmpdir(), 'blake3-kit-pack-'));
  try {
    for (const [source, target] of files) cpSync(source, join(stage, target), { recursive: true });
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
    const run = spawnSync('npm', ['pack', '--silent', '--pack-destination', dest], { cwd: stage, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`npm pack failed for ${pkg.name}: ${run.stderr}`);
    return join(dest, run.stdout.trim().split('\n').pop());
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** The main package, with the platform packages as optionalDependencies. */
export function packMain(dest) {
  const pkg = manifest(root);
  pkg.optionalDependencies = Object.fromEntries(Object.keys(PLATFORMS).map((triple) => [`blake3-kit-${triple}`, pkg.version]));
  // Ours run scripts/, which is not shipped (and prepublishOnly refuses).
  delete pkg.scripts;
  // npm pack applies "files" again in the stage; copying whole folders is enough here.
  // A pattern stands for the folder it is in (wasm/*.wasm, bench/results/latest-*.svg).
  const shipped = ['README.md', ...pkg.files.map((entry) => entry.replace(/\/[^/]*[*?].*$/, ''))];
  return packStaged(
    shipped.map((entry) => [join(root, entry), entry]),
    pkg,
    dest,
  );
}

/** The package for `triple`: { tarball }, or { missing } if its addon is not built. */
export function packPlatform(triple, dest) {
  const dir = join(root, 'npm', triple);
  const pkg = manifest(dir);
  const { version } = manifest(root);
  if (pkg.version !== version) throw new Error(`${pkg.name} is at ${pkg.version}, blake3-kit at ${version}`);
  const { addon } = PLATFORMS[triple];
  if (!existsSync(addon)) return { missing: `${addon} is not built` };
  const files = [
    [join(dir, 'README.md'), 'README.md'],
    [addon, pkg.main],
    [join(root, 'LICENSE-MIT'), 'LICENSE-MIT'],
    [join(root, 'LICENSE-APACHE'), 'LICENSE-APACHE'],
  ];
  return { tarball: packStaged(files, pkg, dest) };
}

if (isMain(import.meta.url)) {
  await main(() => {
    const at = process.argv.indexOf('--dest');
    const dest = resolve(at === -1 ? '.' : process.argv[at + 1]);
    mkdirSync(dest, { recursive: true });
    console.log(packMain(dest));
    for (const triple of readdirSync(join(root, 'npm'))) {
      const packed = packPlatform(triple, dest);
      console.log(packed.tarball ?? `${triple}: skipped, ${packed.missing}`);
    }
  });
}
