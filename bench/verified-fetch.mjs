// verifiedFetch against a plain fetch() of the same bytes, in the stock
// browsers (Debian's Chromium, Firefox ESR, WebKitGTK's MiniBrowser): 256 MiB
// from a node:http server on 127.0.0.1, each body read to its end on the
// page. Issue #35 holds verifiedFetch to >= 0.8x the plain fetch's rate and
// <= 64 MiB of peak resident growth of the browser's processes.
//
//   node bench/verified-fetch.mjs [--browser chromium|firefox|webkit|all] [--mib 256] [--runs 5]
//
// Rows, alternating plain and verified run by run after one untimed run of
// each (medians of the timed ones; the ratio is of the medians, in one run):
//   fetch     fetch('/content'), the body read to its end
//   verified  verifiedFetch('/content', { hash, outboard, chunkLog: 4 }), the
//             outboard given as bytes (as a Service Worker keeps it), so one
//             request of 16 KiB (the size's proof) goes before the body
//   bao       the same with the bao crate's outboard (chunkLog 0, 1/16 of
//             the content): one subtree of 256 KiB checked per call either way
// Before any timing, one verified read is hashed on the page and must give
// the content's hash. Peak growth: the kernel's high-water mark of each of
// the browser's processes over one run of each row (parallel/processes.mjs).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { launchDriver } from './lib/browser-runner.mjs';
import { ensureBenchDeps, repoDir } from './lib/build.mjs';
import { makeInput } from './lib/data.mjs';
import { fmtRatio, MiB, mdTable } from './lib/format.mjs';
import { fileStamp, infoLines, runInfo, writeResults } from './lib/record.mjs';
import { median } from './lib/timing.mjs';
import { peakGrowth } from './parallel/processes.mjs';

const BROWSERS = ['chromium', 'firefox', 'webkit'];
const option = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const which = option('--browser', 'all');
if (which !== 'all' && !BROWSERS.includes(which)) throw new Error(`--browser: ${which}? (${BROWSERS.join(', ')} or all)`);
const mib = Number(option('--mib', '256'));
const runs = Number(option('--runs', '5'));

ensureBenchDeps();
const b3 = await import(join(repoDir, 'dist', 'bao-node.js'));
await b3.init();
const content = makeInput(mib * MiB);
const tree = b3.baoTreeOutboard(content, { chunkLog: 4 });
const bao = b3.baoEncode(content, { outboard: true });
const hashHex = b3.toHex(tree.hash);

const PAGE = `<!doctype html><meta charset="utf-8"><title>verifiedFetch bench</title><script type="module">
import { init, verifiedFetch, createHasher, toHex } from '/repo/dist/bao-browser.js';
await init();
const bytes = async (path) => new Uint8Array(await (await fetch(path)).arrayBuffer());
const outboards = { verified: await bytes('/outboard'), bao: await bytes('/bao-outboard') };
const hash = ${JSON.stringify(hashHex)}.match(/../g).map((h) => parseInt(h, 16));
/** Reads a body to its end; with a hasher, hashes it too. */
async function drain(body, hasher) {
  const reader = body.getReader();
  let length = 0;
  for (let step = await reader.read(); !step.done; step = await reader.read()) {
    length += step.value.length;
    hasher?.update(step.value);
  }
  return length;
}
const open = (row) =>
  row === 'fetch'
    ? fetch('/content')
    : verifiedFetch('/content', { hash: new Uint8Array(hash), outboard: outboards[row], ...(row === 'verified' ? { chunkLog: 4 } : {}) });
window.bench = {
  async about() {
    return { userAgent: navigator.userAgent };
  },
  async check(row) {
    const hasher = createHasher();
    const length = await drain((await open(row)).body, hasher);
    return { length, digest: toHex(hasher.digest()) };
  },
  async run(row) {
    const started = performance.now();
    const length = await drain((await open(row)).body);
    return { length, ms: performance.now() - started };
  },
};
</script>`;

const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm' };
/** The page, the package as built, the content (Range honoured) and both outboards. */
function serve() {
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    const headers = { 'Cache-Control': 'no-store' };
    if (path === '/') return response.writeHead(200, { ...headers, 'Content-Type': 'text/html' }).end(PAGE);
    if (path === '/outboard') return response.writeHead(200, headers).end(tree.outboard);
    if (path === '/bao-outboard') return response.writeHead(200, headers).end(bao.encoding);
    if (path === '/content') {
      const asked = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
      const first = asked ? Number(asked[1]) : 0;
      const end = asked && asked[2] !== '' ? Math.min(content.length, Number(asked[2]) + 1) : content.length;
      const range = asked ? { 'Content-Range': `bytes ${first}-${end - 1}/${content.length}` } : {};
      response.writeHead(asked ? 206 : 200, { ...headers, ...range, 'Content-Length': end - first, 'Content-Type': 'application/octet-stream' });
      // 1 MiB writes as the socket takes them: no copy of the content per request.
      let at = first;
      const more = () => {
        while (at < end) {
          const piece = content.subarray(at, Math.min(end, at + MiB));
          at += piece.length;
          if (!response.write(piece)) return void response.once('drain', more);
        }
        response.end();
      };
      return more();
    }
    if (path.startsWith('/repo/')) {
      const file = normalize(join(repoDir, path.slice('/repo/'.length)));
      if (file.startsWith(join(repoDir, 'dist')) || file.startsWith(join(repoDir, 'wasm'))) {
        try {
          return response.writeHead(200, { ...headers, 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
        } catch {}
      }
    }
    response.writeHead(404).end();
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

const ROWS = ['fetch', 'verified', 'bao'];

async function measure(id, url) {
  const driver = await launchDriver(id);
  try {
    const page = await driver.page(url);
    try {
      const about = await page.call('about');
      // Same bytes first: a verified read hashed on the page gives the content's hash.
      for (const row of ['verified', 'bao']) {
        const { length, digest } = await page.call('check', row);
        if (length !== content.length || digest !== hashHex)
          throw new Error(`${id} ${row}: read ${length} bytes with hash ${digest}, not ${hashHex}`);
      }
      const times = Object.fromEntries(ROWS.map((row) => [row, []]));
      for (const row of ROWS) await page.call('run', row); // warm-up
      for (let i = 0; i < runs; i++) {
        // The order turns each round, so that no row always follows the same one.
        for (const row of [...ROWS.slice(i % ROWS.length), ...ROWS.slice(0, i % ROWS.length)]) {
          const { length, ms } = await page.call('run', row);
          if (length !== content.length) throw new Error(`${id} ${row}: ${length} bytes read`);
          times[row].push(ms);
        }
      }
      const growth = {};
      for (const row of ROWS) {
        const { total, growth: byKind } = await peakGrowth(() => page.call('run', row));
        growth[row] = { total, byKind };
      }
      const rate = (row) => content.length / MiB / (median(times[row]) / 1000);
      return {
        browser: driver.name,
        version: driver.version,
        userAgent: about.userAgent,
        times,
        MiBps: Object.fromEntries(ROWS.map((row) => [row, rate(row)])),
        ratio: { verified: rate('verified') / rate('fetch'), bao: rate('bao') / rate('fetch') },
        peakGrowthMiB: growth,
      };
    } finally {
      await page.close().catch(() => {});
    }
  } finally {
    await driver.close();
  }
}

const info = runInfo('verified-fetch.mjs');
const server = await serve();
const results = {};
try {
  for (const id of which === 'all' ? BROWSERS : [which]) {
    try {
      results[id] = await measure(id, `http://127.0.0.1:${server.address().port}/`);
      console.log(`${id}: ${JSON.stringify({ MiBps: results[id].MiBps, ratio: results[id].ratio })}`);
    } catch (error) {
      results[id] = { error: String(error?.message ?? error).split('\n')[0] };
      console.log(`${id}: failed: ${results[id].error}`);
      process.exitCode = 1;
    }
  }
} finally {
  server.close();
}

const f0 = (x) => (x === undefined ? '–' : x.toFixed(0));
const ok = Object.entries(results).filter(([, r]) => !r.error);
/** The page's own process: where the verifier runs. */
const PAGE_KINDS = ['renderer', 'content tab', 'WebKitWebProcess'];
const pageGrowth = (growth) => Object.entries(growth.byKind).reduce((sum, [kind, mib]) => sum + (PAGE_KINDS.includes(kind) ? mib : 0), 0);
const md = [
  `# verifiedFetch of ${mib} MiB against fetch()`,
  '',
  infoLines(info, [
    '',
    `Medians of ${runs} runs per row, alternating, after a warm-up of each; MiB/s of content, and the ratio to fetch() in the same run.`,
  ]),
  '',
  mdTable(
    ['browser', 'fetch()', 'verifiedFetch, bao-tree chunkLog 4', 'verifiedFetch, Bao outboard'],
    Object.entries(results).map(([id, r]) =>
      r.error
        ? [id, `failed: ${r.error}`, '', '']
        : [
            `${r.browser} ${r.version ?? ''}`.trim(),
            f0(r.MiBps.fetch),
            `${f0(r.MiBps.verified)} (${fmtRatio(r.ratio.verified)})`,
            `${f0(r.MiBps.bao)} (${fmtRatio(r.ratio.bao)})`,
          ],
    ),
  ),
  '',
  "Peak resident growth over one run of each row (MiB): the kernel's high-water mark of each of the browser's processes, summed, and the page's own process alone (where the verifier runs). A plain fetch() grows as much: bodies read and dropped wait for the collector.",
  '',
  mdTable(
    ['browser', 'all, fetch()', 'all, verified', 'all, Bao', 'page, fetch()', 'page, verified', 'page, Bao'],
    ok.map(([, r]) => [
      `${r.browser}`,
      ...['fetch', 'verified', 'bao'].map((row) => f0(r.peakGrowthMiB[row].total)),
      ...['fetch', 'verified', 'bao'].map((row) => f0(pageGrowth(r.peakGrowthMiB[row]))),
    ]),
  ),
  '',
].join('\n');
console.log(md);
console.log(writeResults(`verified-fetch-${fileStamp()}`, 'latest-verified-fetch', { md, json: JSON.stringify({ info, results }, null, 1) }));
