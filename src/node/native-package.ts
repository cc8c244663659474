// The npm package that carries the native addon for this platform, named the
// way napi-rs names them (npm/<triple>/ in this repository), and listed in
// the main package's optionalDependencies so npm installs only the match.

import { fs } from './builtins.js';

/** This process's napi-rs platform triple: linux-x64-gnu, darwin-arm64,
 * win32-x64-msvc, ... */
export function nativeTriple(): string {
  const { platform, arch } = process;
  if (platform === 'win32') return `${platform}-${arch}-msvc`;
  if (platform !== 'linux') return `${platform}-${arch}`;
  return `${platform}-${arch}-${arch === 'arm' ? 'gnueabihf' : linuxLibc()}`;
}

export const nativePackage = (triple: string) => `blake3-kit-${triple}`;

/**
 * glibc or musl: the libc this process runs on, which the addon must be
 * built for. First from the process's own mappings (0.4 ms here): glibc's
 * libc is libc.so.6 (libc-2.NN.so before 2.34), and a process without it
 * runs on musl (Alpine maps ld-musl-<arch>.so.1; musl's loader run as a
 * command maps libc.so). That is this process's answer, where ldd's script
 * (0.7 ms) is the system's: a musl Node run on a glibc system (PyPI's
 * musllinux Node wheels, as test/node/platforms-musl.test.ts runs them) is
 * told apart only this way. Then ldd, then the process report (4 ms). Where
 * none may be read (Deno without --allow-read), glibc: the common case, and
 * the load that follows says if it was wrong.
 */
function linuxLibc(): 'gnu' | 'musl' {
  try {
    const maps = fs.readFileSync('/proc/self/maps', 'latin1');
    // Lines end in the mapped path; procfs may be mounted without them.
    if (/\/libc(?:\.so\.6|-2\.\d+\.so)$/m.test(maps)) return 'gnu';
    if (/ \/\S/.test(maps)) return 'musl';
  } catch {}
  try {
    return fs.readFileSync('/usr/bin/ldd', 'latin1').includes('musl') ? 'musl' : 'gnu';
  } catch {}
  try {
    const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
    return header !== undefined && header.glibcVersionRuntime === undefined ? 'musl' : 'gnu';
  } catch {
    return 'gnu';
  }
}
