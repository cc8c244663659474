// Debian's arm64 Node, run under qemu-user: how the tests load the
// linux-arm64-gnu addon on this x86-64 machine. Its .deb files are unpacked
// into a folder (not installed: they would replace the x86-64 node), which
// qemu then treats as the root for every absolute path the program opens.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { capture, root, run } from './lib.mjs';

export const ARM64_ROOT = join(root, 'crate', 'target', 'arm64-node');
const NODE = join(ARM64_ROOT, 'usr', 'bin', 'node');

// nodejs and what libnode108 depends on (`dpkg -I`), in Debian 12.
const PACKAGES = [
  'nodejs:arm64',
  'libnode108:arm64',
  'libbrotli1:arm64',
  'libc-ares2:arm64',
  'libicu72:arm64',
  'libnghttp2-14:arm64',
  'libssl3:arm64',
  'libuv1:arm64',
  'zlib1g:arm64',
  // Node's builtins that Debian keeps outside the binary.
  'node-acorn',
  'node-cjs-module-lexer',
  'node-undici',
];

/** Unpacks arm64 Node into ARM64_ROOT unless it is there. `apt` is the
 * apt-get command (with sudo if needed); the libc comes from the cross
 * toolchain (libc6-dev-arm64-cross) installed before this. */
export function installArm64Node(apt, say) {
  if (existsSync(NODE)) return say('arm64 node', `present in ${ARM64_ROOT}`);
  const dpkg = apt[0] === 'sudo' ? ['sudo', 'dpkg'] : ['dpkg'];
  if (!capture(dpkg.at(-1), ['--print-foreign-architectures'])?.stdout.split('\n').includes('arm64')) {
    say('arm64 node', 'dpkg --add-architecture arm64');
    run(dpkg[0], [...dpkg.slice(1), '--add-architecture', 'arm64']);
  }
  run(apt[0], [...apt.slice(1), 'update']);
  const debs = mkdtempSync(join(tmpdir(), 'arm64-node-'));
  mkdirSync(ARM64_ROOT, { recursive: true }); // dpkg -x makes the folder, not its parents
  try {
    say('arm64 node', `apt-get download ${PACKAGES.join(' ')}`);
    run(apt[0], [...apt.slice(1), 'download', ...PACKAGES], { cwd: debs });
    for (const deb of readdirSync(debs).filter((file) => file.endsWith('.deb'))) run('dpkg', ['-x', join(debs, deb), ARM64_ROOT]);
    cpSync('/usr/aarch64-linux-gnu/lib', join(ARM64_ROOT, 'lib'), { recursive: true });
  } finally {
    rmSync(debs, { recursive: true, force: true });
  }
  if (!existsSync(NODE)) throw new Error(`unpacked arm64 node, but ${NODE} is missing`);
}

/** The command and arguments that run `args` with arm64 Node, or undefined
 * if it is not installed. */
export function arm64Node(args) {
  if (!existsSync(NODE)) return undefined;
  const libs = ['/usr/lib/aarch64-linux-gnu', '/lib/aarch64-linux-gnu'].join(':');
  return ['qemu-aarch64', ['-L', ARM64_ROOT, '-E', `LD_LIBRARY_PATH=${libs}`, NODE, ...args]];
}
