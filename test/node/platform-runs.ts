// What the tests of the cross-built packages share (platforms-musl.test.ts,
// wine.test.ts): which step runs them, the probe (platform-probe.mjs) set
// up in consumer projects, and its reference report, from this machine's
// Node on the wasm backend.
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { consumerProject, root } from './packed.js';

/** Which platform step of scripts/test.mjs runs now (musl, windows or
 * macos): each platform's tests run in that step alone, once. */
export const platformStep = process.env.BLAKE3_KIT_PLATFORM_TESTS;

export interface ProbeReport {
  backend: string;
  platform: string;
  status: { loaded: boolean; path?: string; cpuFeatures?: string; threads?: number; error?: string; cause?: string };
  digests: Record<string, unknown>;
  errors: Record<string, string>;
  calls?: Record<string, number>;
}

export const vectorsFile = join(root, 'test', 'vectors.json');

/** A consumer project with `tarballs` installed and the probe in it. */
export function probeProject(dir: string, name: string, tarballs: string[]): string {
  const project = consumerProject(dir, name, tarballs, { force: true });
  copyFileSync(join(root, 'test', 'node', 'platform-probe.mjs'), join(project, 'probe.mjs'));
  copyFileSync(vectorsFile, join(project, 'vectors.json'));
  return project;
}

/** The probe's arguments, in its project: data in `data`, then
 * `--coverage PACKAGE` (count that addon's calls) or `--init-only`. */
export const probeArgs = (data: string, ...flags: string[]) => ['probe.mjs', 'vectors.json', data, ...flags];

/** The report of the probe run by this machine's Node on wasm, in a
 * project with only the main package. */
export function referenceReport(dir: string, main: string): ProbeReport {
  const project = probeProject(dir, 'reference', [main]);
  const run = spawnSync(process.execPath, probeArgs('data'), {
    cwd: project,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, BLAKE3_KIT_BACKEND: 'wasm', BLAKE3_KIT_NATIVE_PATH: undefined } as NodeJS.ProcessEnv,
  });
  expect(run.stderr).toBe('');
  return parse(run.stdout);
}

export function parse(stdout: string): ProbeReport {
  try {
    return JSON.parse(stdout) as ProbeReport;
  } catch {
    throw new Error(`the probe printed no report: ${stdout.slice(0, 2000)}`);
  }
}

/** The errors every run gives, by Node's names; `addon` adds the addon's
 * own hashFile errors, which the probe calls when it counts calls. */
export function expectedErrors(addon: boolean): Record<string, string> {
  return {
    'hashFile: missing': 'ENOENT',
    'hashFile: a directory': 'EISDIR',
    'hashFile: aborted': 'AbortError',
    'updateFromFd: a directory': 'EISDIR',
    'updateFromFd: a closed fd': 'EBADF',
    ...(addon ? { 'addon hashFile: missing': 'ENOENT', 'addon hashFile: a directory': 'EISDIR' } : {}),
  };
}

/**
 * A run on a platform's addon (`BLAKE3_KIT_BACKEND=native`, counting
 * calls): the reference's digests, the official vectors, Node's error
 * names, and every export of the addon called at least once.
 */
export function expectLikeReference(report: ProbeReport, reference: ProbeReport): void {
  const vectors = JSON.parse(readFileSync(vectorsFile, 'utf8')) as { cases: { hash: string; keyed_hash: string; derive_key: string }[] };
  expect(report.backend).toBe('native');
  expect(report.digests.vectors).toEqual(vectors.cases.map((c) => [c.hash, c.keyed_hash, c.derive_key]));
  expect(report.digests).toEqual(reference.digests);
  expect(report.errors).toEqual(expectedErrors(true));
  const never = Object.entries(report.calls ?? {}).filter(([, n]) => n === 0);
  expect(
    never.map(([name]) => name),
    'exports the probe never called',
  ).toEqual([]);
  expect(Object.keys(report.calls ?? {}).length).toBeGreaterThan(20);
}

/** What init() chose by itself: the platform package's addon, the path in
 * Node's form for that platform; with `reference`, the work done then
 * (routed between the addon and wasm) gave its digests. */
export function expectPicked(report: ProbeReport, triple: string, reference?: ProbeReport): void {
  expect(report.backend).toBe('native+wasm-simd');
  expect(report.status.loaded).toBe(true);
  expect(report.status.path?.replaceAll('\\', '/')).toMatch(new RegExp(`/node_modules/blake3-kit-${triple}/blake3-kit\\.${triple}\\.node$`));
  if (reference === undefined) return;
  expect(report.digests).toEqual(reference.digests);
  expect(report.errors).toEqual(expectedErrors(false));
}

/** Without its package: wasm, and nativeStatus() says why, as on Linux. */
export function expectFellBack(report: ProbeReport, triple: string): void {
  expect(report.backend).toBe('wasm-simd');
  expect(report.status.loaded).toBe(false);
  expect(report.status.error).toContain(`no native addon for ${triple} loaded`);
  expect(report.status.error).toContain(`the optional package blake3-kit-${triple} is not installed`);
  expect(report.status.error).toContain('there is no local build at');
}
