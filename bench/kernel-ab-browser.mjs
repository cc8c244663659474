// kernel-ab.mjs's A/B in the three stock browsers (V8, SpiderMonkey,
// JavaScriptCore): each wasm module's hash path (one-shot up to 64 KiB, a
// hasher fed 64 KiB pieces beyond) timed in alternating rounds in one page,
// medians in MB/s and ratios to the first module. A kernel change must win
// in every engine, or be chosen per engine.
//
//   node bench/kernel-ab-browser.mjs A.wasm B.wasm#code=4 [C.wasm ...] [--browser chromium|firefox|webkit|all]
//                                    [--rounds 15] [--sizes 4096,65536,1048576]
import { copyFileSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { inIsolatedPages } from './lib/browser-runner.mjs';
import { benchDir } from './lib/build.mjs';
import { sizeLabel } from './lib/format.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    browser: { type: 'string', default: 'all' },
    rounds: { type: 'string', default: '15' },
    sizes: { type: 'string', default: '4096,16384,65536,1048576' },
  },
});
if (positionals.length < 2) {
  console.error('usage: node bench/kernel-ab-browser.mjs A.wasm B.wasm ... [--browser all] [--rounds N] [--sizes a,b]');
  process.exit(2);
}
// Served from the repository: the modules are copied under bench/.build/.
const served = join(benchDir, '.build', 'kernel-ab');
mkdirSync(served, { recursive: true });
// A module given as FILE#code=N runs with those kernel code bits set.
const urls = positionals.map((given, k) => {
  const [path, code] = given.split('#');
  const name = `${String.fromCharCode(65 + k)}-${basename(path)}`;
  copyFileSync(path, join(served, name));
  return `/bench/.build/kernel-ab/${name}${code ? `#${code}` : ''}`;
});
const sizes = values.sizes.split(',').map(Number);
const browsers = values.browser === 'all' ? ['chromium', 'firefox', 'webkit'] : [values.browser];
await inIsolatedPages(browsers, '/bench/kernel-ab-page.html', async (page, driver) => {
  const rows = await page.call('run', { urls, sizes, rounds: Number(values.rounds) });
  console.log(`\n${driver.name} ${driver.version}, one page, ${values.rounds} alternating rounds per size; MB/s medians, then ratios to A`);
  for (const [k, path] of positionals.entries()) console.log(`  ${String.fromCharCode(65 + k)}: ${basename(path)}`);
  for (const [size, ...rates] of rows) {
    const ratios = rates.slice(1).map((rate) => (rate / rates[0]).toFixed(2));
    console.log([sizeLabel(size).padEnd(8), ...rates.map((rate) => rate.toFixed(0).padStart(6)), ...ratios.map((r) => r.padStart(6))].join(' '));
  }
});
