// Idempotent set-up: installs what the build and tests need, then builds what
// is stale. Runs from the npm `pretest`/`prehash` hooks, so it must be quick
// when there is nothing to do and may only use Node built-ins (node_modules
// may not exist yet).
//
//   node scripts/setup.mjs [--browser | --test]   (what the benchmark / test suite also needs)
//
// BLAKE3_KIT_NO_NATIVE=1 skips the native addon (the wasm backend is used).
import { existsSync, readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { installArm64Node } from './arm64-node.mjs';
import { installPlatformTools } from './platform-tools.mjs';
import { installNodeVersions } from './node-versions.mjs';
import { FIREFOX_PATH, GECKODRIVER_PATH, GECKODRIVER_VERSION, MINIBROWSER_PATH, WEBKIT_DRIVER_PATH, XVFB_PATH } from './browsers.mjs';
import { CROSS, PLATFORM_BUILDS, buildNative, outputs as nativeOutputs } from './build-native.mjs';
import { capture, cargoBin, main, newestMtime, oldestMtime, root, run } from './lib.mjs';

const forTests = process.argv.includes('--test');
// --browser: only Chromium (the benchmark); --test: Chromium, Firefox ESR and
// WebKitGTK with their WebDriver drivers, b3sum and the cross toolchains the
// aarch64 tests need.
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

function rustTarget(target) {
  const installed = capture('rustup', ['target', 'list', '--installed']);
  if (installed?.ok && installed.stdout.split('\n').includes(target)) return say('rust target', `${target} installed`);
  say('rust target', `rustup target add ${target}`);
  run('rustup', ['target', 'add', target]);
}

/** rustup components (rustfmt, clippy: the test run's static checks). */
function rustComponents(names) {
  const installed = capture('rustup', ['component', 'list', '--installed'])?.stdout.split('\n') ?? [];
  // Listed with the host triple appended: `clippy-x86_64-unknown-linux-gnu`.
  const missing = names.filter((name) => !installed.some((line) => line.startsWith(`${name}-`)));
  if (!missing.length) return say('rust tools', `${names.join(', ')} installed`);
  say('rust tools', `rustup component add ${missing.join(' ')}`);
  run('rustup', ['component', 'add', ...missing]);
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

let aptUpdated = false;

/**
 * `apt-get install` those of `packages` (name -> a file it installs) whose
 * file is missing: Debian's packages only, since tools that download their
 * own browsers or toolchains are not allowed here. One `apt-get update` per
 * run, and none when nothing is missing.
 */
function aptInstall(what, packages, { recommends = true } = {}) {
  const missing = Object.entries(packages)
    .filter(([, file]) => !existsSync(file))
    .map(([name]) => name);
  if (!missing.length) return say(what, `${Object.keys(packages).join(', ')} present`);
  const apt = aptCommand(`apt-get install -y ${missing.join(' ')}`);
  say(what, `apt-get install -y ${missing.join(' ')}`);
  if (!aptUpdated) run(apt[0], [...apt.slice(1), 'update']);
  aptUpdated = true;
  run(apt[0], [...apt.slice(1), 'install', '-y', ...(recommends ? [] : ['--no-install-recommends']), ...missing]);
  const still = missing.filter((name) => !existsSync(packages[name]));
  if (still.length) throw new Error(`apt-get installed ${still.join(', ')} but ${still.map((n) => packages[n]).join(', ')} still missing`);
}

/** apt-get, through sudo when not root; `task` is what to tell a user to
 * run as root when there is no sudo. */
function aptCommand(task) {
  // sudo resets the environment, so the variable goes through `env`.
  const apt = ['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'];
  if (process.getuid?.() === 0) return apt;
  if (!capture('sudo', ['--version'])) throw new Error(`not root and no sudo: as root run \`${task}\``);
  return ['sudo', ...apt];
}

function chromium() {
  aptInstall('chromium', { chromium: CHROMIUM });
}

/** Firefox ESR and WebKitGTK for the test suite (scripts/browsers.mjs). */
function webdriverBrowsers() {
  aptInstall('firefox', { 'firefox-esr': FIREFOX_PATH });
  // webkit2gtk-driver pulls in the WebKitGTK library that holds MiniBrowser.
  aptInstall('webkit', { 'webkit2gtk-driver': WEBKIT_DRIVER_PATH, xvfb: XVFB_PATH });
  if (!existsSync(MINIBROWSER_PATH)) throw new Error(`webkit2gtk-driver is installed but ${MINIBROWSER_PATH} is missing`);
  geckodriver();
}

/** Firefox's WebDriver driver: not in Debian, built from crates.io. */
function geckodriver() {
  const have = capture(GECKODRIVER_PATH, ['--version'])?.stdout.match(/^geckodriver (\S+)/)?.[1];
  if (have === GECKODRIVER_VERSION) return say('geckodriver', `${GECKODRIVER_VERSION} installed`);
  say('geckodriver', `${have ? `have ${have}, ` : ''}cargo install geckodriver --version ${GECKODRIVER_VERSION} --locked`);
  // --force: as for b3sum, cargo's install record can outlive the binary.
  run('cargo', ['install', 'geckodriver', '--version', GECKODRIVER_VERSION, '--locked', '--force']);
}

/** What the cross-built tests need (scripts/test.mjs, step aarch64). */
function crossToolchains() {
  for (const [target, { apt }] of Object.entries(CROSS)) {
    rustTarget(target);
    aptInstall(target.split('-')[0], apt);
  }
  installArm64Node(aptCommand('dpkg --add-architecture arm64 && apt-get update'), say);
}

/**
 * What the musl, Windows and macOS test steps need (scripts/platform-tools.mjs):
 * zig and cargo-zigbuild, mingw-w64, Wine, a musl and a Windows Node.
 * Without recommends: Wine's would add fonts, GStreamer and Mesa.
 */
function platformTools() {
  installPlatformTools({
    targets: Object.values(PLATFORM_BUILDS).map((build) => build.target),
    aptInstall: (what, packages) => aptInstall(what, packages, { recommends: false }),
    rustTarget,
    say,
  });
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

/** The C compiler the cc crate will use for blake3's assembly, if any. */
function cCompiler() {
  const candidates = process.env.CC ? [process.env.CC] : ['cc', 'gcc'];
  return candidates.find((cc) => {
    const [cmd, ...args] = cc.trim().split(/\s+/); // CC may be e.g. "ccache gcc"
    return capture(cmd, [...args, '--version'])?.ok;
  });
}

function native() {
  // An optional backend: without a toolchain the package still works (wasm),
  // so a missing tool is a message, not a failure. A failing build is a bug.
  const skip = (why) => say('native addon', `skipped: ${why}; the wasm backend is used`);
  if (process.env.BLAKE3_KIT_NO_NATIVE === '1') return skip('BLAKE3_KIT_NO_NATIVE=1');
  if (!capture('cargo', ['--version'])?.ok) return skip('cargo not found');
  if (!cCompiler()) return skip('no C compiler (cc or gcc; the blake3 crate needs one)');
  const inputs = [
    at('crate', 'native', 'src'),
    at('crate', 'native', 'Cargo.toml'),
    at('crate', 'node', 'src'),
    at('crate', 'node', 'Cargo.toml'),
    at('crate', 'node', 'build.rs'),
    at('crate', 'Cargo.toml'),
    at('crate', 'Cargo.lock'),
    at('scripts', 'build-native.mjs'),
  ];
  if (newestMtime(inputs) <= oldestMtime(nativeOutputs)) return say('native addon', 'up to date');
  say('native addon', 'building');
  buildNative();
}

function typescript() {
  // dist/inline.js embeds the wasm files, so they are inputs too.
  const inputs = [
    at('src'),
    at('tsconfig.json'),
    at('scripts', 'bundle.mjs'),
    at('wasm', 'blake3-kit-simd.wasm'),
    at('wasm', 'blake3-kit-scalar.wasm'),
  ];
  const outputs = [
    'node.js',
    'browser.js',
    'inline.js',
    'workerd.js',
    'edge-light.js',
    'bao-node.js',
    'bao-browser.js',
    'bao-workerd.js',
    'bao-edge-light.js',
  ].map((file) => at('dist', file));
  if (newestMtime(inputs) <= oldestMtime(outputs)) return say('typescript', 'up to date');
  say('typescript', 'npm run build:ts');
  run('npm', ['run', '--silent', 'build:ts']);
}

await main(async () => {
  npmDeps();
  requireRust();
  rustTarget('wasm32-unknown-unknown');
  rustComponents(['rustfmt', 'clippy']);
  wasmBindgen();
  if (forBrowser) chromium();
  if (forTests) webdriverBrowsers();
  if (forTests) b3sum();
  if (forTests) crossToolchains();
  if (forTests) platformTools();
  if (forTests) installNodeVersions(say);
  await wasm();
  native();
  typescript();
});
