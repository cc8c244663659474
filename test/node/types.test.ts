// The shipped types, from the packed tarball (`npm pack`) in fresh consumer
// projects: the browser/default condition has the browser API only and needs
// no Node types nor lib esnext.disposable; Node resolution (node16, and
// bundler with the `node` condition) has the full Node API. Then publint and
// attw on the same package.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
// @ts-expect-error: a plain .mjs module without types
import { packMain } from '../../scripts/pack.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flavour } from '../shared/setup.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

// Outside the repository, so that no node_modules (nor @types) of ours is
// found by walking up from a consumer.
let work = '';
let tarball = '';

/** A consumer project with the tarball unpacked as node_modules/blake3-kit:
 * what `npm install <tarball>` does for a package without dependencies, with
 * no registry involved. `nodeTypes` links our pinned @types/node in. */
function consumer(name: string, files: Record<string, string>, nodeTypes: boolean): string {
  const dir = join(work, name);
  const pkg = join(dir, 'node_modules', 'blake3-kit');
  mkdirSync(pkg, { recursive: true });
  execFileSync('tar', ['xzf', tarball, '-C', pkg, '--strip-components=1']);
  if (nodeTypes) {
    mkdirSync(join(dir, 'node_modules', '@types'), { recursive: true });
    symlinkSync(join(root, 'node_modules', '@types', 'node'), join(dir, 'node_modules', '@types', 'node'), 'dir');
  }
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

/** Type-checks `file` in `dir` with these compiler options; tsc's output. */
function typeCheck(dir: string, file: string, options: Record<string, unknown>): { status: number | null; output: string } {
  const strict = { strict: true, noEmit: true, skipLibCheck: false, target: 'ES2022' };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...strict, ...options }, files: [file] }));
  const run = spawnSync(bin('tsc'), ['-p', dir], { encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, output: run.stdout + run.stderr };
}

/** The names `spec`'s declarations export, as TypeScript resolves it from
 * the repository (bundler resolution, Node's types): values (functions,
 * classes, constants) apart from types only (interfaces, aliases). */
function declaredNames(spec: string): { values: string[]; types: string[] } {
  // Inside the repository, whose node_modules has both versions.
  const dir = join(root, 'node_modules', '.cache', 'blake3-kit-types-test');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `declared-${process.pid}.ts`);
  writeFileSync(file, `import * as m from ${JSON.stringify(spec)};\nvoid m;\n`);
  try {
    const options = {
      noEmit: true,
      skipLibCheck: true,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      types: ['node'],
    };
    const program = ts.createProgram([file], options);
    const checker = program.getTypeChecker();
    const [statement] = program.getSourceFile(file)!.statements;
    const module = checker.getSymbolAtLocation((statement as ts.ImportDeclaration).moduleSpecifier);
    if (module === undefined) throw new Error(`TypeScript does not resolve ${spec}`);
    const names = { values: [] as string[], types: [] as string[] };
    for (const symbol of checker.getExportsOfModule(module)) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      (target.flags & ts.SymbolFlags.Value ? names.values : names.types).push(symbol.name);
    }
    return names;
  } finally {
    rmSync(file, { force: true });
  }
}

/** A file that imports every name of `lists` from blake3-kit/compat: the
 * values as values (a type-only export of ours fails it), the rest as types. */
function importsOf(lists: { values: string[]; types: string[] }[]): string {
  const values = [...new Set(lists.flatMap((list) => list.values))].sort();
  const types = [...new Set(lists.flatMap((list) => list.types))].sort();
  const local = (name: string) => (name === 'default' ? 'theirDefault' : name);
  return `import { ${values.map((name) => (name === 'default' ? 'default as theirDefault' : name)).join(', ')} } from 'blake3-kit/compat';
import type { ${types.join(', ')} } from 'blake3-kit/compat';
void [${values.map(local).join(', ')}];
`;
}

const browserApp = `import { init, createHasher, Hasher, toHex, hashParallel, hashBlob, hashStream, configureParallel, parallelStatus, terminateWorkers, type Blake3, type InitOptions } from 'blake3-kit';
const options: InitOptions = { flavour: 'scalar' };
const b3: Blake3 = await init(options);
const hasher: Hasher = createHasher({ key: new Uint8Array(32) }).update('abc');
const out: Uint8Array = hasher.xof().read(5);
hasher.dispose();
configureParallel({ workers: 2 });
const digests: Uint8Array[] = [await hashParallel(new Uint8Array(8)), await hashBlob(new Blob(['abc'])), await hashStream(new Blob(['abc']).stream())];
void [toHex(b3.hash('abc')), out, digests, parallelStatus(), terminateWorkers()];
`;

// blake3-kit/bao: content addressing and hashMany, and the hashing API again.
const baoApp = `import { init, hash, baoEncode, baoDecode, baoEncodeParallel, hashMany, cid, type BaoEncoding } from 'blake3-kit/bao';
await init();
const encoded: BaoEncoding = baoEncode('abc');
const content: Uint8Array = baoDecode(encoded.encoding, hash('abc'));
const many: Uint8Array = hashMany(['a', 'b']);
void [content, many, cid(encoded.hash), baoEncodeParallel(new Uint8Array(8))];
`;

// blake3-kit/compat: blake3-wasm's API, as their users call it. Node: Buffers
// and no load() needed; browsers: their Hash (a Uint8Array) after load().
const compatNodeApp = `import { hash, keyedHash, deriveKey, createHash, createKeyed, createDeriveKey, load } from 'blake3-kit/compat';
import { BaseHash, BaseHashReader, NodeHashReader, type IInternalHash, type IInternalReader } from 'blake3-kit/compat';
const name: string = hash(Buffer.from('abc').toString('base64') + '.js').toString('hex').slice(0, 32);
const long: Buffer = hash('abc', { length: 64 });
const mac: Buffer = keyedHash(Buffer.alloc(32), 'abc');
const key: Buffer = deriveKey('app 2026 keys', 'material');
const hex: string = createHash().update('abc', 'utf8').digest('hex');
const reader = createKeyed(Buffer.alloc(32)).update('x').reader();
const position: bigint = reader.position;
const out: Buffer = reader.read(10);
void [name, long, mac, key, hex, position, out, createDeriveKey('c').digest({ length: 8 }), load()];
// 2.x's base classes, as their users subclass and check them.
class Readers extends BaseHashReader<Uint8Array> {
  protected alloc(bytes: number): Uint8Array {
    return new Uint8Array(bytes);
  }
}
const own = (implementation: IInternalHash<IInternalReader>) => new BaseHash(implementation, (n): Uint8Array => new Uint8Array(n), (r: IInternalReader) => new Readers(r));
const based: BaseHashReader<Buffer> = reader;
void [own, based, reader instanceof NodeHashReader];
`;
const compatBrowserApp = `import { load, hash, createHash, Hash } from 'blake3-kit/compat';
import { BaseHash, BaseHashReader, BrowserHashReader, WasmHasher, type IInternalReader } from 'blake3-kit/compat';
await load();
const digest: Hash = hash('abc');
const bytes: Uint8Array = digest;
const hex: string = digest.toString('hex');
const b64: string = createHash().update(new Uint8Array(3)).digest('base64');
void [bytes, hex, b64, digest.equals(hash('abd'))];
// 2.x's base classes and 3.x's WasmHasher, which the browser hasher extends.
const hasher: BaseHash<Hash, IInternalReader, BrowserHashReader> = createHash();
const wasmHasher: WasmHasher<Hash> = createHash();
const reader: BaseHashReader<Hash> = hasher.reader();
void [wasmHasher, reader];
`;

/** Content addressing is not in the hashing entry's types. */
const baoOnly = ['baoEncode', 'baoDecode', 'hashMany', 'cid', 'subtreeChainingValue', 'hashSeq', 'BaoVerifyError', 'baoEncodeParallel'];

/** Each of these names is Node-only: the browser types must not have it. */
const nodeOnly = [
  'hashFile',
  'HashSink',
  'HashTransform',
  'nativeStatus',
  'NativeHasher',
  'nativeThreshold',
  'FileTruncatedError',
  'NativeXofReader',
  'NodeInitOptions',
];

const nodeApp = `import { init, toHex, hashFile, HashSink, HashTransform, nativeStatus, NativeHasher, nativeThreshold, hashParallel, type NodeInitOptions } from 'blake3-kit';
const options: NodeInitOptions = { backend: 'native' };
const b3 = await init(options);
const digest: Promise<Uint8Array> = hashFile('f', { mmap: true, onProgress: (done: number) => done });
const sink: HashSink = new HashSink();
sink.end('abc', 'utf8');
void [toHex(b3.hash('abc')), digest, HashTransform, nativeStatus().error?.cause, NativeHasher, nativeThreshold, hashParallel(new Uint8Array(8))];
// @ts-expect-error: not a backend
void init({ backend: 'gpu' });
`;

// A browser project as users set one up: DOM, no Node types at all.
const browserLib = { lib: ['ES2022', 'DOM'], types: [], module: 'ESNext', moduleResolution: 'bundler' };
// Node projects as users set them up: Node's types, no lib DOM (our types
// stand in for WebAssembly's where the lib has none: src/wasm/types.ts).
const nodeLib = { lib: ['ES2022'], types: ['node'] };

describe.skipIf(flavour !== 'simd')('types from the packed tarball', () => {
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'blake3-kit-types-'));
    tarball = packMain(work);
  }, 60_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('a browser project type-checks with the browser API, without Node types or lib esnext.disposable', () => {
    const dir = consumer(
      'browser',
      {
        'app.ts': browserApp,
        'bao.ts': baoApp,
        'node-only.ts': `import { ${nodeOnly.join(', ')} } from 'blake3-kit';\n`,
        'bao-only.ts': `import { ${baoOnly.join(', ')} } from 'blake3-kit';\n`,
      },
      false,
    );
    const app = typeCheck(dir, 'app.ts', browserLib);
    expect(app.output).toBe('');
    expect(app.status).toBe(0);
    const bao = typeCheck(dir, 'bao.ts', browserLib);
    expect(bao.output).toBe('');
    expect(bao.status).toBe(0);
    writeFileSync(join(dir, 'compat.ts'), compatBrowserApp);
    const compat = typeCheck(dir, 'compat.ts', browserLib);
    expect(compat.output).toBe('');
    expect(compat.status).toBe(0);
    const notInMain = typeCheck(dir, 'bao-only.ts', browserLib);
    for (const name of baoOnly) expect(notInMain.output).toMatch(new RegExp(`has no exported member (named )?'${name}'`));

    // `using` where the consumer's lib has Symbol.dispose: the hasher is Disposable.
    writeFileSync(
      join(dir, 'using.ts'),
      `import { createHasher } from 'blake3-kit';\n{ using h = createHasher(); h.update('abc'); }\nconst d: Disposable = createHasher();\nvoid d;\n`,
    );
    const disposable = typeCheck(dir, 'using.ts', { ...browserLib, lib: ['ES2022', 'DOM', 'ESNext.Disposable'] });
    expect(disposable.output).toBe('');

    const negative = typeCheck(dir, 'node-only.ts', browserLib);
    expect(negative.status).not.toBe(0);
    for (const name of nodeOnly) expect(negative.output).toMatch(new RegExp(`has no exported member (named )?'${name}'`));
    // Only the missing names: nothing in our own .d.ts files fails.
    expect(negative.output).not.toMatch(/node_modules/);
  });

  it('a Node project type-checks with the Node API under node16, bundler (the node condition or blake3-kit/node) and from CommonJS, and with the compat API', () => {
    const cjs = `import b3 = require('blake3-kit');\nconst digest: Promise<Uint8Array> = b3.hashFile('f');\nvoid digest;\n`;
    const dir = consumer('node', { 'package.json': '{ "type": "module" }', 'app.ts': nodeApp, 'bao.ts': baoApp, 'app.cts': cjs }, true);
    const node16 = typeCheck(dir, 'app.ts', { ...nodeLib, module: 'node16', moduleResolution: 'node16' });
    expect(node16.output).toBe('');
    expect(node16.status).toBe(0);
    const bao = typeCheck(dir, 'bao.ts', { ...nodeLib, module: 'node16', moduleResolution: 'node16' });
    expect(bao.output).toBe('');
    expect(bao.status).toBe(0);
    // Bundler resolution knows no platform: the app names the condition its
    // bundler uses (esbuild --platform=node, Vite SSR), as the README says.
    const bundler = typeCheck(dir, 'app.ts', { ...nodeLib, module: 'preserve', moduleResolution: 'bundler', customConditions: ['node'] });
    expect(bundler.output).toBe('');
    expect(bundler.status).toBe(0);
    // Or it imports blake3-kit/node, the Node entry under a plain subpath,
    // which needs no condition.
    writeFileSync(join(dir, 'subpath.ts'), nodeApp.replace("from 'blake3-kit'", "from 'blake3-kit/node'"));
    const subpath = typeCheck(dir, 'subpath.ts', { ...nodeLib, module: 'preserve', moduleResolution: 'bundler' });
    expect(subpath.output).toBe('');
    expect(subpath.status).toBe(0);
    // Without either, bundler resolution takes the default (browser) types.
    const plain = typeCheck(dir, 'app.ts', { ...nodeLib, module: 'preserve', moduleResolution: 'bundler' });
    expect(plain.output).toMatch(/has no exported member (named )?'hashFile'/);
    writeFileSync(join(dir, 'compat.ts'), compatNodeApp);
    const compat = typeCheck(dir, 'compat.ts', { ...nodeLib, module: 'node16', moduleResolution: 'node16' });
    expect(compat.output).toBe('');
    expect(compat.status).toBe(0);
    // blake3-wasm's users require() it: so can they require('blake3-kit/compat').
    writeFileSync(join(dir, 'compat.cts'), "import b3 = require('blake3-kit/compat');\nconst digest: Buffer = b3.hash('abc');\nvoid digest;\n");
    const compatRequired = typeCheck(dir, 'compat.cts', { ...nodeLib, module: 'nodenext', moduleResolution: 'nodenext' });
    expect(compatRequired.output).toBe('');
    expect(compatRequired.status).toBe(0);
    // CommonJS: require() of our ES modules (Node >= 20.19), typed by nodenext.
    const required = typeCheck(dir, 'app.cts', { ...nodeLib, module: 'nodenext', moduleResolution: 'nodenext' });
    expect(required.output).toBe('');
    expect(required.status).toBe(0);
  });

  it("the compat entry declares every name blake3-wasm 2.1.5's and 3.0.0's declarations export, values as values", () => {
    // Node: their main entries' types. Browsers: 2.1.5's blake3-wasm/browser
    // and browser-async, and 3.0.0's "browser" field's (esm/browser).
    const node = [declaredNames('blake3-wasm'), declaredNames('blake3-wasm-3')];
    const browser = [
      declaredNames('blake3-wasm/browser'),
      declaredNames('blake3-wasm/browser-async'),
      declaredNames('blake3-wasm-3/esm/browser/index.js'),
    ];
    // Sanity: the lists are their entries', with the names that went missing.
    expect(node[0]!.values).toContain('BaseHash');
    expect(node[0]!.types).toContain('IInternalHash');
    expect(node[1]!.values).toContain('WasmHasher');
    expect(browser[0]!.values).toContain('BaseHashReader');
    expect(browser[1]!.values).toEqual(['default']);

    const nodeDir = consumer('compat-names-node', { 'package.json': '{ "type": "module" }', 'names.ts': importsOf(node) }, true);
    for (const options of [
      { ...nodeLib, module: 'node16', moduleResolution: 'node16' },
      { ...nodeLib, module: 'preserve', moduleResolution: 'bundler', customConditions: ['node'] },
    ]) {
      const run = typeCheck(nodeDir, 'names.ts', options);
      expect(run.output).toBe('');
      expect(run.status).toBe(0);
    }
    const browserDir = consumer('compat-names-browser', { 'names.ts': importsOf(browser) }, false);
    const run = typeCheck(browserDir, 'names.ts', browserLib);
    expect(run.output).toBe('');
    expect(run.status).toBe(0);
  });

  it('passes publint', () => {
    // --level warning: publint's one suggestion is to drop the top-level
    // "browser" field for the exports condition, which we have too; the field
    // is for resolvers that ignore "exports" (Parcel's default config).
    const run = spawnSync(bin('publint'), ['run', tarball, '--level', 'warning', '--strict'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect(run.stdout + run.stderr).not.toMatch(/warning|error/i);
    expect(run.status).toBe(0);
  });

  it('passes attw under the esm-only profile, run as the docs write it', () => {
    // esm-only: the package ships ES modules only. Node >= 20.19 (our engines)
    // require()s them and TypeScript >= 5.8 types that (module node20/nodenext),
    // but attw's own TypeScript predates require(esm) and flags every CJS
    // resolution. Every subpath is checked, the .wasm files too (typed
    // `unknown` by wasm/file.d.ts).
    const run = spawnSync(bin('attw'), [tarball, '--profile', 'esm-only', '--no-color', '--format', 'ascii'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    // Problems in resolutions the profile ignores (node10 has no subpaths,
    // so blake3-kit/inline can't resolve there) are listed as "(ignored)".
    const problems = (run.stdout + run.stderr).split('\n').filter((line) => !line.includes('(ignored'));
    expect(problems.join('\n'), run.stdout).not.toMatch(/💀|❌|🐛|🥴|❗️|🎭|🤨/u);
    expect(run.status).toBe(0);
  });
});
