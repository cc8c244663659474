// A hasher saved in one Node process finishes in another, on every backend:
// each backend's child saves states of several inputs, modes and split
// points, and each backend's child loads every saver's states, hashes the
// rest and prints the digests. The state format is canonical, so the bytes
// agree too. Runs the built package (dist/, wasm/, native/).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { blake3 as noble } from '@noble/hashes/blake3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { afterAll, describe, expect, it } from 'vitest';
import { CONTEXT, flavour, KEY, pattern } from '../shared/setup.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'blake3-kit-resume-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BACKENDS = ['wasm-simd', 'wasm-scalar', 'native', 'auto'] as const;
type Backend = (typeof BACKENDS)[number];
// null, not undefined: the modes go to the child as JSON.
const MODES = { hash: null, keyed: { key: [...KEY] }, derive: { context: CONTEXT } } as const;
const CASES: [number, number][] = [
  [0, 0],
  [1, 0],
  [1, 1],
  [1024, 1024],
  [1025, 1024],
  [4096, 2048],
  [65_536, 30_000],
  [100_001, 65_536],
  [(1 << 20) + 7, 1 << 19],
];

/** The child: `save` writes { name: hex state } of every case to the file;
 * `finish` reads the states of every file given and prints { saver/name:
 * hex digest }. Input bytes are pattern(length) as in setup.ts. */
const CHILD = `
import { readFileSync, writeFileSync } from 'node:fs';
import { init } from 'blake3-kit';
const [action, backend, cases, modes, ...files] = process.argv.slice(1);
const b3 = await init({ backend });
const pattern = (n) => Uint8Array.from({ length: n }, (_, i) => i % 251);
const options = (mode) => { const o = JSON.parse(modes)[mode]; return o?.key ? { key: Uint8Array.from(o.key) } : (o ?? undefined); };
const out = { backend: b3.backend, results: {} };
try {
  if (action === 'save') {
    for (const mode of Object.keys(JSON.parse(modes))) for (const [length, split] of JSON.parse(cases)) {
      out.results[mode + '/' + length + '/' + split] = b3.toHex(b3.createHasher(options(mode)).update(pattern(length).subarray(0, split)).save());
    }
    writeFileSync(files[0], JSON.stringify(out.results));
  } else {
    for (const file of files) for (const [name, hex] of Object.entries(JSON.parse(readFileSync(file, 'utf8')))) {
      const [mode, length, split] = name.split('/').map((part, i) => (i ? Number(part) : part));
      const state = Uint8Array.from(hex.match(/../g) ?? [], (byte) => parseInt(byte, 16));
      const hasher = b3.createHasher(options(mode)).load(state);
      out.results[file + ':' + name] = b3.toHex(hasher.update(pattern(length).subarray(split)).digest());
    }
  }
} catch (error) { out.error = error.message; }
console.log(JSON.stringify(out));
`;

function child(action: 'save' | 'finish', backend: Backend, files: string[]): { backend: string; results: Record<string, string>; error?: string } {
  const stdout = execFileSync(
    process.execPath,
    ['--input-type=module', '-e', CHILD, action, backend, JSON.stringify(CASES), JSON.stringify(MODES), ...files],
    {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, BLAKE3_KIT_BACKEND: undefined },
    },
  );
  return JSON.parse(stdout);
}

const expected = new Map<string, string>();
for (const [mode, options] of Object.entries(MODES)) {
  const theirs = options === null ? {} : 'key' in options ? { key: KEY } : { context: new TextEncoder().encode(CONTEXT) };
  for (const [length, split] of CASES) expected.set(`${mode}/${length}/${split}`, bytesToHex(noble(pattern(length), theirs)));
}

describe.runIf(flavour === 'simd')('saved states across processes and backends', () => {
  const saved = new Map<Backend, string>();
  const skipped = new Map<Backend, string>();

  it('each backend saves in its own process', { timeout: 240_000 }, () => {
    for (const backend of BACKENDS) {
      const file = join(dir, `${backend}.json`);
      const result = child('save', backend, [file]);
      const native = backend === 'native' || backend === 'auto';
      if (native && !result.backend.startsWith('native')) {
        skipped.set(backend, `the addon is not built here (init chose ${result.backend})`);
        continue;
      }
      if (result.error !== undefined && native && /not supported by this backend/.test(result.error)) {
        skipped.set(backend, result.error);
        continue;
      }
      expect(result.error, backend).toBeUndefined();
      saved.set(backend, file);
    }
    for (const [backend, why] of skipped) console.warn(`resume-process: ${backend} skipped: ${why}`);
    expect(saved.has('wasm-simd') && saved.has('wasm-scalar')).toBe(true);
    // Canonical: every backend wrote the same bytes for the same input.
    const states = [...saved.values()].map((file) => readFileSync(file, 'utf8'));
    for (const state of states) expect(state).toBe(states[0]);
  });

  it("each backend finishes every saver's states in another process", { timeout: 240_000 }, () => {
    expect(saved.size).toBeGreaterThanOrEqual(2);
    for (const backend of BACKENDS) {
      if (skipped.has(backend)) continue;
      const files = [...saved.values()];
      const result = child('finish', backend, files);
      expect(result.error, backend).toBeUndefined();
      expect(Object.keys(result.results).length).toBe(files.length * expected.size);
      for (const [key, digest] of Object.entries(result.results)) {
        expect(digest, `${key} finished by ${backend}`).toBe(expected.get(key.slice(key.lastIndexOf(':') + 1)));
      }
    }
  });
});
