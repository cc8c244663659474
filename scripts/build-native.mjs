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
//   node scripts/build-native.mjs
import { copyFileSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isMain, main, root, run } from './lib.mjs';

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

if (isMain(import.meta.url)) await main(buildNative);
