// blake3-kit/compat exports every name blake3-wasm exports, per entry and
// condition: 2.1.5 (wrangler's pin, node_modules/blake3-wasm) and 3.0.0
// (node_modules/blake3-wasm-3, an npm alias), against our entries from the
// packed tarball in a fresh project, as users install them. Names are read
// as each consumer sees them: Node's require() and import, and esbuild's
// bundle of the browser, workerd, edge-light and Node (`module` field)
// resolutions. The types' names: types.test.ts.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
// @ts-expect-error: a plain .mjs module without types
import { packMain } from '../../scripts/pack.mjs';
import { root } from './packed.js';

const THEIRS = { '2.1.5': 'blake3-wasm', '3.0.0': 'blake3-wasm-3' } as const;

/** The names `require(spec)` or `import(spec)` gives in Node, run in `cwd`.
 * `__esModule` and `module.exports` are CommonJS interop (Node adds the
 * first to a CommonJS module's namespace and to require() of ours, and
 * Node 23+ the second to an imported CommonJS module's namespace), not
 * names of either API. */
function nodeNames(cwd: string, spec: string, how: 'require' | 'import'): string[] {
  const print = (m: string) => `console.log(JSON.stringify(Object.keys(${m})))`;
  const args =
    how === 'require'
      ? ['-e', print(`require(${JSON.stringify(spec)})`)]
      : ['--input-type=module', '-e', print(`await import(${JSON.stringify(spec)})`)];
  const out = execFileSync(process.execPath, args, { cwd, encoding: 'utf8' });
  return (JSON.parse(out) as string[]).filter((name) => name !== '__esModule' && name !== 'module.exports').sort();
}

/** Leaves the bundle's imports of what has no names to give: Node's
 * stream module (2.x imports it as 'stream.js') and the wasm and its glue. */
const leaves: Plugin = {
  name: 'leaves',
  setup(b) {
    b.onResolve({ filter: /.*/ }, ({ path, kind }) => {
      if (kind === 'entry-point') return undefined;
      const leaf =
        /^stream(\.js)?$/.test(path) || /\.wasm(\?module)?$/.test(path) || (path.startsWith('.') && /(^|\/)wasm(\/|$)|blake3_js|\.mjs$/.test(path));
      return leaf ? { path, external: true } : undefined;
    });
  },
};

type Resolution = { platform: 'browser' | 'node' | 'neutral'; conditions?: string[]; mainFields?: string[] };
const RESOLUTIONS = {
  // A browser bundler: the browser condition, the "browser" field.
  browser: { platform: 'browser' },
  // Wrangler: workerd, worker, browser (docs/layout.md).
  workerd: { platform: 'neutral', conditions: ['workerd', 'worker', 'browser'], mainFields: ['browser', 'module', 'main'] },
  // Vercel Edge.
  'edge-light': { platform: 'neutral', conditions: ['edge-light', 'browser'], mainFields: ['browser', 'module', 'main'] },
  // A bundler for Node that prefers "module" (webpack's target node, Vite SSR).
  node: { platform: 'node', mainFields: ['module', 'main'] },
} satisfies Record<string, Resolution>;

/** The entry's exports as esbuild bundles it; or why it does not bundle. */
async function bundledNames(cwd: string, spec: string, resolution: Resolution): Promise<string[] | { error: string }> {
  try {
    const result = await build({
      absWorkingDir: cwd,
      entryPoints: [spec],
      bundle: true,
      write: false,
      format: 'esm',
      outdir: 'out',
      metafile: true,
      logLevel: 'silent',
      plugins: [leaves],
      ...resolution,
    });
    const [output] = Object.values(result.metafile.outputs).filter((o) => o.entryPoint !== undefined);
    return [...output!.exports].sort();
  } catch (error) {
    return { error: String((error as { errors?: { text: string }[] }).errors?.map((e) => e.text) ?? error) };
  }
}

const missing = (theirs: string[], ours: string[]) => theirs.filter((name) => !ours.includes(name));

describe.runIf(inject('flavour') === 'simd')('blake3-kit/compat exports every name blake3-wasm 2.1.5 and 3.0.0 export', () => {
  let dir: string;
  let project: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'blake3-kit-compat-exports-'));
    const tarball = packMain(dir);
    // The tarball unpacked as node_modules/blake3-kit, as `npm install` of a
    // package without dependencies would (the addon is not needed here).
    project = join(dir, 'consumer');
    mkdirSync(join(project, 'node_modules', 'blake3-kit'), { recursive: true });
    execFileSync('tar', ['xzf', tarball, '-C', join(project, 'node_modules', 'blake3-kit'), '--strip-components=1']);
    writeFileSync(join(project, 'package.json'), '{ "type": "module", "private": true }');
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const how of ['require', 'import'] as const) {
    it(`in Node, by ${how}()`, () => {
      const ours = nodeNames(project, 'blake3-kit/compat', how);
      for (const [version, spec] of Object.entries(THEIRS)) {
        const theirs = nodeNames(root, spec, how);
        // Sanity: each list is the entry's, not an empty or failed read.
        expect(theirs).toContain('createHash');
        expect(theirs).toContain(version === '2.1.5' ? 'BaseHash' : 'WasmHasher');
        expect({ version, how, missing: missing(theirs, ours) }).toEqual({ version, how, missing: [] });
      }
    });
  }

  it('in bundles for browsers, workerd and edge-light', async () => {
    // 2.1.5: the "browser" field, blake3-wasm/browser (webpack's wasm
    // import) and blake3-wasm/browser-async (its default export, load);
    // 3.0.0: the "browser" field.
    const theirs = {
      '2.1.5 browser': await bundledNames(root, THEIRS['2.1.5'], RESOLUTIONS.browser),
      '2.1.5 /browser': await bundledNames(root, `${THEIRS['2.1.5']}/browser`, RESOLUTIONS.browser),
      '2.1.5 /browser-async': await bundledNames(root, `${THEIRS['2.1.5']}/browser-async`, RESOLUTIONS.browser),
      '3.0.0 browser': await bundledNames(root, THEIRS['3.0.0'], RESOLUTIONS.browser),
    };
    expect(theirs['2.1.5 browser']).toContain('BaseHash');
    expect(theirs['2.1.5 /browser-async']).toEqual(['default']);
    expect(theirs['3.0.0 browser']).toContain('WasmHasher');
    for (const where of ['browser', 'workerd', 'edge-light'] as const) {
      const ours = await bundledNames(project, 'blake3-kit/compat', RESOLUTIONS[where]);
      expect(ours, where).toBeInstanceOf(Array);
      for (const [entry, names] of Object.entries(theirs)) {
        expect({ where, entry, missing: missing(names as string[], ours as string[]) }).toEqual({ where, entry, missing: [] });
      }
    }
  });

  it('in bundles for Node (the "module" field; 2.1.5\'s does not bundle)', async () => {
    // 2.1.5's esm/index.js re-exports './node.js', which it does not ship:
    // bundlers that prefer "module" for Node cannot use 2.1.5 at all.
    expect(await bundledNames(root, THEIRS['2.1.5'], RESOLUTIONS.node)).toEqual({ error: expect.stringContaining('Could not resolve "./node.js"') });
    const theirs = await bundledNames(root, THEIRS['3.0.0'], RESOLUTIONS.node);
    expect(theirs).toContain('NodeHash');
    const ours = await bundledNames(project, 'blake3-kit/compat', RESOLUTIONS.node);
    expect(missing(theirs as string[], ours as string[])).toEqual([]);
  });

  it("Node's default import is load() and the whole API, as theirs (CommonJS) is the whole module", () => {
    const code = `import b3 from 'blake3-kit/compat';
import * as named from 'blake3-kit/compat';
const api = await b3();
console.log(JSON.stringify([b3.hash('abc').toString('hex'), b3.createHash === named.createHash, b3.BaseHash === named.BaseHash, api.hash === named.hash]));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: project, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const theirs = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', "import b3 from 'blake3-wasm'; console.log(b3.hash('abc').toString('hex'))"],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    expect(JSON.parse(run.stdout)).toEqual([theirs.stdout.trim(), true, true, true]);
  });
});
