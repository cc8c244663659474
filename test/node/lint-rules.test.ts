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

const node = (script: string, args: string[]) =>
  spawnSync(process.execPath, [join(root, 'scripts', script), ...args], { encoding: 'utf8', timeout: 60_000 });

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

describe.runIf(inject('flavour') === 'simd')('scripts/doc-paths.mjs', () => {
  it('names a missing path in Markdown and in a src/ comment, a test count, and a folder docs/layout.md leaves out', () => {
    const repo = join(dir, 'repo');
    mkdirSync(join(repo, 'src', 'wing', 'room'), { recursive: true });
    mkdirSync(join(repo, 'docs'), { recursive: true });
    writeFileSync(join(repo, 'src', 'front.ts'), '// See src/gone.ts and wing/here.ts.\nexport {};\n');
    writeFileSync(join(repo, 'src', 'wing', 'here.ts'), '// Beside front.ts (n0-computer/iroh-blobs src/provider.rs is theirs).\nexport {};\n');
    writeFileSync(join(repo, 'README.md'), 'Read `src/wing/here.ts` and `docs/missing.md`; `npm test` ends with 1,234 passed.\n');
    writeFileSync(join(repo, 'docs', 'layout.md'), '| `src/` | the front |\n| `src/wing/` | a wing |\n');
    const run = node('doc-paths.mjs', ['--root', repo]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('src/front.ts: a comment names src/gone.ts');
    expect(run.stderr).toContain('README.md: `docs/missing.md` does not exist');
    expect(run.stderr).toContain('quotes a test count ("1,234 passed")');
    expect(run.stderr).toContain('docs/layout.md does not name the folder src/wing/room/');
    // The paths that exist, and another repository's, pass.
    expect(run.stderr).not.toMatch(/here\.ts|provider\.rs/);
  });

  it('passes on the repository', () => {
    const run = node('doc-paths.mjs', []);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
