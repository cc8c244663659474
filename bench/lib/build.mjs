// Everything the bench needs before it measures, each step idempotent and
// quick when there is nothing to do. Node built-ins only at the top level:
// bench/node_modules may not exist yet.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const benchDir = fileURLToPath(new URL('../', import.meta.url));
export const repoDir = fileURLToPath(new URL('../../', import.meta.url));
export const buildDir = join(benchDir, '.build', 'browser');
const referenceDir = join(benchDir, 'reference');

const say = (what, msg) => console.log(`bench: ${what.padEnd(12)} ${msg}`);

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`})`);
}

function mtime(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...readdirSync(path).map((f) => mtime(join(path, f))));
}

/** The competitors: bench/package.json is its own npm project. */
export function ensureBenchDeps() {
  const marker = join(benchDir, 'node_modules', '.package-lock.json');
  const lock = join(benchDir, 'package-lock.json');
  if (existsSync(marker) && Math.max(mtime(lock), mtime(join(benchDir, 'package.json'))) <= mtime(marker)) {
    return say('npm deps', 'up to date');
  }
  const cmd = existsSync(lock) ? 'ci' : 'install';
  say('npm deps', `npm --prefix bench ${cmd}`);
  run('npm', ['--prefix', benchDir, cmd, '--no-audit', '--no-fund']);
  const now = new Date();
  if (existsSync(marker)) utimesSync(marker, now, now); // npm may leave it untouched
}

/** blake3-kit itself: the repo's own idempotent set-up builds dist/ and wasm/
 * when stale (and, with --browser, installs Debian's Chromium). */
export function ensureRepoBuild({ browser, skip }) {
  const need = ['dist/node.js', 'dist/browser.js', 'wasm/blake3-kit-simd.wasm', 'wasm/blake3-kit-scalar.wasm'];
  if (skip) {
    const missing = need.filter((f) => !existsSync(join(repoDir, f)));
    if (missing.length) throw new Error(`--no-setup, but ${missing.join(', ')} missing: run node scripts/setup.mjs`);
    return say('blake3-kit', 'using the existing build (--no-setup)');
  }
  run(process.execPath, [join(repoDir, 'scripts', 'setup.mjs'), ...(browser ? ['--browser'] : [])], { cwd: repoDir });
}

/** The reference rows: bench/reference built twice, simd128 and scalar, with
 * wasm-bindgen --target web glue (usable from Node with bytes, and from the
 * browser with a URL). Each flavour has its own target dir so switching
 * RUSTFLAGS doesn't rebuild the other. */
export function ensureReference() {
  const sources = Math.max(mtime(join(referenceDir, 'src')), mtime(join(referenceDir, 'Cargo.toml')));
  const env = { ...process.env, PATH: `${join(homedir(), '.cargo', 'bin')}:${process.env.PATH}` };
  delete env.CARGO_ENCODED_RUSTFLAGS;
  for (const flavour of ['simd', 'scalar']) {
    const out = join(referenceDir, 'pkg', flavour);
    if (mtime(join(out, 'reference_bg.wasm')) > sources && existsSync(join(out, 'reference.js'))) {
      say('reference', `${flavour} up to date`);
      continue;
    }
    say('reference', `building ${flavour} (blake3 =1.8.7, wasm-bindgen =0.2.130)`);
    const targetDir = join(referenceDir, 'target', flavour);
    run(
      'cargo',
      [
        'build',
        '--release',
        '--target',
        'wasm32-unknown-unknown',
        '--manifest-path',
        join(referenceDir, 'Cargo.toml'),
        '--target-dir',
        targetDir,
        ...(flavour === 'simd' ? ['--features', 'simd'] : []),
      ],
      { env: { ...env, RUSTFLAGS: flavour === 'simd' ? '-C target-feature=+simd128' : '' } },
    );
    rmSync(out, { recursive: true, force: true });
    run(
      'wasm-bindgen',
      [
        '--target',
        'web',
        '--out-dir',
        out,
        '--out-name',
        'reference',
        join(targetDir, 'wasm32-unknown-unknown', 'release', 'blake3_reference.wasm'),
      ],
      { env },
    );
  }
}

/** The browser page: bench/browser/harness.mjs bundled with esbuild, one
 * chunk per implementation (code splitting). blake3-kit and the reference
 * glue stay external (served as built). esbuild leaves blake3-wasm's
 * `new URL('blake3.wasm', import.meta.url)` as written and does not copy the
 * file, so it is copied next to the chunks. */
export async function buildBrowserBundle() {
  const esbuild = await import('esbuild');
  rmSync(buildDir, { recursive: true, force: true });
  mkdirSync(buildDir, { recursive: true });
  await esbuild.build({
    entryPoints: { harness: join(benchDir, 'browser', 'harness.mjs') },
    absWorkingDir: benchDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outdir: buildDir,
    // fs/path: blake3-wasm's emscripten glue require()s them on a path
    // browsers never take.
    external: ['/repo/*', '/reference/*', 'fs', 'path'],
    logLevel: 'warning',
    logOverride: { 'unsupported-dynamic-import': 'silent' },
  });
  copyFileSync(join(benchDir, 'node_modules', 'blake3-wasm', 'esm', 'wasm', 'blake3.wasm'), join(buildDir, 'blake3.wasm'));
  say('browser', `bundled into ${buildDir}`);
}

/** A short fingerprint of what Node measures of blake3-kit in checkout
 * `dir`: dist/node.js, the wasm files and the native addon. Others rebuild
 * the shared checkout (npm test runs the set-up), so runs record it at the
 * start and the end and say so when it changed in between. */
export function buildStamp(dir = repoDir) {
  const hash = createHash('sha256');
  for (const file of ['dist/node.js', 'dist/cli.cjs', 'wasm/blake3-kit-simd.wasm', 'wasm/blake3-kit-scalar.wasm', `native/blake3-kit.${process.platform}-${process.arch}.node`]) {
    const path = join(dir, file);
    hash.update(file).update(existsSync(path) ? readFileSync(path) : 'missing');
  }
  return hash.digest('hex').slice(0, 10);
}
