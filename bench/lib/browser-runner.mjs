// The Chromium side: a local server with COOP/COEP (so the page is
// cross-origin isolated and gets the finer timer), Debian's Chromium driven by
// playwright-core, a fresh browser context + page per implementation.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { benchDir, buildDir, repoDir } from './build.mjs';
import { progress } from './progress.mjs';
import { median } from './timing.mjs';
import { CHROMIUM_ARGS as FLAGS, CHROMIUM_PATH as CHROMIUM } from '../../scripts/chromium.mjs';

const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html', '.map': 'application/json' };
const PAGE = '<!doctype html><meta charset="utf-8"><title>blake3-kit bench</title><script type="module" src="/build/harness.js"></script>';

// URL prefix -> directory. Only these are served.
const ROOTS = [
  ['/build/', buildDir],
  ['/repo/dist/', join(repoDir, 'dist')],
  ['/repo/wasm/', join(repoDir, 'wasm')],
  ['/reference/', join(benchDir, 'reference', 'pkg')],
];

function startServer() {
  const server = createServer(async (req, res) => {
    const headers = {
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cross-Origin-Resource-Policy': 'same-origin',
      'Cache-Control': 'no-store',
    };
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (path === '/') {
      res.writeHead(200, { ...headers, 'Content-Type': 'text/html' }).end(PAGE);
      return;
    }
    for (const [prefix, dir] of ROOTS) {
      if (!path.startsWith(prefix)) continue;
      const file = normalize(join(dir, path.slice(prefix.length)));
      if (!file.startsWith(dir)) break;
      try {
        const body = await readFile(file);
        res.writeHead(200, { ...headers, 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
      } catch {
        break;
      }
      return;
    }
    res.writeHead(404, headers).end('not found');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export async function openBrowser() {
  const { chromium } = await import('playwright-core');
  const server = await startServer();
  const origin = `http://127.0.0.1:${server.address().port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });

  async function freshPage() {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => window.bench !== undefined, null, { timeout: 30_000 });
    return { context, page, errors };
  }

  return {
    version: browser.version(),
    async info() {
      const { context, page } = await freshPage();
      const info = await page.evaluate(() => window.bench.info());
      await context.close();
      return info;
    },

    /** Cells for one implementation; a fresh page after any cell that threw. */
    async measure(impl, cells, expected, profile) {
      const results = new Array(cells.length);
      const show = progress(impl.name, cells);
      let start = 0;
      let loadError;
      while (start < cells.length) {
        const { context, page } = await freshPage();
        let last = start - 1;
        await page.exposeFunction('benchReport', (index, result) => {
          results[index] = result;
          show.cell(index, result);
          last = index;
        });
        try {
          const out = await page.evaluate((arg) => window.bench.run(arg), { name: impl.name, cells, expected, profile, start });
          if (out.loadError) {
            loadError = out.loadError;
            break;
          }
          start = out.stoppedAt === -1 ? cells.length : out.stoppedAt + 1;
        } catch (error) {
          // The page crashed (out of memory, say): that cell failed.
          const failed = { status: 'failed', error: `page died: ${String(error.message ?? error).split('\n')[0]}` };
          if (last + 1 < cells.length) {
            results[last + 1] = failed;
            show.cell(last + 1, failed);
          }
          start = last + 2;
        } finally {
          await context.close().catch(() => {});
        }
      }
      show.done();
      if (loadError) console.log(`  ${impl.name.padEnd(24)} failed to load: ${loadError}`);
      return { cells: results, loadError };
    },

    async cold(impl, runs) {
      const times = [];
      for (let i = 0; i < runs; i++) {
        const { context, page } = await freshPage();
        const r = await page.evaluate((name) => window.bench.cold(name), impl.name).catch((e) => ({ error: String(e) }));
        await context.close();
        if (r.error) return { error: r.error, runs: times };
        times.push(r.ms);
      }
      return { runs: times, medianMs: median(times) };
    },

    async close() {
      await browser.close();
      server.close();
    },
  };
}
