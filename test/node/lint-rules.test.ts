// The lint step's structural checks can fail: each is run here on a copy of
// the code with the rule broken on purpose, and must say so, then on the
// code as it is, which must pass.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

describe.runIf(inject('flavour') === 'simd')('.dependency-cruiser.cjs', () => {
  // A copy of the rules and the manifests they read, over a small src/
  // that breaks each rule once and does each allowed thing once.
  const repo = join(dir, 'layers');
  const write = (path: string, text: string) => {
    mkdirSync(join(repo, path, '..'), { recursive: true });
    writeFileSync(join(repo, path), text);
  };
  const copy = (path: string) => write(path, readFileSync(join(root, path), 'utf8'));
  const cruise = (cwd: string, folders: string[]) =>
    spawnSync(join(root, 'node_modules', '.bin', 'depcruise'), [...folders, '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], {
      cwd,
      encoding: 'utf8',
      timeout: 120_000,
    });

  it('names each layer broken, each cycle, each undeclared package, and passes what the layers allow', () => {
    const manifests = [
      'package.json',
      'bench/package.json',
      'examples/vite-app/package.json',
      'examples/cloudflare-worker/package.json',
      'examples/verified-media/package.json',
    ];
    for (const path of ['.dependency-cruiser.cjs', 'tsconfig.json', 'tsconfig.test.json', ...manifests]) copy(path);
    const imports = (...paths: string[]) => `${paths.map((path, i) => `import * as m${i} from '${path}';`).join('\n')}\nexport const used = 1;\n`;
    write('src/input.ts', imports('./modes.js'));
    write('src/modes.ts', imports());
    write('src/many.ts', imports());
    write('src/engine.ts', imports('./input.js'));
    write('src/hasher.ts', imports('./engine.js', './wasm/engine.js', 'left-pad'));
    write('src/tree-ops.ts', imports('./engine.js', './wasm/engine.js'));
    write('src/tree/walk.ts', imports('./geometry.js', '../input.js'));
    write('src/tree/geometry.ts', imports());
    write('src/wasm/engine.ts', imports('../engine.js', '../native/states.js', '../many.js', '../tree/geometry.js'));
    write('src/wasm/workers.ts', imports('./engine.js'));
    write('src/native/states.ts', imports());
    write('src/native/engine.ts', imports('../engine.js', '../wasm/engine.js'));
    write('src/parallel/pool.ts', imports('../wasm/workers.js', '../wasm/engine.js'));
    write('src/addressing/bao.ts', imports('../tree-ops.js', '../tree/walk.js', '../native/engine.js'));
    write('src/node/file.ts', imports('../hasher.js', '../native/engine.js', '../entries/node.js'));
    write('src/entries/node.ts', imports('../node/file.js', '../addressing/bao.js'));
    write('src/entries/bao-node.ts', imports('./node.js'));
    write('src/cli/main.ts', imports('../entries/node.js', '../entries/bao-node.js', '../hasher.js', './args.js'));
    write('src/cli/args.ts', imports('./main.js'));
    write('bench/lib/loaders.mjs', imports('@webbuf/blake3', '@webbuf/webbuf-not-declared'));
    write('test/shared/a.test.ts', imports('vitest', '@noble/hashes/blake3.js', 'leftpad-undeclared'));
    const run = cruise(repo, ['src', 'bench', 'test']);
    expect(run.status).not.toBe(0);
    const broken = [...run.stdout.matchAll(/error ([\w-]+): (\S+) →\s+(\S+)/g)].map(([, rule, from, to]) => ({ rule, from, to }));
    expect(
      broken
        .filter(({ rule }) => rule !== 'no-circular')
        .map(({ rule, from, to }) => `${rule}: ${from} -> ${to}`)
        .sort(),
    ).toEqual(
      [
        'input-is-the-ground: src/input.ts -> src/modes.ts',
        'src-without-dependencies: src/hasher.ts -> left-pad',
        'declared-in-root: src/hasher.ts -> left-pad',
        'tree-is-the-ground: src/tree/walk.ts -> src/input.ts',
        'wasm-not-native: src/wasm/engine.ts -> src/native/states.ts',
        'backends-below-the-front: src/wasm/engine.ts -> src/many.ts',
        'native-not-wasm: src/native/engine.ts -> src/wasm/engine.ts',
        'workers-through-one-door: src/parallel/pool.ts -> src/wasm/engine.ts',
        'addressing-over-the-front: src/addressing/bao.ts -> src/native/engine.ts',
        'entries-on-top: src/node/file.ts -> src/entries/node.ts',
        'cli-on-public-entries: src/cli/main.ts -> src/hasher.ts',
        'declared-in-bench: bench/lib/loaders.mjs -> @webbuf/webbuf-not-declared',
        'declared-in-root: test/shared/a.test.ts -> leftpad-undeclared',
      ].sort(),
    );
    // Each cycle once, from whichever of its files.
    const cycles = broken.filter(({ rule }) => rule === 'no-circular').map(({ from, to }) => [from, to].sort().join(' <-> '));
    expect(cycles.sort()).toEqual(['src/cli/args.ts <-> src/cli/main.ts', 'src/entries/node.ts <-> src/node/file.ts']);
  });

  it('passes on the repository', () => {
    const run = cruise(root, ['src', 'bench', 'scripts', 'test', 'examples']);
    expect(run.stdout).toContain('no dependency violations found');
    expect(run.status).toBe(0);
  });
});
