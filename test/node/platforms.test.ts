// The platform packages as npm sees them (each npm/<triple>/package.json:
// the os, cpu and libc npm installs it for, the file the loader requires),
// and the macOS addons checked as files, since nothing here can run them:
// installed from their tarballs into a fresh project, each is a dylib for
// its CPU that exports napi_register_module_v1, imports no napi_* symbol
// (napi-sys finds them in the host at load) and nothing but libSystem's,
// names the oldest macOS it supports, links the crate's SIMD kernels, and
// on arm64 carries an ad-hoc signature whose every page hash recomputes
// (Apple silicon refuses a dylib without a valid one). The macOS checks run
// in `node scripts/test.mjs --only macos`, which builds both addons first.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
// @ts-expect-error: a plain .mjs module without types
import { PLATFORMS, packMain, packPlatform } from '../../scripts/pack.mjs';
import { checkCodeSignature, parseMachO } from './macho.js';
import { consumerProject, root } from './packed.js';
import { platformStep } from './platform-runs.js';

const manifest = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

/** What npm must match for each triple (napi-rs's names, Node's values). */
const TARGETS: Record<string, { os: string; cpu: string; libc?: string }> = {
  'linux-x64-gnu': { os: 'linux', cpu: 'x64', libc: 'glibc' },
  'linux-arm64-gnu': { os: 'linux', cpu: 'arm64', libc: 'glibc' },
  'linux-x64-musl': { os: 'linux', cpu: 'x64', libc: 'musl' },
  'linux-arm64-musl': { os: 'linux', cpu: 'arm64', libc: 'musl' },
  'win32-x64-msvc': { os: 'win32', cpu: 'x64' },
  'darwin-arm64': { os: 'darwin', cpu: 'arm64' },
  'darwin-x64': { os: 'darwin', cpu: 'x64' },
};

describe.runIf(inject('backend') === 'wasm-simd')('the platform packages', () => {
  it('are the seven this machine builds, each packed by scripts/pack.mjs', () => {
    expect(readdirSync(join(root, 'npm')).sort()).toEqual(Object.keys(TARGETS).sort());
    expect(Object.keys(PLATFORMS as Record<string, unknown>).sort()).toEqual(Object.keys(TARGETS).sort());
  });

  it('each installs only where its addon runs, and names the addon as main', () => {
    const { version } = manifest(join(root, 'package.json'));
    for (const [triple, { os, cpu, libc }] of Object.entries(TARGETS)) {
      const pkg = manifest(join(root, 'npm', triple, 'package.json'));
      const file = `blake3-kit.${triple}.node`;
      expect(pkg, triple).toMatchObject({ name: `blake3-kit-${triple}`, version, os: [os], cpu: [cpu], main: file });
      expect(pkg.libc, triple).toEqual(libc === undefined ? undefined : [libc]);
      expect(pkg.files, triple).toEqual([file, 'LICENSE-MIT', 'LICENSE-APACHE']);
    }
  });
});

/** Where each macOS addon's checks differ. */
const MACOS = {
  'darwin-arm64': { cpu: 'arm64', minimum: '11.0.0', kernels: ['_blake3_hash_many_neon'] },
  'darwin-x64': {
    cpu: 'x64',
    minimum: '10.13.0',
    kernels: ['_blake3_hash_many_avx512', '_blake3_hash_many_avx2', '_blake3_hash_many_sse41', '_blake3_hash_many_sse2'],
  },
} as const;

describe.runIf(platformStep === 'macos' && inject('backend') === 'wasm-simd')('the macOS addons, checked as files', () => {
  let dir: string;
  const installed: Record<string, Buffer> = {};
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'blake3-kit-macos-'));
    const main = packMain(dir);
    const tarballs = Object.keys(MACOS).map((triple) => {
      const packed = packPlatform(triple, dir) as { tarball?: string; missing?: string };
      if (packed.tarball === undefined) throw new Error(`cannot check blake3-kit-${triple}: ${packed.missing}`);
      return packed.tarball;
    });
    // npm refuses another OS's package unless forced.
    const project = consumerProject(dir, 'macos', [main, ...tarballs], { force: true });
    for (const triple of Object.keys(MACOS)) {
      const pkg = join(project, 'node_modules', `blake3-kit-${triple}`);
      installed[triple] = readFileSync(join(pkg, manifest(join(pkg, 'package.json')).main as string));
    }
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const [triple, { cpu, minimum, kernels }] of Object.entries(MACOS)) {
    it(`${triple}: a dylib for ${cpu} and macOS ${minimum}, Node-API's entry exported, only libSystem imported`, () => {
      const macho = parseMachO(installed[triple]!);
      expect(macho).toMatchObject({ cpu, fileType: 6 /* MH_DYLIB */, minimumMacos: minimum, id: `@rpath/blake3-kit.${triple}.node` });
      expect(macho.exports).toContain('_napi_register_module_v1');
      expect(macho.imports.filter((s) => s.name.startsWith('_napi_'))).toEqual([]);
      expect(macho.imports.length).toBeGreaterThan(10);
      expect(macho.imports.filter((s) => s.dylib !== '/usr/lib/libSystem.B.dylib')).toEqual([]);
      // Rust's std links libiconv too; all three are in every macOS.
      expect(
        macho.dylibs.filter((d) => !['/usr/lib/libSystem.B.dylib', '/usr/lib/libiconv.2.dylib', '/usr/lib/libcharset.1.dylib'].includes(d)),
      ).toEqual([]);
      for (const kernel of kernels) expect(macho.defined, kernel).toContain(kernel);
    });
  }

  it('darwin-arm64: its ad-hoc signature covers the whole file and every page hash recomputes; one changed byte fails', () => {
    const bytes = installed['darwin-arm64']!;
    const macho = parseMachO(bytes);
    const signature = checkCodeSignature(bytes, macho);
    expect(signature).toMatchObject({ adhoc: true, badPages: [], codeLimit: macho.signature!.offset });
    expect(signature.pages).toBe(Math.ceil(signature.codeLimit / signature.pageSize));
    // The check can fail: a byte changed after linking, as an edit that
    // skipped re-signing would.
    const edited = Buffer.from(bytes);
    edited[signature.pageSize * 3 + 100]! ^= 1;
    expect(checkCodeSignature(edited, macho).badPages).toEqual([3]);
  });
});
