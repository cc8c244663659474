// Every Node entry inside a one-file bundle, as wrangler and other CLIs ship
// their dependencies: the PACKED tarball installed in a fresh project, a
// script per entry bundled by esbuild, Rollup and webpack targeting Node,
// as CommonJS and as ESM, and each bundle run alone in an empty folder, so
// that nothing but the bundle can answer. Bundlers resolve the entries by
// the `module` export condition to dist/*-bundle.js, which carry the wasm
// and the worker script inside (src/node/embedded.ts). Each row is run
// again beside an installed platform package: a bundle keeps the native
// addon where npm put it. And bundles of the plain entries (a bundler
// without the `module` condition) fail with a message that says what to do.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { blake3 } from '@noble/hashes/blake3.js';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { compatExpected, compatProbe, consumerProject, packAll, root } from './packed.js';

const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const TRIPLE = 'linux-x64-gnu';
const here = process.platform === 'linux' && process.arch === 'x64';

type Format = 'cjs' | 'esm';
type Entry = 'blake3-kit/compat' | 'blake3-kit' | 'blake3-kit/node' | 'blake3-kit/bao';
const ENTRIES: Entry[] = ['blake3-kit/compat', 'blake3-kit', 'blake3-kit/node', 'blake3-kit/bao'];

// wrangler's asset name (PR #14334's golden value: 'test file content' as a
// .js file), then the compat probe: blake3-wasm's API, synchronous, no init.
const compatBody = `const contents = Buffer.from('test file content');
const asset = hash(contents.toString('base64') + 'js').toString('hex').slice(0, 32);
${compatProbe('Buffer.alloc(32, 7)')}
const backend = backendName();
console.log(JSON.stringify({ asset, compat, backend }));`;

// The main entries: init(), a hash, and hashParallel on workers started first.
const mainBody = (entry: Entry) => `const b3 = await init();
configureParallel({ workers: 2, threshold: 0 });
await startWorkers();
const input = new Uint8Array(4 << 20).map((_, i) => (i * 7) % 251);
const parallel = toHex(await hashParallel(input));
${entry === 'blake3-kit/bao' ? 'const bao = toHex(baoEncode(input, { outboard: true }).hash);' : 'const bao = undefined;'}
console.log(JSON.stringify({ backend: b3.backend, one: toHex(b3.hash(input)), parallel, bao, jobs: parallelStatus().jobs, broken: parallelStatus().broken }));
await terminateWorkers();`;

/** The probe script for `entry`, as a CommonJS or ESM user writes it
 * (`source` ESM: Rollup bundles ES modules, into either format). */
function probe(entry: Entry, format: Format): string {
  if (entry === 'blake3-kit/compat') {
    const backendOf = format === 'cjs' ? `require('blake3-kit')` : 'main';
    const head =
      format === 'cjs'
        ? `const { hash, createHash, keyedHash, deriveKey } = require('blake3-kit/compat');`
        : `import { hash, createHash, keyedHash, deriveKey } from 'blake3-kit/compat';\nimport * as main from 'blake3-kit';`;
    return `${head}\nconst backendName = () => ${backendOf}.backendStatus().backend;\n${compatBody}\n`;
  }
  const names = `init, configureParallel, startWorkers, terminateWorkers, hashParallel, parallelStatus, toHex${entry === 'blake3-kit/bao' ? ', baoEncode' : ''}`;
  // No top-level await: Rollup writes ES sources as CommonJS too.
  const head = format === 'cjs' ? `const { ${names} } = require('${entry}');` : `import { ${names} } from '${entry}';`;
  return `${head}\n(async () => {\n${mainBody(entry)}\n})();\n`;
}

const INPUT = new Uint8Array(4 << 20).map((_, i) => (i * 7) % 251);
const EXPECTED = hex(blake3(INPUT));

interface Bundler {
  /** Bundles `source` (in `project`) into the one file `out` (a path). */
  bundle(project: string, source: string, out: string, format: Format): Promise<void> | void;
}

const BUNDLERS: Record<string, Bundler> = {
  esbuild: {
    async bundle(project, source, out, format) {
      await build({ absWorkingDir: project, entryPoints: [source], bundle: true, platform: 'node', format, outfile: out, logLevel: 'error' });
    },
  },
  rollup: {
    bundle(project, source, out, format) {
      // @rollup/plugin-node-resolve with the node condition, as its README
      // says for Node targets; Node's builtins stay imports.
      const config = join(project, `rollup-${format}.config.mjs`);
      writeFileSync(
        config,
        `import { nodeResolve } from ${JSON.stringify(join(root, 'node_modules/@rollup/plugin-node-resolve/dist/es/index.js'))};
import { builtinModules } from 'node:module';
export default {
  input: ${JSON.stringify(source)},
  external: [...builtinModules, ...builtinModules.map((name) => 'node:' + name)],
  output: { file: ${JSON.stringify(out)}, format: ${JSON.stringify(format === 'esm' ? 'es' : 'cjs')}, inlineDynamicImports: true },
  plugins: [nodeResolve({ exportConditions: ['node'], preferBuiltins: true })],
  onwarn(warning) { throw new Error(warning.message); },
};\n`,
      );
      execFileSync(bin('rollup'), ['-c', config, '--silent'], { cwd: project, stdio: 'pipe' });
    },
  },
  webpack: {
    bundle(project, source, out, format) {
      const config = join(project, `webpack-${format}.config.cjs`);
      const output = {
        path: dirname(out),
        filename: basename(out),
        ...(format === 'esm' ? { module: true, chunkFormat: 'module', library: { type: 'module' } } : {}),
      };
      const settings = {
        mode: 'production',
        target: 'node20',
        entry: `./${source}`,
        output,
        ...(format === 'esm' ? { experiments: { outputModule: true } } : {}),
      };
      writeFileSync(config, `module.exports = ${JSON.stringify(settings)};\n`);
      const printed = execFileSync(bin('webpack'), ['--config', config, '--no-color'], { cwd: project, encoding: 'utf8' });
      // A warning is something a user would have to read and judge.
      expect(printed).not.toMatch(/WARNING|ERROR/);
    },
  },
};

/** Runs `file` alone in `dir` (nothing else there but `beside`), with no
 * BLAKE3_KIT_* variables, within a deadline; returns what it printed. */
function runAlone(file: string, dir: string): Record<string, unknown> {
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.BLAKE3_KIT_BACKEND;
  delete env.BLAKE3_KIT_NATIVE_PATH;
  const run = spawnSync(process.execPath, [file], { cwd: dir, env: env as NodeJS.ProcessEnv, encoding: 'utf8', timeout: 60_000 });
  expect(run.error).toBeUndefined();
  expect(run.stderr, run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

const gzipSize = (file: string) => gzipSync(readFileSync(file), { level: 9 }).length;

describe.runIf(inject('flavour') === 'simd')('Node entries in one-file bundles, from the packed tarball', () => {
  let dir: string;
  let project: string;
  /** Where bundles run alone, and beside an installed platform package. */
  let alone: string;
  let beside: string | undefined;
  const sizes: string[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'blake3-kit-node-bundles-'));
    const packed = packAll(dir);
    project = consumerProject(dir, 'app', [packed.main]);
    alone = join(dir, 'alone');
    mkdirSync(alone);
    const native = packed.platforms[TRIPLE]!;
    if (here && native.tarball === undefined) throw new Error(`cannot test blake3-kit-${TRIPLE}: ${native.missing}`);
    if (here) beside = consumerProject(dir, 'beside', [native.tarball!]);
  }, 120_000);
  afterAll(() => {
    console.log(`one-file bundles (bytes, gzip -9):\n${sizes.join('\n')}`);
    rmSync(dir, { recursive: true, force: true });
  });

  const rows = Object.keys(BUNDLERS).flatMap((bundler) =>
    (['cjs', 'esm'] as const).flatMap((format) => ENTRIES.map((entry) => [bundler, format, entry] as const)),
  );

  it.each(rows)(
    '%s, %s: %s works alone, synchronously where its API is, and with the addon beside it',
    async (bundler, format, entry) => {
      const name = `${bundler}-${format}-${entry.replace(/\W/g, '-')}`;
      const sourceFormat = bundler === 'rollup' ? 'esm' : format;
      const source = `${name}.${sourceFormat === 'cjs' ? 'cjs' : 'mjs'}`;
      writeFileSync(join(project, source), probe(entry, sourceFormat));
      const out = join(project, 'out', name, `bundle.${format === 'cjs' ? 'cjs' : 'mjs'}`);
      await BUNDLERS[bundler]!.bundle(project, source, out, format);
      // One file: no chunk, no .wasm, no worker script beside it.
      expect(readdirSync(dirname(out))).toEqual([basename(out)]);
      const bytes = readFileSync(out).length;
      sizes.push(`${bundler} ${format} ${entry}: ${bytes} B, ${gzipSize(out)} B gzip`);
      for (const [where, backend] of [[alone, 'wasm-simd'], ...(beside === undefined ? [] : [[beside, 'native+wasm-simd']])] as const) {
        const copy = join(where, `${name}.${format === 'cjs' ? 'cjs' : 'mjs'}`);
        copyFileSync(out, copy);
        const result = runAlone(copy, where);
        expect(result.backend, `${name} in ${where}`).toBe(backend);
        if (entry === 'blake3-kit/compat') {
          expect(result.asset).toBe('b41bdcbc16962c4e5d7e14d7c9103695');
          expect(result.compat).toEqual({ ...compatExpected, buffer: true });
          continue;
        }
        expect(result.one).toBe(EXPECTED);
        expect(result.parallel).toBe(EXPECTED);
        // The workers' script came with the bundle: they hashed.
        expect(result.broken).toBeUndefined();
        expect(result.jobs).toBeGreaterThan(0);
        if (entry === 'blake3-kit/bao') expect(result.bao).toBe(EXPECTED);
      }
    },
    120_000,
  );

  // A bundler that does not use the `module` condition gets the plain
  // entries, whose files are not in the bundle: each says what to do.
  it.each(['cjs', 'esm'] as const)(
    'a %s bundle of the plain entries says why it cannot hash and what to do',
    async (format) => {
      const ext = format === 'cjs' ? 'cjs' : 'mjs';
      const sources = {
        main:
          format === 'cjs'
            ? `require('blake3-kit').init().then(() => console.log('loaded'), (error) => console.log(error.message));`
            : `import { init } from 'blake3-kit';\ntry { await init(); console.log('loaded'); } catch (error) { console.log(error.message); }`,
        compat:
          format === 'cjs'
            ? `const { hash } = require('blake3-kit/compat');\ntry { hash('abc'); console.log('loaded'); } catch (error) { console.log(error.message); }`
            : `import { hash } from 'blake3-kit/compat';\ntry { hash('abc'); console.log('loaded'); } catch (error) { console.log(error.message); }`,
      };
      for (const [kind, text] of Object.entries(sources)) {
        const source = `plain-${kind}.${ext}`;
        writeFileSync(join(project, source), text);
        const out = join(project, 'out', `plain-${kind}-${format}.${ext}`);
        // Custom conditions replace esbuild's default ones, `module` among them.
        await build({
          absWorkingDir: project,
          entryPoints: [source],
          bundle: true,
          platform: 'node',
          format,
          outfile: out,
          conditions: ['none'],
          logLevel: 'silent',
        });
        const copy = join(alone, out.split('/').pop()!);
        copyFileSync(out, copy);
        const run = spawnSync(process.execPath, [copy], { cwd: alone, encoding: 'utf8', timeout: 30_000 });
        expect(run.status, run.stderr).toBe(0);
        expect(run.stdout, `${kind} ${format}`).toMatch(/wasm files are not beside this code.*add 'module' to its conditions.*blake3-kit\/inline/s);
        if (kind === 'compat') expect(run.stdout).toMatch(/^blake3-kit\/compat: the backend failed to load at import: /);
      }
    },
    60_000,
  );
});
