// Bundles each entry point into one minified ES module: dist/node.js and
// dist/browser.js. tsc only writes the .d.ts files (emitDeclarationOnly).
//
// Measured on this machine (Node 20, `import` of the entry, median of 7):
// 11 tsc modules took 5.3 ms to import, the bundle 1.8 ms; for browsers the
// download drops from 7.4 KB to 3.5 KB gzip. esbuild keeps the literal
// `new URL('../wasm/...', import.meta.url)` that bundlers look for.
import { build } from 'esbuild';
import { join } from 'node:path';
import { isMain, main, root } from './lib.mjs';

const common = { bundle: true, format: 'esm', minify: true, sourcemap: true, logLevel: 'warning' };

export async function bundle() {
  await Promise.all([
    build({ ...common, entryPoints: [join(root, 'src/node.ts')], outfile: join(root, 'dist/node.js'), platform: 'node', target: 'node20' }),
    build({ ...common, entryPoints: [join(root, 'src/browser.ts')], outfile: join(root, 'dist/browser.js'), platform: 'browser', target: 'es2022' }),
  ]);
}

if (isMain(import.meta.url)) main(bundle);
