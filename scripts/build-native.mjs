// Builds the Node addon native/blake3-kit.<platform>-<arch>.node from
// crate/node, and says how to cross-build it (CROSS, used by setup.mjs and
// test.mjs).
//
// Plain `cargo build`: our own TypeScript loader finds and loads the file
// (src/native/addon.ts) and scripts/pack.mjs makes the per-platform packages,
// so @napi-rs/cli (a JS loader, .d.ts and those packages) has nothing to
// add. The blake3 crate compiles its x86 assembly and its NEON code with a C
// compiler, so one must be installed (setup.mjs checks).
//
//   node scripts/build-native.mjs [TRIPLE...]   (default: this machine's; see PLATFORM_BUILDS)
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isMain, main, root, run } from './lib.mjs';
import { MINGW, TOOLS, ZIG } from './platform-tools.mjs';

const MANIFEST = join(root, 'crate', 'Cargo.toml');
// Absolute: cargo resolves a relative --target-dir against its working
// directory, not the manifest.
const TARGET_DIR = join(root, 'crate', 'target');
// [profile.native] in crate/Cargo.toml: release, but panics unwind (napi-rs
// turns them into JS errors) instead of aborting Node.
const PROFILE = 'native';

export const output = join(root, 'native', `blake3-kit.${process.platform}-${process.arch}.node`);
export const outputs = [output];

/**
 * Cross targets the test suite builds for, with what they need: Debian
 * packages (installed by `setup.mjs --test`) and the environment cargo and
 * the cc crate need to link, compile C and run tests (under qemu).
 */
export const CROSS = {
  'aarch64-unknown-linux-gnu': {
    // package -> a file it installs, to tell whether it is there.
    apt: {
      'gcc-aarch64-linux-gnu': '/usr/bin/aarch64-linux-gnu-gcc',
      'libc6-dev-arm64-cross': '/usr/aarch64-linux-gnu/lib/crt1.o',
      // Debian 12's qemu-user has the dynamic qemu-aarch64 (qemu-user-static
      // would be qemu-aarch64-static); -L gives it the cross libc.
      'qemu-user': '/usr/bin/qemu-aarch64',
    },
    env: {
      CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER: 'aarch64-linux-gnu-gcc',
      CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER: 'qemu-aarch64 -L /usr/aarch64-linux-gnu',
      // For blake3's build.rs (the cc crate): NEON C code and its archive.
      CC_aarch64_unknown_linux_gnu: 'aarch64-linux-gnu-gcc',
      AR_aarch64_unknown_linux_gnu: 'aarch64-linux-gnu-ar',
    },
    nm: 'aarch64-linux-gnu-nm',
  },
};

/** `cargo build` arguments for the addon, natively or for a CROSS target. */
export function cargoBuildArgs(target) {
  return [
    'build',
    '--profile',
    PROFILE,
    '-p',
    'blake3-kit-node',
    '--manifest-path',
    MANIFEST,
    '--target-dir',
    TARGET_DIR,
    ...(target ? ['--target', target] : []),
  ];
}

/**
 * The platform packages built by cross-compiling (besides linux-x64-gnu,
 * this machine's, and linux-arm64-gnu, CROSS above), by the test steps
 * musl, windows and macos (scripts/test.mjs) with the tools
 * scripts/platform-tools.mjs installs:
 *
 * - musl with cargo-zigbuild (musl-gcc cannot link here: Debian has no
 *   musl libgcc_s). Without -crt-static, rustc makes no cdylib for musl;
 *   with it the addon needs only musl's libc.so.
 * - win32-x64 with mingw-w64 (MSVC's libraries cannot be had here): napi
 *   is a C ABI, and the DLL imports only system DLLs. napi-build insists on
 *   a libnode.dll to link against, which napi-sys does not need (it finds
 *   napi_* in the host at load): an empty archive of that name satisfies it.
 *   `msvc` in the name is napi-rs's for the official (MSVC-built) node.exe,
 *   the Node it is for, not the compiler.
 * - macOS with cargo-zigbuild, for macOS 11.0 on arm64 (the first for
 *   Apple silicon) and 10.13 on x64 (older than the 10.15 Node 20 needs, so
 *   the addon is never what refuses a Mac): without the variable zig stamps
 *   its own newest. And an install name that does not leak the build path.
 *   rustc warns that `xcrun` is missing: zig brings its own libSystem
 *   stubs, no SDK is needed.
 */
export const PLATFORM_BUILDS = {
  'linux-x64-musl': { target: 'x86_64-unknown-linux-musl', zig: true, rustflags: '-C target-feature=-crt-static', file: 'libblake3_kit_node.so' },
  'linux-arm64-musl': { target: 'aarch64-unknown-linux-musl', zig: true, rustflags: '-C target-feature=-crt-static', file: 'libblake3_kit_node.so' },
  'win32-x64-msvc': {
    target: 'x86_64-pc-windows-gnu',
    env: {
      LIBNODE_PATH: join(TOOLS, 'libnode'),
      CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER: MINGW.cc,
      CC_x86_64_pc_windows_gnu: MINGW.cc,
      AR_x86_64_pc_windows_gnu: MINGW.ar,
    },
    file: 'blake3_kit_node.dll',
  },
  'darwin-arm64': { target: 'aarch64-apple-darwin', zig: true, macos: '11.0', file: 'libblake3_kit_node.dylib' },
  'darwin-x64': { target: 'x86_64-apple-darwin', zig: true, macos: '10.13', file: 'libblake3_kit_node.dylib' },
};

/** Where the addon of a PLATFORM_BUILDS triple is built. */
export const platformOutput = (triple) => join(TARGET_DIR, PLATFORM_BUILDS[triple].target, PROFILE, PLATFORM_BUILDS[triple].file);

/** The cargo command, arguments and environment that build `triple`'s
 * addon (and, for Windows, the libnode.dll stub it needs, made if missing). */
export function platformBuild(triple) {
  const { target, zig, rustflags, macos, env = {} } = PLATFORM_BUILDS[triple];
  if (env.LIBNODE_PATH) libnodeStub(env.LIBNODE_PATH);
  const flags = [rustflags, macos && `-C link-arg=-Wl,-install_name,@rpath/blake3-kit.${triple}.node`].filter(Boolean).join(' ');
  const args = cargoBuildArgs(target);
  return {
    command: 'cargo',
    args: zig ? ['zigbuild', ...args.slice(1)] : args,
    env: {
      ...env,
      ...(zig ? { CARGO_ZIGBUILD_ZIG_PATH: ZIG } : {}),
      ...(macos ? { MACOSX_DEPLOYMENT_TARGET: macos } : {}),
      // Per target, so that no other build's flags change; and nothing
      // from the caller's environment, which would override them.
      [`CARGO_TARGET_${target.toUpperCase().replaceAll('-', '_')}_RUSTFLAGS`]: flags || undefined,
      RUSTFLAGS: undefined,
      CARGO_ENCODED_RUSTFLAGS: undefined,
    },
  };
}

/** Builds `triple`'s addon (PLATFORM_BUILDS); returns its path and size. */
export function buildPlatform(triple) {
  const start = performance.now();
  const { command, args, env } = platformBuild(triple);
  run(command, args, { env });
  const path = platformOutput(triple);
  const { size } = statSync(path);
  const seconds = ((performance.now() - start) / 1000).toFixed(1);
  console.error(`build-native: ${triple}: ${relative(root, path)} ${size} bytes (${seconds}s)`);
  return { path, bytes: size };
}

/** The empty libnode.dll napi-build wants for windows-gnu (see PLATFORM_BUILDS). */
function libnodeStub(dir) {
  if (existsSync(join(dir, 'libnode.dll'))) return;
  mkdirSync(dir, { recursive: true });
  run(MINGW.ar, ['rcs', join(dir, 'libnode.dll')]);
}

/** The shared library cargo writes (its name differs per OS). */
function cargoOutput() {
  const file = { win32: 'blake3_kit_node.dll', darwin: 'libblake3_kit_node.dylib' }[process.platform] ?? 'libblake3_kit_node.so';
  return join(TARGET_DIR, PROFILE, file);
}

export function buildNative() {
  const start = performance.now();
  run('cargo', cargoBuildArgs());
  mkdirSync(join(root, 'native'), { recursive: true });
  // Copied beside the target and renamed over it: a new inode, so a Node
  // process that has the old file mapped keeps running it (writing into a
  // loaded .so in place can crash that process), and a failed copy never
  // leaves a half-written addon.
  const partial = `${output}.${process.pid}.tmp`;
  try {
    copyFileSync(cargoOutput(), partial);
    renameSync(partial, output);
  } finally {
    rmSync(partial, { force: true });
  }
  const { size } = statSync(output);
  const seconds = ((performance.now() - start) / 1000).toFixed(1);
  console.error(`build-native: ${relative(root, output)} ${size} bytes (${seconds}s)`);
  return { path: relative(root, output), bytes: size };
}

if (isMain(import.meta.url)) {
  await main(() => {
    const triples = process.argv.slice(2);
    const unknown = triples.filter((t) => !(t in PLATFORM_BUILDS));
    if (unknown.length) throw new Error(`unknown platform ${unknown.join(', ')}: one of ${Object.keys(PLATFORM_BUILDS).join(', ')}`);
    if (!triples.length) return buildNative();
    for (const triple of triples) buildPlatform(triple);
  });
}
