// The lint step's structural checks can fail: each is run here on a copy of
// the code with the rule broken on purpose, and must say so, then on the
// code as it is, which must pass.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { root } from './packed.js';

const dir = mkdtempSync(join(tmpdir(), 'blake3-kit-lint-rules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const node = (script: string, args: string[]) => spawnSync(process.execPath, [join(root, 'scripts', script), ...args], { encoding: 'utf8', timeout: 60_000 });

describe.runIf(inject('flavour') === 'simd')('scripts/rust-cycles.mjs', () => {
  it('names a cycle between two modules, through use groups and root re-exports too', () => {
    const crate = join(dir, 'cyclic');
    mkdirSync(join(crate, 'src', 'b'), { recursive: true });
    writeFileSync(join(crate, 'Cargo.toml'), '[package]\nname = "cyclic"\n');
    writeFileSync(join(crate, 'src', 'lib.rs'), 'mod a;\nmod b;\nmod c;\n#[cfg(test)]\nmod tests;\npub use c::Thing;\n');
    writeFileSync(join(crate, 'src', 'a.rs'), 'use crate::{b::inner::Y, error};\n');
    writeFileSync(join(crate, 'src', 'b', 'mod.rs'), 'pub mod inner;\n');
    writeFileSync(join(crate, 'src', 'b', 'inner.rs'), 'pub struct Y;\nimpl crate::Thing for Y {}\n');
    writeFileSync(join(crate, 'src', 'c.rs'), 'pub trait Thing {}\nfn f() { let _ = crate::a::g; }\n');
    // Tests may see everything: no cycle through them.
    writeFileSync(join(crate, 'src', 'tests.rs'), 'use crate::a;\n');
    const run = node('rust-cycles.mjs', [crate]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/modules that need each other: (a|b|c) <-> (a|b|c) <-> (a|b|c)/);
  });

  it('passes on every crate of the workspace', () => {
    const run = node('rust-cycles.mjs', []);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/crate\/wasm: \d+ modules, no cycle/);
  });
});
