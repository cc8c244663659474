// The built package as users get it: dist/ through the exports map, from ESM
// and from CommonJS require() (Node >= 20.19 loads ESM without top-level await).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { load } from '../shared/setup.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const ABC = '6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85';
const node = (flag: string, code: string) => execFileSync(process.execPath, [flag, code], { cwd: root, encoding: 'utf8' }).trim();

describe('package', () => {
  it('loads with require() from CommonJS', () => {
    const code = `const b3 = require('blake3-kit');
      b3.init().then((api) => console.log(api.backend, b3.toHex(api.hash('abc')), typeof b3.createHasher));`;
    expect(node('-e', code)).toBe(`wasm-simd ${ABC} function`);
  });

  it('hashes on workers after blake3-kit/compat loaded the backend at import', () => {
    // The compat entry's synchronous load records the module for workers,
    // as init() does: without it hashParallel stayed on this thread.
    const code = `import { hash } from 'blake3-kit/compat';
      import { hashParallel, startWorkers, parallelStatus, backend, toHex } from 'blake3-kit';
      hash('abc');
      await startWorkers();
      const digest = toHex(await hashParallel(new Uint8Array(16 << 20).fill(7)));
      const { workers, jobs } = parallelStatus();
      console.log(backend(), workers > 0, jobs > 0, digest === toHex(hash(new Uint8Array(16 << 20).fill(7))));
      process.exit(0);`;
    // A script file: workers inherit execArgv, and Node starts none with
    // --input-type. One per process: the simd and scalar projects run this
    // file at the same time.
    const script = join(root, 'dist', `compat-workers-probe-${process.pid}.mjs`);
    writeFileSync(script, code);
    let run: ReturnType<typeof spawnSync>;
    try {
      run = spawnSync(process.execPath, [script], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    } finally {
      rmSync(script);
    }
    expect(`${run.stdout}`.trim(), `${run.stderr}`).toBe('wasm-simd true true true');
  });

  it("settles a script's top-level `await startWorkers()` before the process can exit", () => {
    // The pool unrefs idle workers. It once unref'd all of them while the
    // warm-up jobs start() had queued still waited (each worker busy with
    // the pool's own warm-up piece): Node then exits with code 13, the
    // promise unsettled, in 1 run of ~5. Six runs here.
    const script = join(root, 'dist', `start-workers-probe-${process.pid}.mjs`);
    writeFileSync(script, "import { init, startWorkers } from 'blake3-kit';\nawait init();\nawait startWorkers();\nconsole.log('started');\n");
    try {
      for (let run = 0; run < 6; run++) {
        const child = spawnSync(process.execPath, [script], { cwd: root, encoding: 'utf8', timeout: 30_000 });
        expect({ status: child.status, stdout: child.stdout.trim() }, child.stderr).toEqual({ status: 0, stdout: 'started' });
      }
    } finally {
      rmSync(script);
    }
  });

  it('loads with import from ESM through the node condition', () => {
    const code = `import { init, toHex } from 'blake3-kit';
      const api = await init({ flavour: 'scalar' }); console.log(api.backend, toHex(api.hash('abc')));`;
    expect(execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' }).trim()).toBe(`wasm-scalar ${ABC}`);
  });

  it('maps the browser condition to the fetch-based entries and ships types and every wasm file', () => {
    const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'));
    // Each condition its own types (test/node/types.test.ts checks them in consumers).
    for (const [path, prefix] of [
      ['.', ''],
      ['./bao', 'bao-'],
    ] as const) {
      expect(pkg.exports[path]).toMatchObject({
        browser: { types: `./dist/${prefix}browser.d.ts`, default: `./dist/${prefix}browser.js` },
        node: { types: `./dist/${prefix}node.d.ts`, default: `./dist/${prefix}node.js` },
        default: { types: `./dist/${prefix}browser.d.ts`, default: `./dist/${prefix}browser.js` },
      });
    }
    // For resolvers that ignore "exports": "browser" for those that honour it
    // (Parcel's default config), "main" for the rest, which are Node-like.
    expect(pkg).toMatchObject({ main: './dist/node.js', browser: './dist/browser.js', types: './dist/node.d.ts' });
    // Each browser entry with the shared chunks it imports (dist/shared-*.js),
    // where the literal URLs that bundlers rewrite may have gone.
    const withChunks = (entry: string) => {
      const code = readFileSync(`${root}/dist/${entry}`, 'utf8');
      const reached = [...code.matchAll(/from"\.\/(shared-[\w-]+\.js)"/g)].map(([, chunk]) => chunk);
      expect(reached.length).toBeGreaterThan(0);
      return [code, ...reached.map((chunk) => readFileSync(`${root}/dist/${chunk}`, 'utf8'))];
    };
    const url = (file: string) => new RegExp(`new URL\\(["']\\.\\./wasm/${file.replaceAll('.', '\\.')}["'], ?import\\.meta\\.url\\)`);
    // Every browser entry fetches the same module of each flavour, by one
    // literal URL in one chunk: a bundle of two entries carries one.
    for (const entry of ['browser.js', 'bao-browser.js', 'compat-browser.js']) {
      const code = withChunks(entry);
      for (const flavour of ['simd', 'scalar']) expect(code.some((c) => url(`blake3-kit-${flavour}.wasm`).test(c))).toBe(true);
      expect(code.some((c) => /blake3-kit-hash-/.test(c))).toBe(false);
      // Neither the entry nor its chunks reach Node or evaluate code.
      for (const c of code) expect(c).not.toMatch(/node:|eval\(|new Function/);
    }
    const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: root, encoding: 'utf8' }));
    const files: string[] = packed[0].files.map((f: { path: string }) => f.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'wasm/blake3-kit-simd.wasm',
        'wasm/blake3-kit-scalar.wasm',
        'dist/node.js',
        'dist/browser.js',
        'dist/browser.d.ts',
        'dist/node.d.ts',
        'dist/bao-node.js',
        'dist/bao-browser.js',
        'dist/bao-browser.d.ts',
        'dist/bao-node.d.ts',
        'dist/bao-workerd.js',
        'dist/bao-edge-light.js',
      ]),
    );
    // The addon ships in its platform's package (test/node/install.test.ts).
    expect(files.some((f) => f.startsWith('crate/') || f.startsWith('test/') || f.startsWith('src/') || f.endsWith('.node'))).toBe(false);
  });
});

it('lets a bundler drop what a page does not use, per entry: JS and wasm a page downloads', async () => {
  // Minified by the consumer, as bench/lib/payload.mjs does. esbuild's
  // keepNames once made dist/browser.js side-effectful: 5.3 KB gzip became
  // 11.7 KB. `export { init }` was 5.8 KB before init() gained its
  // known-answer test, the single-block probe and backendStatus().
  const { build } = await import('esbuild');
  const { gzipSync } = await import('node:zlib');
  const gzip = (bytes: Uint8Array) => gzipSync(bytes, { level: 9 }).length;
  const jsGzip = async (names: string, file: string) => {
    const out = await build({
      stdin: { contents: `export { ${names} } from ${JSON.stringify(`${root}/dist/${file}`)};`, resolveDir: root },
      bundle: true,
      minify: true,
      format: 'esm',
      target: 'es2022',
      platform: 'browser',
      write: false,
      logLevel: 'silent',
    });
    return gzip(out.outputFiles[0]!.contents);
  };
  const rows = [
    { entry: 'blake3-kit', names: 'init, hash, createHasher', file: 'browser.js', wasm: 'blake3-kit-simd.wasm' },
    { entry: 'blake3-kit/bao', names: 'init, hash, createHasher, baoEncode, baoDecode', file: 'bao-browser.js', wasm: 'blake3-kit-simd.wasm' },
  ];
  const sizes = [];
  for (const row of rows) {
    const js = await jsGzip(row.names, row.file);
    const wasm = gzip(readFileSync(`${root}/wasm/${row.wasm}`));
    sizes.push(js + wasm);
    console.log(`payload: export { ${row.names} } from '${row.entry}': ${js} B JS + ${wasm} B wasm = ${js + wasm} B gzip`);
  }
  // 7,627 B before saved states; 8,898 with Hasher.save/load (state.ts,
  // the wasm engine's export/import: methods a class cannot shed); 9,447
  // with format v2 (reading v1) and BLAKE3's input limit (the Hasher's room
  // and hasher_room: +739 B of hasher.ts, +364 of wasm/engine.ts, +319 of
  // state.ts, before gzip).
  expect(await jsGzip('init', 'browser.js')).toBeLessThan(9.5 * 1024);
  // Measured 21,673 B (7,633 JS + 14,040 wasm) once the entries split, from
  // 24,042 with one module; 25,450 B (8,908 + 16,542) with saved states:
  // +1,275 B JS, +2,502 B wasm (the state export/import, and the tree
  // keeping the last chunk open so that a state is canonical). The goal of
  // 16 KB is not met. Since both entries load one module of each flavour
  // (20.2 KB gzip for SIMD, where the hashing-only one was 17.1), 29.6 KB:
  // an app that imports both entries downloads 20.2 KB of wasm, not 37.3.
  // 31,028 B with JavaScriptCore's copy of the lanes (+1.4 KB gzip of wasm:
  // Safari and WebKitGTK 1.06-1.07x from 4 KiB, Bun 2.6x); 31,051 B once
  // that copy rotated by shuffles (WebKitGTK 1.13-1.16x).
  expect(sizes[0]).toBeLessThan(31.5 * 1024);
  // The hashing entry is the smaller download (its JS).
  expect(sizes[0]).toBeLessThan(sizes[1]! - 3000);
});

it('ships both licence texts', () => {
  const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: root, encoding: 'utf8' }));
  const files: string[] = packed[0].files.map((f: { path: string }) => f.path);
  expect(files).toEqual(expect.arrayContaining(['LICENSE-MIT', 'LICENSE-APACHE']));
});

it('initialises where reading the environment throws (Deno without --allow-env)', () => {
  // Deno's process.env throws NotCapable on every access without the permission.
  // Node's own module loader reads it too: deny it once the package is loaded.
  const script = `const b3 = await import(${JSON.stringify(`${root}/dist/node.js`)});
    const env = Object.getOwnPropertyDescriptor(process, 'env');
    Object.defineProperty(process, 'env', { configurable: true, get() { throw new Error('NotCapable: Requires env access'); } });
    const api = await b3.init();
    Object.defineProperty(process, 'env', env); // console.log reads it
    console.log(api.backend, b3.toHex(api.hash('abc')));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(run.stdout.trim()).toMatch(/^(native\+)?wasm-simd 6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85$/);
});

it('types a consumer of every entry point with the shipped .d.ts files', () => {
  // Inside the package, so 'blake3-kit' resolves through its own exports map.
  mkdirSync(join(root, 'test-results'), { recursive: true });
  const dir = mkdtempSync(join(root, 'test-results', 'types-'));
  try {
    writeFileSync(
      join(dir, 'consumer.ts'),
      `import { init, hashFile, hashParallel, nativeStatus, HashSink, type Blake3Hasher } from 'blake3-kit';
      const b3 = await init({ backend: 'native' });
      const hasher: Blake3Hasher = b3.createHasher({ key: new Uint8Array(32) }).update('abc');
      const out: Uint8Array = hasher.xof().read(5);
      const digest: Promise<Uint8Array> = hashFile('f', { mmap: true, length: 64, onProgress: (done: number) => done });
      void [out, digest, hashParallel, nativeStatus().error?.cause, new HashSink()];
      // @ts-expect-error: not a backend
      void init({ backend: 'gpu' });\n`,
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          types: ['node'],
          lib: ['ES2022', 'DOM', 'ESNext.Disposable'],
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = join(root, 'node_modules', '.bin', 'tsc');
    const run = spawnSync(tsc, ['-p', dir], { encoding: 'utf8' });
    expect(run.stdout + run.stderr).toBe('');
    expect(run.status).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('inputs from another realm', async () => {
  const b3 = await load();
  it('hashes a Uint8Array, ArrayBuffer and DataView made in a vm context', () => {
    const foreign = runInNewContext(
      '({ bytes: new Uint8Array([97, 98, 99]), buffer: new Uint8Array([97, 98, 99]).buffer, view: new DataView(new Uint8Array([0, 97, 98, 99]).buffer, 1) })',
    );
    expect(foreign.bytes instanceof Uint8Array).toBe(false);
    expect(b3.toHex(b3.hash(foreign.bytes))).toBe(ABC);
    expect(b3.toHex(b3.hash(foreign.buffer))).toBe(ABC);
    expect(b3.toHex(b3.hash(foreign.view))).toBe(ABC);
    expect(b3.toHex(b3.createHasher().update(foreign.bytes).digest())).toBe(ABC);
  });

  it('hashes Node Buffers, including pooled ones with a byteOffset', () => {
    const pooled = Buffer.from('xxabc').subarray(2);
    expect(pooled.byteOffset).toBeGreaterThan(0);
    expect(b3.toHex(b3.hash(pooled))).toBe(ABC);
    expect(b3.toHex(b3.hash(Buffer.from('abc')))).toBe(ABC);
  });
});
