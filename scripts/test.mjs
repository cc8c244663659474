// The whole test suite (`npm test`, after `pretest` ran setup --test): the
// static checks first (Biome's lint and format check of the TypeScript and
// JavaScript, tsc over the tests, cargo fmt --check, cargo clippy -D
// warnings), then Rust unit
// tests (natively, then the native addon's core for aarch64 under qemu), the
// other platforms' addons (musl natively and under qemu, Windows under Wine,
// macOS checked statically), then
// the JS suite in Node (wasm simd and scalar, native, auto), again on Node
// 24 (simd, native, auto), the shared suite on Node 22 and 26 (wasm-simd
// and native), and the suite
// in Chromium, then in Firefox ESR and WebKitGTK (Safari's engine), each
// against both wasm flavours. Every step runs even if an earlier one failed,
// so one run shows everything that is broken.
//
//   node scripts/test.mjs [--only lint|types|rustfmt|clippy|rust|aarch64|musl|windows|macos|node|nodes|browser|firefox|webkit]...
//
// The last line is always `tests: N passed, M failed[, K skipped]`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { CROSS, cargoBuildArgs, PLATFORM_BUILDS, platformBuild } from './build-native.mjs';
import { FLAVOURS } from './build-wasm.mjs';
import { NEWEST_LTS, NODE_VERSIONS, nodeBinary } from './node-versions.mjs';
import { MINGW, ZIG } from './platform-tools.mjs';
import { root, spawnCollect, table } from './lib.mjs';

const vitestBin = join(root, 'node_modules', '.bin', 'vitest');
const vitestEntry = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const biomeBin = join(root, 'node_modules', '.bin', 'biome');
const tscBin = join(root, 'node_modules', '.bin', 'tsc');
const manifest = join(root, 'crate', 'Cargo.toml');

const AARCH64 = 'aarch64-unknown-linux-gnu';
// The folders whose imports .dependency-cruiser.cjs checks.
const CRUISED = ['src', 'bench', 'scripts', 'test', 'examples'];

const STEPS = {
  // The layers and import cycles of src/ and the packages every folder
  // imports (dependency-cruiser, .dependency-cruiser.cjs), module cycles in
  // crate/ (rust-cycles.mjs), docs that name what is not there (doc-paths.mjs).
  lint: {
    label: 'lint, format (biome), layers, cycles, docs',
    run: () =>
      checks([
        biomeCheck('lint'),
        biomeCheck('format'),
        [join(root, 'node_modules', '.bin', 'depcruise'), [...CRUISED, '--config', join(root, '.dependency-cruiser.cjs'), '--output-type', 'err']],
        [process.execPath, [join(root, 'scripts', 'rust-cycles.mjs')]],
        [process.execPath, [join(root, 'scripts', 'doc-paths.mjs')]],
      ]),
  },
  // The tests as vitest compiles them get no type check: tsc does it here.
  types: { label: 'tsc (tests)', run: () => checks([[tscBin, ['-p', join(root, 'tsconfig.test.json')]]]) },
  rustfmt: { label: 'cargo fmt --check', run: () => checks([['cargo', ['fmt', '--manifest-path', manifest, '--all', '--check']]]) },
  clippy: { label: 'cargo clippy (host, wasm32 x2, 5 platforms)', run: () => checks(clippyRuns()) },
  rust: { label: 'rust (cargo test)', run: () => cargoTest(['--workspace']) },
  aarch64: { label: 'rust aarch64 (qemu)', run: aarch64 },
  // The platform packages cross-built here (PLATFORM_BUILDS in
  // build-native.mjs, with the tools platform-tools.mjs installs): each
  // build counts as a test, then what can run here runs.
  musl: { label: 'linux musl: x64 (musl node), arm64 (qemu)', run: musl },
  windows: { label: 'win32 x64 (wine)', run: windows },
  macos: { label: 'darwin x64, arm64 (static checks)', run: macos },
  node: {
    label: 'node (wasm simd, scalar; native; auto)',
    // After the aarch64 step the arm64 addon is built: its test must run, not skip.
    run: () =>
      vitest('node', ['node-simd', 'node-scalar', 'node-native', 'node-auto'], selected.includes('aarch64') ? { BLAKE3_KIT_REQUIRE_ARM64: '1' } : {}),
  },
  // The other Node releases users run (one vitest per release, under that
  // release's binary): the newest LTS the whole Node suite on wasm-simd,
  // native and auto (678 s on 2 loaded cores), the others the shared suite
  // on wasm-simd and native.
  nodes: {
    label: `node ${NODE_VERSIONS.map((v) => `${v.split('.')[0]}${v === NEWEST_LTS ? ' (all)' : ''}`).join(', ')} (shared: simd, native)`,
    run: () =>
      sumOf(
        NODE_VERSIONS.map((version) =>
          version === NEWEST_LTS
            ? () => vitest(`node-${version}`, ['node-simd', 'node-native', 'node-auto'], {}, { node: nodeBinary(version) })
            : () => vitest(`node-${version}`, ['node-simd', 'node-native'], {}, { node: nodeBinary(version), files: ['test/shared'] }),
        ),
      ),
  },
  browser: { label: 'chromium (simd, scalar)', run: () => vitest('browser', ['chromium-simd', 'chromium-scalar']) },
  // Through WebDriver on drivers the projects start and stop themselves
  // (scripts/webdriver.mjs); WebKit on its own Xvfb display.
  firefox: { label: 'firefox esr (simd, scalar)', run: () => vitest('firefox', ['firefox-simd', 'firefox-scalar']) },
  webkit: { label: 'webkitgtk (simd, scalar)', run: () => vitest('webkit', ['webkit-simd', 'webkit-scalar']) },
};

// Static checks: each command is one test, passed when it exits 0.
async function checks(commands) {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  let error;
  for (const [cmd, args, env] of commands) {
    console.log(`$ ${[cmd, ...args].join(' ')}`);
    const r = await spawnCollect(cmd, args, { env, collect: false });
    counts[r.code === 0 ? 'passed' : 'failed']++;
    error ??= r.error;
  }
  return { ok: counts.failed === 0, ...counts, error };
}

// Every diagnostic rather than Biome's first 20: one run shows everything.
const biomeCheck = (command) => [biomeBin, [command, '--max-diagnostics=none']];

/**
 * Clippy over the host workspace (every target: libs, tests, examples), then
 * the wasm crate's library as scripts/build-wasm.mjs builds it, in each
 * flavour: the simd128 kernel is compiled only there. Tests and examples of
 * the wasm crate are host-only (they need std). Each flavour checks in the
 * target dir its build uses, with the same RUSTFLAGS, so it reuses that
 * build's dependencies instead of evicting them.
 */
function clippyRuns() {
  const deny = ['--', '-D', 'warnings'];
  const host = ['cargo', ['clippy', '--manifest-path', manifest, '--workspace', '--all-targets', ...deny]];
  const wasm = Object.entries(FLAVOURS).map(([flavour, { cargoArgs, rustflags }]) => [
    'cargo',
    ['clippy', '--manifest-path', manifest, '--target', 'wasm32-unknown-unknown', '-p', 'blake3-kit-wasm', '--lib', ...cargoArgs, ...deny],
    { RUSTFLAGS: rustflags, CARGO_ENCODED_RUSTFLAGS: undefined, CARGO_TARGET_DIR: join(root, 'crate', 'target', flavour) },
  ]);
  return [host, ...wasm, ...platformClippyRuns(deny)];
}

/**
 * The addon's two crates for each cross-built platform (PLATFORM_BUILDS),
 * their libraries only (the tests are Unix programs, checked on the host),
 * with the tools and settings of its build: blake3's build script compiles
 * C for the target even to check. Left out, with a note, where the tools
 * are not installed (`setup.mjs --test` installs them).
 */
function platformClippyRuns(deny) {
  const tools = existsSync(ZIG) && existsSync(`/usr/bin/${MINGW.cc}`);
  if (!tools) {
    console.log(`clippy: not for ${Object.keys(PLATFORM_BUILDS).join(', ')}: zig or mingw-w64 missing (run \`node scripts/setup.mjs --test\`)`);
    return [];
  }
  return Object.entries(PLATFORM_BUILDS).map(([triple, { target, zig }]) => {
    const { env } = platformBuild(triple);
    const args = ['clippy', '--manifest-path', manifest, '-p', 'blake3-kit-native', '-p', 'blake3-kit-node', '--lib', '--target', target, ...deny];
    return [zig ? 'cargo-zigbuild' : 'cargo', args, env];
  });
}

async function cargoTest(select, env = {}, program = 'cargo') {
  // --no-fail-fast: a failing test binary would otherwise hide the others' results.
  const args = ['test', '--manifest-path', join(root, 'crate', 'Cargo.toml'), ...select, '--no-fail-fast'];
  // Output is piped to be counted; keep cargo's colours when we're on a terminal.
  if (process.stdout.isTTY) env = { CARGO_TERM_COLOR: 'always', ...env };
  const r = await spawnCollect(program, args, { env });
  const counts = { passed: 0, failed: 0, skipped: 0 };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the colour codes removed here.
  const plain = r.stdout.replace(/\x1b\[[0-9;]*m/g, '');
  for (const m of plain.matchAll(/test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/g)) {
    counts.passed += Number(m[1]);
    counts.failed += Number(m[2]);
    counts.skipped += Number(m[3]);
  }
  return { ok: r.code === 0, ...counts, error: r.error };
}

/**
 * The addon's core cross-compiled for aarch64 and its tests run under qemu
 * (the blake3 crate's NEON kernel, which x86 never runs), plus two checks
 * counted as one test each: the NEON kernel is linked into those tests, and
 * the addon itself links for aarch64.
 */
async function aarch64() {
  const { env, nm } = CROSS[AARCH64];
  const tests = await cargoTest(['-p', 'blake3-kit-native', '--target', AARCH64], env);
  const neon = neonLinked(nm);
  console.log(`\naarch64: upstream's NEON kernel linked into the tests: ${neon ? 'yes' : 'NO'}\n`);
  const build = await spawnCollect('cargo', cargoBuildArgs(AARCH64), { env, collect: false });
  const addon = build.code === 0;
  console.log(`\naarch64: the addon links for ${AARCH64}: ${addon ? 'yes' : 'NO'}`);
  const checks = [neon, addon].filter(Boolean).length;
  return {
    ...tests,
    ok: tests.ok && checks === 2,
    passed: tests.passed + checks,
    failed: tests.failed + 2 - checks,
    error: tests.error ?? build.error,
  };
}

/**
 * Whether the newest aarch64 build of tests/modes.rs contains upstream's NEON
 * kernel. blake3's build.rs compiles c/blake3_neon.c only when it targets
 * little-endian aarch64 with a working C compiler, and then always uses it:
 * a missing symbol means the portable code was tested instead.
 */
function neonLinked(nm) {
  const deps = join(root, 'crate', 'target', AARCH64, 'debug', 'deps');
  let binaries = [];
  try {
    // The test executable: modes-<hash>, no extension.
    binaries = readdirSync(deps)
      .filter((f) => /^modes-[0-9a-f]{16}$/.test(f))
      .map((f) => join(deps, f));
  } catch {
    return false;
  }
  const newest = binaries.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  if (!newest) return false;
  // Defined, not merely referenced. A test binary's symbol list runs to
  // megabytes: more than spawnSync's default buffer.
  const r = spawnSync(nm, ['--defined-only', newest], { encoding: 'utf8', maxBuffer: 1 << 28 });
  return r.status === 0 && /\bT blake3_hash_many_neon$/m.test(r.stdout);
}

/** Builds the addons of `triples` (PLATFORM_BUILDS), one test each. */
async function buildPlatforms(triples) {
  const sum = { ok: true, passed: 0, failed: 0, skipped: 0, error: undefined, failures: [] };
  for (const triple of triples) {
    const { command, args, env } = platformBuild(triple);
    const start = performance.now();
    const r = await spawnCollect(command, args, { env, collect: false });
    const seconds = ((performance.now() - start) / 1000).toFixed(1);
    console.log(`\n${triple}: the addon ${r.code === 0 ? 'builds' : 'does NOT build'} (${seconds}s)\n`);
    sum[r.code === 0 ? 'passed' : 'failed']++;
    if (r.code !== 0) sum.failures.push(`${triple}: the addon does not build`);
    sum.ok &&= r.code === 0;
    sum.error ??= r.error;
  }
  return sum;
}

/** The core's tests built with zig for the musl `triple`, run natively or
 * under qemu (zig links musl test programs statically, so no musl loader
 * is needed): the SIGBUS guard and file reads on musl's libc. */
function muslCargoTest(triple) {
  const { target } = PLATFORM_BUILDS[triple];
  const { env } = platformBuild(triple);
  const runner = target.startsWith('aarch64') ? { [`CARGO_TARGET_${target.toUpperCase().replaceAll('-', '_')}_RUNNER`]: 'qemu-aarch64' } : {};
  return cargoTest(['-p', 'blake3-kit-native', '--target', target], { ...env, ...runner }, 'cargo-zigbuild');
}

/** Both musl addons built; the core's tests on musl (x64 natively, arm64
 * under qemu); the packages installed and run by musl Nodes
 * (test/node/platforms-musl.test.ts). */
async function musl() {
  const triples = ['linux-x64-musl', 'linux-arm64-musl'];
  return sumOf([
    () => buildPlatforms(triples),
    ...triples.map((triple) => () => muslCargoTest(triple)),
    () => vitest('musl', ['node-simd'], { BLAKE3_KIT_PLATFORM_TESTS: 'musl' }, { files: ['test/node/platforms-musl.test.ts'] }),
  ]);
}

/** The Windows addon built with mingw-w64 and run by Windows Node under
 * Wine (test/node/wine.test.ts). */
function windows() {
  return sumOf([
    () => buildPlatforms(['win32-x64-msvc']),
    () => vitest('windows', ['node-simd'], { BLAKE3_KIT_PLATFORM_TESTS: 'windows' }, { files: ['test/node/wine.test.ts'] }),
  ]);
}

/** Both macOS addons built and checked as files (test/node/platforms.test.ts):
 * nothing here can run them. */
function macos() {
  return sumOf([
    () => buildPlatforms(['darwin-arm64', 'darwin-x64']),
    () => vitest('macos', ['node-simd'], { BLAKE3_KIT_PLATFORM_TESTS: 'macos' }, { files: ['test/node/platforms.test.ts'] }),
  ]);
}

/** `runs` one after another, their counts added up. */
async function sumOf(runs) {
  const sum = { ok: true, passed: 0, failed: 0, skipped: 0, error: undefined, failures: [] };
  for (const run of runs) {
    const r = await run();
    sum.ok &&= r.ok;
    sum.passed += r.passed;
    sum.failed += r.failed;
    sum.skipped += r.skipped;
    sum.error ??= r.error;
    sum.failures.push(...(r.failures ?? []));
  }
  return sum;
}

/** vitest over `projects`; with `node`, under that Node binary (it and the
 * processes it starts: first on PATH), and with `files`, only those. */
async function vitest(name, projects, env = {}, { node, files = [] } = {}) {
  // Our local vitest rather than `npx vitest`, which would download one if missing.
  const report = join(tmp, `${name}.json`);
  const args = [
    'run',
    ...projects.flatMap((p) => ['--project', p]),
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...files,
  ];
  if (node !== undefined) env = { ...env, PATH: `${dirname(node)}:${process.env.PATH}` };
  // Counts come from the JSON report, so vitest keeps the terminal to itself.
  const r = await spawnCollect(node ?? vitestBin, node === undefined ? args : [vitestEntry, ...args], { collect: false, env });
  let json = {};
  try {
    json = JSON.parse(readFileSync(report, 'utf8'));
  } catch {
    // No report (vitest failed before running anything): the exit code says it failed.
  }
  return {
    ok: r.code === 0,
    passed: json.numPassedTests ?? 0,
    failed: json.numFailedTests ?? 0,
    skipped: (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0),
    error: r.error,
    failures: failuresOf(json),
  };
}

/** Each failed test as `file > name: first line of its error`, for the summary at the end. */
function failuresOf(json) {
  const failures = [];
  for (const file of json.testResults ?? []) {
    const path = relative(root, file.name ?? '');
    for (const t of file.assertionResults ?? []) {
      if (t.status !== 'failed') continue;
      const message = String(t.failureMessages?.[0] ?? '')
        .split('\n')[0]
        .slice(0, 300);
      failures.push(`${path} > ${t.fullName ?? t.title}: ${message}`);
    }
    // A file that failed to load has no assertions, only a message.
    if (file.status === 'failed' && !(file.assertionResults ?? []).length) {
      failures.push(
        `${path}: ${String(file.message ?? '')
          .split('\n')[0]
          .slice(0, 300)}`,
      );
    }
  }
  return failures;
}

function parseOnly(argv) {
  const only = [];
  for (let i = 0; i < argv.length; i++) {
    const value = argv[i] === '--only' ? argv[++i] : argv[i].startsWith('--only=') ? argv[i].slice(7) : undefined;
    if (value === undefined || !(value in STEPS)) {
      console.error(`usage: test.mjs [--only ${Object.keys(STEPS).join('|')}]...`);
      process.exit(2);
    }
    only.push(value);
  }
  return only.length ? Object.keys(STEPS).filter((s) => only.includes(s)) : Object.keys(STEPS);
}

const selected = parseOnly(process.argv.slice(2));
const tmp = mkdtempSync(join(tmpdir(), 'blake3-kit-test-'));
const results = [];
try {
  for (const name of selected) {
    const step = STEPS[name];
    console.log(`\n=== ${step.label} ===\n`);
    const start = performance.now();
    const result = await step.run();
    if (result.error) console.error(`test: ${step.label}: ${result.error.message}`);
    results.push({ ...step, ...result, seconds: (performance.now() - start) / 1000 });
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

const total = (key) => results.reduce((sum, r) => sum + r[key], 0);
const passed = total('passed');
const failed = total('failed');
const skipped = total('skipped');

console.log(
  `\n${table([
    ['step', 'status', 'passed', 'failed', 'skipped', 'time'],
    ...results.map((r) => [r.label, r.ok ? 'ok' : 'FAILED', r.passed, r.failed, r.skipped, `${r.seconds.toFixed(1)}s`]),
  ])}\n`,
);
// Last, so that a log's tail names what failed.
const failures = results.flatMap((r) => (r.failures ?? []).map((f) => `${r.label}: ${f}`));
if (failures.length) console.log(`failed tests:\n${failures.map((f) => `  ${f}`).join('\n')}\n`);
if (passed === 0) console.log('no test ran: counting that as a failure');
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exitCode = results.every((r) => r.ok) && failed === 0 && passed > 0 ? 0 : 1;
