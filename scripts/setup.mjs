// Idempotent set-up: installs what the build and tests need, then builds what
// is stale. Runs from the npm `pretest`/`prehash` hooks, so it must be quick
// when there is nothing to do and may only use Node built-ins (node_modules
// may not exist yet).
//
//   node scripts/setup.mjs [--browser | --test]   (what the benchmark / test suite also needs)
import { existsSync, readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { capture, cargoBin, main, newestMtime, oldestMtime, root, run } from './lib.mjs';

const forTests = process.argv.includes('--test');
// --browser: only Chromium (the benchmark); --test: Chromium and b3sum.
const forBrowser = forTests || process.argv.includes('--browser');
// The CLI is tested byte for byte against the official b3sum at this version.
const B3SUM_VERSION = '1.8.7';
const CHROMIUM = '/usr/bin/chromium';
const at = (...p) => join(root, ...p);
// stderr, like the steps it runs (see run() in lib.mjs).
const say = (what, msg) => console.error(`setup: ${what.padEnd(12)} ${msg}`);

function npmDeps() {
  const marker = at('node_modules', '.package-lock.json');
  const lock = at('package-lock.json');
  if (existsSync(marker) && newestMtime([lock, at('package.json')]) <= newestMtime([marker])) {
    return say('npm deps', 'up to date');
  }
  const cmd = existsSync(lock) ? 'ci' : 'install';
  say('npm deps', `npm ${cmd}`);
  run('npm', [cmd, '--no-audit', '--no-fund']);
  // npm leaves the marker untouched when nothing changed, which would make
  // every later run look stale.
  const now = new Date();
  if (existsSync(marker)) utimesSync(marker, now, now);
}

function requireRust() {
  const missing = ['cargo', 'rustup'].filter((tool) => !capture(tool, ['--version'])?.ok);
  if (missing.length) {
    throw new Error(
      `${missing.join(' and ')} not found (looked in PATH and ${cargoBin}).\n` +
        'Install Rust with rustup: https://rustup.rs (curl --proto =https --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y)',
    );
  }
}

function wasmTarget() {
  const target = 'wasm32-unknown-unknown';
  const installed = capture('rustup', ['target', 'list', '--installed']);
  if (installed?.ok && installed.stdout.split('\n').includes(target)) return say('rust target', `${target} installed`);
  say('rust target', `rustup target add ${target}`);
  run('rustup', ['target', 'add', target]);
}

function wasmBindgen() {
  // The CLI must match the wasm-bindgen crate exactly, or it refuses the module.
  const manifest = readFileSync(at('crate', 'Cargo.toml'), 'utf8');
  const want = manifest.match(/^wasm-bindgen\s*=\s*(?:\{[^}\n]*version\s*=\s*)?"=([^"]+)"/m)?.[1];
  if (!want) throw new Error('crate/Cargo.toml: no exact `wasm-bindgen = "=X.Y.Z"` pin found');
  // PATH already includes ~/.cargo/bin (see lib.mjs).
  const have = capture('wasm-bindgen', ['--version'])?.stdout.trim().split(/\s+/)[1];
  if (have === want) return say('wasm-bindgen', `${want} installed`);
  say('wasm-bindgen', `${have ? `have ${have}, ` : ''}cargo install wasm-bindgen-cli --version ${want}`);
  // No --locked: one of the CLI's locked dependencies is missing from the
  // registry reachable here; cargo resolves a compatible one instead.
  // --force: cargo's install record can outlive the binary (a deleted or
  // moved file), and then it would skip the install and leave us without one.
  run('cargo', ['install', 'wasm-bindgen-cli', '--version', want, '--force']);
  const now = capture('wasm-bindgen', ['--version'])?.stdout.trim().split(/\s+/)[1];
  if (now !== want) throw new Error(`cargo installed wasm-bindgen-cli, but \`wasm-bindgen --version\` reports ${now ?? 'nothing'}, not ${want}`);
}

function b3sum() {
  const have = capture('b3sum', ['--version'])?.stdout.trim().split(/\s+/)[1];
  if (have === B3SUM_VERSION) return say('b3sum', `${B3SUM_VERSION} installed`);
  say('b3sum', `cargo install b3sum --version ${B3SUM_VERSION}`);
  run('cargo', ['install', 'b3sum', '--version', B3SUM_VERSION, '--force']);
}

function chromium() {
  if (existsSync(CHROMIUM)) return say('chromium', `${CHROMIUM} present`);
  // Debian's package only: browsers downloaded by other tools are not allowed here.
  // sudo resets the environment, so the variable goes through `env`.
  const apt = ['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'];
  if (process.getuid?.() !== 0) {
    if (!capture('sudo', ['--version'])) {
      throw new Error(`${CHROMIUM} missing, not root and no sudo: as root run \`apt-get install -y chromium\``);
    }
    apt.unshift('sudo');
  }
  say('chromium', 'apt-get install -y chromium');
  run(apt[0], [...apt.slice(1), 'update']);
  run(apt[0], [...apt.slice(1), 'install', '-y', 'chromium']);
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium but ${CHROMIUM} is still missing`);
}

async function wasm() {
  const { buildWasm, outputs } = await import('./build-wasm.mjs');
  const inputs = [
    at('crate', 'wasm', 'src'),
    at('crate', 'Cargo.toml'),
    at('crate', 'wasm', 'Cargo.toml'),
    at('crate', 'Cargo.lock'),
    // A change of flags or steps must rebuild too.
    at('scripts', 'build-wasm.mjs'),
  ];
  if (newestMtime(inputs) <= oldestMtime(outputs)) return say('wasm', 'up to date');
  say('wasm', 'building');
  buildWasm();
}

function typescript() {
  const inputs = [at('src'), at('tsconfig.json'), at('scripts', 'bundle.mjs')];
  if (newestMtime(inputs) <= oldestMtime([at('dist', 'node.js')])) return say('typescript', 'up to date');
  say('typescript', 'npm run build:ts');
  run('npm', ['run', '--silent', 'build:ts']);
}

main(async () => {
  npmDeps();
  requireRust();
  wasmTarget();
  wasmBindgen();
  if (forBrowser) chromium();
  if (forTests) b3sum();
  await wasm();
  typescript();
});
