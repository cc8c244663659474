// Cloudflare wrangler's static-asset hashing, byte for byte, with
// blake3-kit/compat in place of blake3-wasm. The function is wrangler's own,
// from cloudflare/workers-sdk: packages/wrangler/src/pages/hash.ts at
// bfcfa14 (contentAndTypeHashFile; assets.ts hashes every asset of the
// manifest with it), `blake3hash(base64(contents) + extension)
// .toString('hex').slice(0, 32)` with `import { hash as blake3hash } from
// 'blake3-wasm'`. The newest wrangler re-exports hashFile from
// packages/deploy-helpers/src/deploy/helpers/hash.ts, the same formula over
// hash-wasm's blake3: the digests do not change.
// Each library runs as wrangler runs it: a CommonJS Node process
// (packages/wrangler/scripts/bundle.ts builds wrangler-dist as cjs for
// platform node), with a deadline; blake3-kit from the packed tarballs in
// fresh projects, without the platform package (wasm) and, on x86-64 Linux,
// with it (as npm installs it: large files go to the native addon). Then
// the compat entry's workerd build, run by workerd, on the corpus up to 1 MiB.
import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { consumerProject, packAll, root, runInWorkerd } from './packed.js';

// wrangler's hashFile verbatim, then the manifest walk of its assets.ts
// (readdir recursive, files only), printed as JSON with `backend`'s value.
const manifestScript = (library: string, backend: string) => `const { readFileSync, readdirSync, statSync } = require('node:fs');
const { extname, join } = require('node:path');
const { hash: blake3hash } = require('${library}');
const hashFile = (filepath) => {
  const contents = readFileSync(filepath);
  const base64Contents = contents.toString('base64');
  const extension = extname(filepath).substring(1);
  return blake3hash(base64Contents + extension).toString('hex').slice(0, 32);
};
const dir = process.argv[2];
const manifest = {};
for (const relative of readdirSync(dir, { recursive: true }).sort()) {
  const filepath = join(dir, relative);
  if (!statSync(filepath).isDirectory()) manifest[relative] = hashFile(filepath);
}
process.stdout.write(JSON.stringify({ manifest, backend: ${backend} }));
`;
// The compat entry shares the main entry's state: which backend answered.
const BACKEND = "require('blake3-kit').backendStatus().backend";

/** Deterministic bytes, different for each seed. */
function bytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x;
  }
  return out;
}

const EXTENSIONS = ['js', 'css', 'wasm', 'html', 'txt', ''];
const name = (stem: string, ext: string) => (ext === '' ? stem : `${stem}.${ext}`);
// File sizes at BLAKE3's block (64 B) and chunk (1 KiB) boundaries, and at
// 4 KiB and 16 KiB (the SIMD degree's worth of chunks).
const SIZES = [0, 1, 63, 64, 65, 1023, 1024, 1025, 2047, 2048, 2049, 4096, 16383, 16384, 16385];
// What BLAKE3 sees is base64(contents) + extension: files sized so that
// string is exactly these lengths (base64 of 3k bytes is 4k characters; the
// extension's length, 0-3, makes up the rest).
const HASHED = [64, 65, 1024, 1025, 2048, 2049, 4096, 4097, 16384, 16385];
const PADDING = ['', 'c', 'js', 'css'];
const TEXT = 'naïve café, Ωμέγα, 日本語のテキスト, emoji 😀🚀, and plain ASCII.\n';
const WORKERD_LIMIT = 1 << 20;

function corpus(): Record<string, Uint8Array> {
  const files: Record<string, Uint8Array> = {};
  SIZES.forEach((size, i) => {
    files[name(`size-${size}`, EXTENSIONS[i % EXTENSIONS.length]!)] = bytes(size, i + 1);
  });
  HASHED.forEach((length, i) => {
    const ext = PADDING[length % 4]!;
    files[name(`hashed-${length}`, ext)] = bytes((3 * (length - ext.length)) / 4, 100 + i);
  });
  const text = (repeat: number) => new TextEncoder().encode(TEXT.repeat(repeat));
  Object.assign(files, {
    'index.html': text(3),
    'notes.txt': text(40),
    'assets/app.min.js': text(200),
    'assets/style.css': bytes(5000, 201),
    'IMG.PNG': bytes(3001, 202),
    LICENSE: text(1),
    '.gitignore': text(2),
    'archive.tar.gz': bytes(70_000, 203),
    'font.woff2': bytes(12_345, 204),
    'module.wasm': bytes(WORKERD_LIMIT, 205),
    'big.bin': bytes(25 << 20, 206),
  });
  return files;
}

const run = promisify(execFile);
type Manifest = { manifest: Record<string, string>; backend?: string; ms: number };
const TRIPLE = 'linux-x64-gnu';
const here = process.platform === 'linux' && process.arch === 'x64';

/** wrangler's manifest of `assets` as `library` hashes it, run from `project`. */
async function manifest(project: string, library: string, assets: string, backend = 'undefined', bundled?: string): Promise<Manifest> {
  const script = join(project, bundled ?? 'wrangler-manifest.cjs');
  if (bundled === undefined) writeFileSync(script, manifestScript(library, backend));
  // No BLAKE3_KIT_* variables: the library picks, as in a user's shell.
  const env = { ...process.env, BLAKE3_KIT_BACKEND: undefined, BLAKE3_KIT_NATIVE_PATH: undefined } as NodeJS.ProcessEnv;
  const started = performance.now();
  const { stdout, stderr } = await run(process.execPath, [script, assets], { cwd: project, env, timeout: 30_000, maxBuffer: 1 << 20 });
  expect(stderr).toBe('');
  return { ...JSON.parse(stdout), ms: Math.round(performance.now() - started) };
}

describe.runIf(inject('flavour') === 'simd')("wrangler's asset hashing with blake3-kit/compat", () => {
  let dir: string;
  let assets: string;
  let files: Record<string, Uint8Array>;
  // Without the platform package (wasm), and with it (native above the routing threshold).
  let projects: Record<string, string>;
  let reference: Promise<Manifest>;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'blake3-kit-wrangler-'));
    assets = join(dir, 'assets');
    files = corpus();
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(assets, path)), { recursive: true });
      writeFileSync(join(assets, path), content);
    }
    // blake3-wasm 2.1.5 as wrangler has it: this repository's copy, linked in.
    const wasm = join(dir, 'reference');
    mkdirSync(join(wasm, 'node_modules'), { recursive: true });
    symlinkSync(join(root, 'node_modules', 'blake3-wasm'), join(wasm, 'node_modules', 'blake3-wasm'), 'dir');
    reference = manifest(wasm, 'blake3-wasm', assets);
    const packed = packAll(dir);
    projects = { 'wasm-simd': consumerProject(dir, 'site', [packed.main]) };
    const native = packed.platforms[TRIPLE]!;
    if (here && native.tarball === undefined) throw new Error(`cannot test blake3-kit-${TRIPLE}: ${native.missing}`);
    if (here) projects['native+wasm-simd'] = consumerProject(dir, 'site-native', [packed.main, native.tarball!]);
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(here ? ['wasm-simd', 'native+wasm-simd'] : ['wasm-simd'])(
    'gives the same manifest as blake3-wasm 2.1.5 for every file, in Node on %s',
    async (backend) => {
      const project = projects[backend]!;
      // The compat entry stands alone: blake3-wasm is not what answers.
      expect(existsSync(join(project, 'node_modules', 'blake3-wasm'))).toBe(false);
      const [expected, actual] = await Promise.all([reference, manifest(project, 'blake3-kit/compat', assets, BACKEND)]);
      expect(actual.backend).toBe(backend);
      expect(Object.keys(expected.manifest).sort()).toEqual(Object.keys(files).sort());
      expect(actual.manifest).toEqual(expected.manifest);
      // Two files with different contents never share a hash here.
      expect(new Set(Object.values(actual.manifest)).size).toBe(Object.keys(files).length);
      const total = Object.values(files).reduce((sum, content) => sum + content.length, 0);
      console.log(
        `wrangler manifest: ${Object.keys(files).length} files, ${total} B; blake3-wasm ${expected.ms} ms, blake3-kit/compat on ${backend} ${actual.ms} ms`,
      );
    },
    60_000,
  );

  it('gives the same hashes in workerd, bundled with the workerd condition', async () => {
    const { manifest: expected } = await reference;
    const small = Object.keys(files).filter((path) => files[path]!.length <= WORKERD_LIMIT);
    // workerd has no Buffer without nodejs_compat: base64 by btoa, and the
    // extension as Node's extname gives it (wrangler runs in Node).
    const index = small.map((path, i) => ({ path, binding: `file${i}`, ext: extname(path).substring(1) }));
    const source = `import { hash } from 'blake3-kit/compat';
const base64 = (bytes) => {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
};
export default {
  async test(controller, env) {
    const manifest = {};
    for (const { path, binding, ext } of JSON.parse(env.INDEX)) {
      manifest[path] = hash(base64(new Uint8Array(env[binding])) + ext).toString('hex').slice(0, 32);
    }
    console.log('MANIFEST ' + JSON.stringify(manifest));
  },
};
`;
    // The bundle's folder is project/out/<name>/: the corpus is two levels up.
    const data = Object.fromEntries(index.map(({ path, binding }) => [binding, join('..', '..', '..', 'assets', path)]));
    const { output, status } = await runInWorkerd(projects['wasm-simd']!, 'wrangler-worker.js', source, {
      data,
      text: { INDEX: JSON.stringify(index) },
    });
    expect(output).toMatch(/\[ PASS \] main/);
    expect(status).toBe(0);
    const printed = /MANIFEST (\{.*\})/.exec(output)?.[1];
    expect(printed, output).toBeDefined();
    const wanted = Object.fromEntries(small.map((path) => [path, expected[path]]));
    expect(JSON.parse(printed!)).toEqual(wanted);
    expect(small.map((path) => files[path]!.length)).toEqual(expect.arrayContaining([0, 1, 1024, 1025, WORKERD_LIMIT]));
  }, 60_000);

  // wrangler bundles its dependencies (workers-sdk CONTRIBUTING, "The
  // Rule"); blake3-wasm is kept external only because it "blows up when
  // bundled" (scripts/deps.ts). blake3-kit/compat bundled the way
  // packages/wrangler/scripts/bundle.ts bundles wrangler-dist: esbuild,
  // platform node, format cjs, minified, with its import.meta.url shim; the
  // one file then runs in a folder with nothing else in it (and, on x86-64
  // Linux, in one where npm installed only the platform package).
  it.each(here ? ['wasm-simd', 'native+wasm-simd'] : ['wasm-simd'])(
    'bundled as wrangler bundles its dependencies, it runs alone and gives the same manifest on %s',
    async (backend) => {
      const project = projects['wasm-simd']!;
      writeFileSync(join(project, 'wrangler-manifest.cjs'), manifestScript('blake3-kit/compat', BACKEND));
      writeFileSync(join(project, 'import_meta_url.js'), "export const import_meta_url = require('node:url').pathToFileURL(__filename);\n");
      const outdir = join(project, 'wrangler-dist');
      await build({
        absWorkingDir: project,
        entryPoints: ['wrangler-manifest.cjs'],
        bundle: true,
        outdir,
        platform: 'node',
        format: 'cjs',
        minify: true,
        sourcemap: true,
        external: ['fsevents', 'esbuild', 'miniflare'],
        inject: [join(project, 'import_meta_url.js')],
        define: { 'import.meta.url': 'import_meta_url' },
        logLevel: 'error',
      });
      expect(readdirSync(outdir).sort()).toEqual(['wrangler-manifest.js', 'wrangler-manifest.js.map']);
      const bundled = join(outdir, 'wrangler-manifest.js');
      const where = join(dir, `alone-${backend.replace(/\W/g, '-')}`);
      mkdirSync(where, { recursive: true });
      if (backend !== 'wasm-simd') {
        const installed = join(projects[backend]!, 'node_modules', `blake3-kit-${TRIPLE}`);
        cpSync(installed, join(where, 'node_modules', `blake3-kit-${TRIPLE}`), { recursive: true });
      }
      copyFileSync(bundled, join(where, 'cli.js'));
      const [expected, actual] = await Promise.all([reference, manifest(where, './cli.js', assets, 'undefined', 'cli.js')]);
      expect(actual.backend).toBe(backend);
      expect(actual.manifest).toEqual(expected.manifest);
      const bytes = readFileSync(bundled);
      console.log(
        `wrangler-style bundle with blake3-kit/compat: ${bytes.length} B, ${gzipSync(bytes, { level: 9 }).length} B gzip; ${backend} ${actual.ms} ms`,
      );
    },
    60_000,
  );

  it("gives PR #14334's golden asset name, synchronously, in the bundle", async () => {
    const project = projects['wasm-simd']!;
    writeFileSync(
      join(project, 'golden.cjs'),
      "const { hash } = require('blake3-kit/compat');\nconsole.log(hash(Buffer.from('test file content').toString('base64') + 'js').toString('hex').slice(0, 32));\n",
    );
    const out = join(dir, 'golden', 'golden.js');
    await build({
      absWorkingDir: project,
      entryPoints: ['golden.cjs'],
      bundle: true,
      outfile: out,
      platform: 'node',
      format: 'cjs',
      minify: true,
      logLevel: 'error',
    });
    const { stdout } = await run(process.execPath, [out], { cwd: dirname(out), timeout: 30_000 });
    expect(stdout.trim()).toBe('b41bdcbc16962c4e5d7e14d7c9103695');
  }, 60_000);
});
