// The install rows of the consumer matrix: the tarballs as published
// (scripts/pack.mjs) installed into fresh projects, with the platform
// package, without it and with a broken one, from ESM and from CommonJS.
// Each row checks digests against @noble/hashes and which backend ran.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { compatExpected, compatProbe, consumerProject, type Packed, packAll } from './packed.js';

const TRIPLE = 'linux-x64-gnu';
const PACKAGE = `blake3-kit-${TRIPLE}`;
const here = process.platform === 'linux' && process.arch === 'x64';

// What every row prints: the backend, nativeStatus(), and digests of inputs
// on both sides of the native threshold, in all three modes.
const PROBE = `const big = new Uint8Array(1 << 20).map((_, i) => i % 251);
const key = new Uint8Array(32).fill(7);
const report = (b3, api, bao) => {
  const { error, ...status } = b3.nativeStatus();
  console.log(JSON.stringify({
    backend: api.backend,
    status: { ...status, error: error?.message, cause: error?.cause?.message },
    abc: b3.toHex(api.hash('abc')),
    big: b3.toHex(api.hash(big)),
    keyed: b3.toHex(api.keyedHash(key, big)),
    derived: b3.toHex(api.deriveKey('blake3-kit install test', big, { length: 131 })),
    bao: b3.toHex(bao.baoEncode(big).hash),
    many: b3.toHex(bao.hashMany([big, key])),
  }));
};`;
// Both entries: the hashing one's init() serves the bao one's functions.
const ESM = `import * as b3 from 'blake3-kit';\nimport * as bao from 'blake3-kit/bao';\n${PROBE}\nreport(b3, await b3.init(), bao);\n`;
const CJS = `const b3 = require('blake3-kit');\nconst bao = require('blake3-kit/bao');\n${PROBE}\nb3.init().then((api) => report(b3, api, bao));\n`;

const big = new Uint8Array(1 << 20).map((_, i) => i % 251);
const expected = {
  abc: bytesToHex(blake3(new TextEncoder().encode('abc'))),
  big: bytesToHex(blake3(big)),
  keyed: bytesToHex(blake3(big, { key: new Uint8Array(32).fill(7) })),
  derived: bytesToHex(blake3(big, { context: new TextEncoder().encode('blake3-kit install test'), dkLen: 131 })),
  bao: bytesToHex(blake3(big)),
  many: bytesToHex(blake3(big)) + bytesToHex(blake3(new Uint8Array(32).fill(7))),
};

interface Report {
  backend: string;
  status: { loaded: boolean; path?: string; cpuFeatures?: string; error?: string; cause?: string };
}

/** Runs both probes in `project`; checks the digests, returns the reports. */
function probe(project: string, env: Record<string, string> = {}): Report[] {
  writeFileSync(join(project, 'probe.mjs'), ESM);
  writeFileSync(join(project, 'probe.cjs'), CJS);
  // The test projects force a backend; a user's process has no such variable.
  const clean = { ...process.env, BLAKE3_KIT_BACKEND: undefined, BLAKE3_KIT_NATIVE_PATH: undefined, ...env };
  return ['probe.mjs', 'probe.cjs'].map((file) => {
    const run = spawnSync(process.execPath, [file], { cwd: project, encoding: 'utf8', env: clean as NodeJS.ProcessEnv });
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject(expected);
    return report;
  });
}

// Installs and child processes: once, not in every Node project.
describe.runIf(inject('flavour') === 'simd')('installed from the tarballs as published', () => {
  let dir: string;
  let packed: Packed;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'blake3-kit-install-'));
    packed = packAll(dir);
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the main tarball under 310 KB, the addons in their own packages', () => {
    const sizes = Object.fromEntries(
      [['blake3-kit', packed.main], ...Object.entries(packed.platforms).map(([triple, p]) => [triple, p.tarball])].map(([name, file]) => [
        name,
        file === undefined ? 'not built' : statSync(file).size,
      ]),
    );
    console.log('tarball sizes (bytes):', sizes);
    // SI kilobytes, as npm pack prints them. 191.5 kB before the compat
    // entry, saved states and hash-seq responses; 222.3 kB after (+22 kB of
    // minified JS, +22 kB of .d.ts, +18 kB over the four wasm modules, +12
    // kB for the inline entry's base64 of two of them); 237.8 kB with the
    // Node bundle entries (they share the inline entry's base64, and carry
    // the 8.5 KB worker script as text), blake3-wasm 3.x's compat names and
    // saved states v2; 260.8 kB with docs/ (36 kB) and the bench method and
    // chart the README links (16 kB), less the hashing-only wasm modules
    // (30.6 kB); 276.4 kB with verifiedFetch and its Service Worker
    // handler; 304.4 kB with the CLI as one file of its own (+27 kB gzip of
    // a second copy of what it uses: 8-15% faster on a small file); 309.5-
    // 309.8 kB with docs/ regenerated from a full bench; 310.9 kB with the
    // block probe held through a first parallel call and verified bodies
    // quiet after a cancel (+1.1 kB; the gzip of the same tree varies by
    // ~300 B with esbuild's chunk names); 314.5 kB with JavaScriptCore's
    // copy of the lanes (+4.7 KB of SIMD wasm, in the module and in the
    // inline entries' base64: Bun 2.6x, WebKit 1.07x from 4 KiB).
    expect(sizes['blake3-kit']).toBeLessThan(318_000);
    const listed = execFileSync('tar', ['tzf', packed.main], { encoding: 'utf8' });
    expect(listed).not.toMatch(/\.node$/m);
    const manifest = JSON.parse(execFileSync('tar', ['xzOf', packed.main, 'package/package.json'], { encoding: 'utf8' }));
    // Every platform package (npm/), each at the main package's version.
    const triples = Object.keys(packed.platforms);
    expect(triples).toHaveLength(7);
    expect(manifest.optionalDependencies).toEqual(Object.fromEntries(triples.map((triple) => [`blake3-kit-${triple}`, manifest.version])));
  });

  // blake3-wasm's API as its users call it: imported or required, then used
  // at once, with no init() and no await.
  it('blake3-kit/compat: import and require, synchronous, Buffers as blake3-wasm 2.x gives', () => {
    const project = consumerProject(dir, 'compat', [packed.main]);
    const names = '{ hash, createHash, keyedHash, deriveKey }';
    const print = `${compatProbe('Buffer.alloc(32, 7)')}\nconsole.log(JSON.stringify(compat));\n`;
    writeFileSync(join(project, 'compat.mjs'), `import ${names} from 'blake3-kit/compat';\n${print}`);
    writeFileSync(join(project, 'compat.cjs'), `const ${names} = require('blake3-kit/compat');\n${print}`);
    const env = { ...process.env, BLAKE3_KIT_BACKEND: undefined, BLAKE3_KIT_NATIVE_PATH: undefined } as NodeJS.ProcessEnv;
    for (const file of ['compat.mjs', 'compat.cjs']) {
      const run = spawnSync(process.execPath, [file], { cwd: project, encoding: 'utf8', env, timeout: 30_000 });
      expect(run.stderr, file).toBe('');
      expect(JSON.parse(run.stdout), file).toEqual({ ...compatExpected, buffer: true });
    }
  }, 60_000);

  describe.runIf(here)(`on ${TRIPLE}`, () => {
    let tarball: string;
    beforeAll(() => {
      const platform = packed.platforms[TRIPLE]!;
      if (platform.tarball === undefined) throw new Error(`cannot test ${PACKAGE}: ${platform.missing}`);
      tarball = platform.tarball;
    });

    it(`with ${PACKAGE} installed, loads its addon (ESM and CommonJS)`, () => {
      const project = consumerProject(dir, 'with-platform', [packed.main, tarball]);
      for (const report of probe(project)) {
        expect(report.backend).toBe('native+wasm-simd');
        expect(report.status).toMatchObject({ loaded: true, path: join(project, 'node_modules', PACKAGE, `blake3-kit.${TRIPLE}.node`) });
      }
      expect(probe(project, { BLAKE3_KIT_BACKEND: 'native' }).map((r) => r.backend)).toEqual(['native', 'native']);
      // The CLI of the same install, through npx.
      const file = join(project, 'probe.mjs');
      const line = execFileSync('npx', ['--offline', 'blake3-kit', file], { cwd: project, encoding: 'utf8' });
      expect(line).toBe(`${bytesToHex(blake3(new TextEncoder().encode(ESM)))}  ${file}\n`);
    }, 60_000);

    it(`without ${PACKAGE} (optional, not installed), hashes on wasm and says why`, () => {
      const project = consumerProject(dir, 'without-platform', [packed.main]);
      for (const report of probe(project)) {
        expect(report.backend).toBe('wasm-simd');
        expect(report.status.loaded).toBe(false);
        expect(report.status.error).toContain(`the optional package ${PACKAGE} is not installed`);
        expect(report.status.error).toContain('there is no local build');
      }
    }, 60_000);

    it(`with a broken ${PACKAGE}, hashes on wasm and keeps the load error`, () => {
      const project = consumerProject(dir, 'broken-platform', [packed.main, tarball]);
      const addon = join(project, 'node_modules', PACKAGE, `blake3-kit.${TRIPLE}.node`);
      writeFileSync(addon, 'not a shared library');
      for (const report of probe(project)) {
        expect(report.backend).toBe('wasm-simd');
        expect(report.status).toMatchObject({ loaded: false, path: addon });
        expect(report.status.error).toContain(`${PACKAGE} did not load`);
        expect(report.status.cause).toMatch(/invalid ELF header|file too short/);
      }
      // Asked for by name, the native backend fails loudly, with the cause.
      const forced = spawnSync(process.execPath, ['probe.mjs'], {
        cwd: project,
        encoding: 'utf8',
        env: { ...process.env, BLAKE3_KIT_BACKEND: 'native', BLAKE3_KIT_NATIVE_PATH: undefined } as NodeJS.ProcessEnv,
      });
      expect(forced.status).not.toBe(0);
      expect(forced.stderr).toContain('the native backend was asked for');
    }, 60_000);
  });
});
