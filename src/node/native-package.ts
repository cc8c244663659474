// The npm package that carries the native addon for this platform, named the
// way napi-rs names them (npm/<triple>/ in this repository), and listed in
// the main package's optionalDependencies so npm installs only the match.

import { readFileSync } from 'node:fs';

/** This process's napi-rs platform triple: linux-x64-gnu, darwin-arm64,
 * win32-x64-msvc, ... */
export function nativeTriple(): string {
  const { platform, arch } = process;
  if (platform === 'win32') return `${platform}-${arch}-msvc`;
  if (platform !== 'linux') return `${platform}-${arch}`;
  return `${platform}-${arch}-${arch === 'arm' ? 'gnueabihf' : linuxLibc()}`;
}

export const nativePackage = (triple: string) => `blake3-kit-${triple}`;

/** glibc or musl. Reading ldd's script takes 0.7 ms here; the process
 * report, the fallback, 4 ms (once per process, in init). Where neither may
 * be read (Deno without --allow-read=/usr/bin), glibc: the common case, and
 * the load that follows says if it was wrong. */
function linuxLibc(): 'gnu' | 'musl' {
  try {
    return readFileSync('/usr/bin/ldd', 'latin1').includes('musl') ? 'musl' : 'gnu';
  } catch {}
  try {
    const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
    return header !== undefined && header.glibcVersionRuntime === undefined ? 'musl' : 'gnu';
  } catch {
    return 'gnu';
  }
}
