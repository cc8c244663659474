// The first hashParallel of a page against the first hash() of another,
// 64 MiB, each in its own fresh page, alternating, in the stock browsers:
// issue #36's "first call >= 1.0x one thread". More pages than the full
// bench's 5 (single cold calls ranged 42-64 ms in one Chromium), and
// variants that show where a first call's time goes.
//
//   node bench/parallel/first-call.mjs [--browser chromium|firefox|webkit|all] [--pages 7] [--variants all]
//
// Variants: 'first call' and 'first hash()' (always); with --variants all
// also each after the SIMD module's block probe has ended ('… after the
// probe'), and a first call in one piece ('one piece': what yielding to the
// page between pieces costs).
import { openBrowser } from '../lib/browser-runner.mjs';
import { buildBrowserBundle } from '../lib/build.mjs';
import { computeExpected } from '../lib/expected.mjs';

const option = (name, otherwise) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : otherwise;
};
const BROWSERS = ['chromium', 'firefox', 'webkit'];
const which = option('--browser', 'chromium');
const browsers = which === 'all' ? BROWSERS : [which];
if (!browsers.every((b) => BROWSERS.includes(b))) throw new Error(`--browser: ${which}? (${BROWSERS.join(', ')} or all)`);
const pages = Number(option('--pages', '7'));
const size = 64 * 2 ** 20;
const variants = [
  ['first call', {}],
  ['first hash()', { serialOnly: true }],
];
if (option('--variants', '') === 'all') {
  variants.push(
    ['first call after the probe', { probeFirst: true }],
    ['first hash() after the probe', { serialOnly: true, probeFirst: true }],
    ['first call, one piece', { settings: { pieceLength: size } }],
  );
}

await buildBrowserBundle();
const expected = Object.values(await computeExpected([{ algo: 'blake3' }], [{ mode: 'oneshot', size }]))[0];
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
for (const id of browsers) {
  const browser = await openBrowser(id);
  const times = new Map(variants.map(([name]) => [name, []]));
  try {
    for (let page = 0; page < pages; page++) {
      for (const [name, job] of variants) {
        const result = await browser.parallel({ size, runs: 1, expected, ...job });
        if (result.error) throw new Error(`${id}, ${name}: ${result.error}`);
        times.get(name).push(result.coldMs);
      }
    }
    console.log(`\n${browser.name} ${browser.version}: 64 MiB, ms, median of ${pages} fresh pages`);
    const yardstick = median(times.get('first hash()'));
    for (const [name, ms] of times) {
      const ratio = name.includes('call') ? ` (${(yardstick / median(ms)).toFixed(2)}x the first hash())` : '';
      console.log(`  ${name.padEnd(30)} ${median(ms).toFixed(1).padStart(6)}${ratio}   [${ms.map((x) => x.toFixed(0)).join(' ')}]`);
    }
  } finally {
    await browser.close();
  }
}
