// The linux-arm64-gnu package, installed from its tarball with the main one
// and loaded by the official arm64 Node 20 under qemu-user: the addon with the
// crate's NEON kernel against the official vectors, all three modes with
// extended output, plus streaming splits and a file, checked here.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
// @ts-expect-error: a plain .mjs module without types
import { arm64Node } from '../../scripts/arm64-node.mjs';
import { consumerProject, type Packed, packAll, root } from './packed.js';

const vectors = JSON.parse(readFileSync(join(root, 'test', 'vectors.json'), 'utf8')) as {
  key: string;
  context_string: string;
  cases: { input_len: number; hash: string; keyed_hash: string; derive_key: string }[];
};

// Runs under arm64 Node: prints what the test compares.
const SCRIPT = `import * as b3 from 'blake3-kit';
import { readFileSync } from 'node:fs';
const vectors = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const api = await b3.init();
const input = (n) => Uint8Array.from({ length: n }, (_, i) => i % 251);
const key = new TextEncoder().encode(vectors.key);
const cases = vectors.cases.map(({ input_len, hash }) => {
  const bytes = input(input_len);
  const length = hash.length / 2;
  return [api.hash(bytes, { length }), api.keyedHash(key, bytes, { length }), api.deriveKey(vectors.context_string, bytes, { length })].map(b3.toHex);
});
const big = input(3 << 20);
const hasher = api.createHasher();
for (let at = 0; at < big.length; ) { const step = 1 + ((at * 7919) % 200000); hasher.update(big.subarray(at, at + step)); at += step; }
console.log(JSON.stringify({
  backend: api.backend,
  arch: process.arch,
  cpuFeatures: b3.nativeStatus().cpuFeatures,
  cases,
  split: b3.toHex(hasher.digest()),
  file: b3.toHex(await b3.hashFile(process.argv[3])),
}));
`;

// The addon is cross-built by the aarch64 step of `npm test`, which runs
// first; run alone, this file skips unless that step's output is there.
const required = process.env.BLAKE3_KIT_REQUIRE_ARM64 === '1';

describe.runIf(inject('flavour') === 'simd')('linux-arm64-gnu, loaded by arm64 Node under qemu', () => {
  let dir: string;
  let packed: Packed;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'blake3-kit-arm64-'));
    packed = packAll(dir);
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('passes the official vectors, streaming splits and a file on the NEON addon', (context) => {
    const command = arm64Node([]);
    const { tarball, missing } = packed.platforms['linux-arm64-gnu']!;
    const absent = command === undefined ? 'arm64 Node is not unpacked (setup.mjs --test does it)' : missing;
    if (absent !== undefined) {
      if (required) throw new Error(absent);
      return context.skip(absent);
    }
    // npm refuses a package for another CPU unless forced.
    const project = consumerProject(dir, 'arm64', [packed.main, tarball!], { force: true });
    writeFileSync(join(project, 'probe.mjs'), SCRIPT);
    const file = join(project, 'data.bin');
    const data = new Uint8Array(5_000_001).map((_, i) => (i * 31) % 256);
    writeFileSync(file, data);
    const [qemu, args] = arm64Node(['probe.mjs', join(root, 'test', 'vectors.json'), file]);
    const run = spawnSync(qemu, args, {
      cwd: project,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, BLAKE3_KIT_BACKEND: 'native', BLAKE3_KIT_NATIVE_PATH: undefined } as NodeJS.ProcessEnv,
    });
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ backend: 'native', arch: 'arm64', cpuFeatures: expect.stringContaining('neon') });
    expect(report.cases).toEqual(vectors.cases.map((c) => [c.hash, c.keyed_hash, c.derive_key]));
    expect(report.split).toBe(bytesToHex(blake3(Uint8Array.from({ length: 3 << 20 }, (_, i) => i % 251))));
    expect(report.file).toBe(bytesToHex(blake3(data)));
  }, 150_000);
});
