// The built package as users get it: dist/ through the exports map, from ESM
// and from CommonJS require() (Node >= 20.19 loads ESM without top-level await).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

  it('loads with import from ESM through the node condition', () => {
    const code = `import { init, toHex } from 'blake3-kit';
      const api = await init({ flavour: 'scalar' }); console.log(api.backend, toHex(api.hash('abc')));`;
    expect(execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' }).trim()).toBe(
      `wasm-scalar ${ABC}`,
    );
  });

  it('maps the browser condition to the fetch-based entry and ships types and both wasm files', () => {
    const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'));
    expect(pkg.exports['.']).toMatchObject({ types: './dist/index.d.ts', browser: './dist/browser.js', node: './dist/node.js' });
    const browserEntry = readFileSync(`${root}/dist/browser.js`, 'utf8');
    expect(browserEntry).toMatch(/new URL\(["']\.\.\/wasm\/blake3-kit-simd\.wasm["'], ?import\.meta\.url\)/);
    expect(browserEntry).toMatch(/new URL\(["']\.\.\/wasm\/blake3-kit-scalar\.wasm["'], ?import\.meta\.url\)/);
    expect(browserEntry).not.toMatch(/node:|eval\(|new Function/);
    expect(readFileSync(`${root}/dist/index.d.ts`, 'utf8')).toContain('init');
    const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: root, encoding: 'utf8' }));
    const files: string[] = packed[0].files.map((f: { path: string }) => f.path);
    expect(files).toEqual(expect.arrayContaining(['wasm/blake3-kit-simd.wasm', 'wasm/blake3-kit-scalar.wasm', 'dist/node.js', 'dist/browser.js', 'dist/index.d.ts']));
    expect(files.some((f) => f.startsWith('crate/') || f.startsWith('test/') || f.startsWith('src/'))).toBe(false);
  });
});

describe('inputs from another realm', async () => {
  const b3 = await load();
  it('hashes a Uint8Array, ArrayBuffer and DataView made in a vm context', () => {
    const foreign = runInNewContext('({ bytes: new Uint8Array([97, 98, 99]), buffer: new Uint8Array([97, 98, 99]).buffer, view: new DataView(new Uint8Array([0, 97, 98, 99]).buffer, 1) })');
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
