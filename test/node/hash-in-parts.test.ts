// examples/hash-in-parts.mjs: a file hashed as parts in separate processes,
// combined with the subtree API, equals BLAKE3 of the whole file.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { afterAll, describe, expect, it } from 'vitest';
import { flavour, random, seed } from '../shared/setup.js';

const example = fileURLToPath(new URL('../../examples/hash-in-parts.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'blake3-kit-parts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.runIf(flavour === 'simd')(`examples/hash-in-parts.mjs (seed ${seed})`, () => {
  const rng = random(seed);
  it.each([
    ['six 1 MiB parts, the last short', (5 << 20) + 1 + rng.int(1 << 20), 1 << 20],
    ['three 4 KiB parts', 8192 + 1 + rng.int(4095), 4096],
    ['one part', 1000, 4096],
    ['exactly two parts', 8192, 4096],
  ])(
    '%s',
    (_, size, part) => {
      const data = rng.bytes(size);
      const file = join(dir, `data-${size}`);
      writeFileSync(file, data);
      const line = execFileSync(process.execPath, [example, file, String(part)], {
        encoding: 'utf8',
        env: { ...process.env, BLAKE3_KIT_BACKEND: undefined },
      });
      expect(line).toBe(`${bytesToHex(blake3(data))}  ${file}\n`);
    },
    60_000,
  );
});
