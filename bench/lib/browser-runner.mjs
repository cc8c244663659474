// The browser side: a local server with COOP/COEP (so the page is
// cross-origin isolated and gets the finer timer), one page and bundle
// (bench/browser/harness.mjs) for every browser, and a fresh page per
// implementation. Three drivers, each the one that reaches the stock browser
// installed from Debian without downloading anything:
//   chromium  playwright-core, /usr/bin/chromium (scripts/chromium.mjs flags)
//   firefox   puppeteer-core over WebDriver BiDi, /usr/bin/firefox-esr
//             (playwright's Firefox needs its own patched build)
//   webkit    WebKitWebDriver + MiniBrowser (WebKitGTK) on an Xvfb display,
//             over plain W3C WebDriver HTTP (webdriver-driver.mjs)
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { CHROMIUM_ARGS as FLAGS, CHROMIUM_PATH as CHROMIUM } from '../../scripts/chromium.mjs';
import { benchDir, buildDir, repoDir } from './build.mjs';
import { progress } from './progress.mjs';
import { FIREFOX_PATH } from './runtimes.mjs';
import { median } from './timing.mjs';
import { webkitDriver } from './webkit-driver.mjs';

const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html', '.map': 'application/json' };
const PAGE = '<!doctype html><meta charset="utf-8"><title>blake3-kit bench</title><script type="module" src="/build/harness.js"></script>';
// Long cells (64 MiB in a slow row) take tens of seconds; a driver's own
// default (30 s for WebDriver scripts, 180 s for puppeteer) must not cut them.
const CALL_TIMEOUT_MS = 30 * 60_000;

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

async function chromiumDriver() {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  // The V8 version is not visible to pages; the DevTools protocol has it.
  const cdp = await browser.newBrowserCDPSession();
  const { jsVersion } = await cdp.send('Browser.getVersion');
  await cdp.detach();
  return {
    name: 'Chromium',
    version: browser.version(),
    engine: 'V8',
    engineVersion: jsVersion,
    async page(url) {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(url);
        await page.waitForFunction(() => window.bench !== undefined, null, { timeout: 30_000 });
        return {
          call: (method, arg) => page.evaluate(([m, a]) => window.bench[m](a), [method, arg]),
          // A disk-backed File in <input type=file> (bench/parallel/browser.mjs).
          setFile: (selector, path) => page.setInputFiles(selector, path),
          close: () => context.close(),
        };
      } catch (error) {
        await context.close().catch(() => {});
        throw error;
      }
    },
    close: () => browser.close(),
  };
}

async function firefoxDriver() {
  const { default: puppeteer } = await import('puppeteer-core');
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX_PATH,
    protocol: 'webDriverBiDi',
    headless: true,
    protocolTimeout: CALL_TIMEOUT_MS,
  });
  const version = (await browser.version()).replace(/^firefox\//i, '');
  return {
    name: 'Firefox',
    version,
    engine: 'SpiderMonkey',
    engineVersion: version,
    async page(url) {
      const context = await browser.createBrowserContext();
      try {
        const page = await context.newPage();
        await page.goto(url);
        await page.waitForFunction(() => window.bench !== undefined, { timeout: 30_000 });
        return {
          call: (method, arg) => page.evaluate((m, a) => window.bench[m](a), method, arg),
          // A disk-backed File in <input type=file> (BiDi input.setFiles).
          async setFile(selector, path) {
            const input = await page.$(selector);
            await input.uploadFile(path);
            await input.dispose();
          },
          close: () => context.close(),
        };
      } catch (error) {
        await context.close().catch(() => {});
        throw error;
      }
    },
    async close() {
      const pid = browser.process()?.pid;
      await browser.close().catch(() => pid && process.kill(pid, 'SIGKILL'));
    },
  };
}

const DRIVERS = { chromium: chromiumDriver, firefox: firefoxDriver, webkit: () => webkitDriver(CALL_TIMEOUT_MS) };

/** One browser driver on its own, for benches that serve their own page
 * (bench/parallel/browser.mjs): `page(url)` gives call / setFile / close. */
export const launchDriver = (id) => DRIVERS[id]();

/** The repository served cross-origin isolated (Firefox and WebKit give such
 * pages a fine clock), and `path` opened in each of `browsers` in turn:
 * `use(page, driver)` runs there before the page and browser close. */
export async function inIsolatedPages(browsers, path, use) {
  // Loaded here: the example server imports the package, which the main
  // bench's own process has no need of.
  const { serve } = await import('../../examples/serve.mjs');
  const server = await serve({ isolated: true });
  try {
    for (const id of browsers) {
      const driver = await launchDriver(id);
      try {
        const page = await driver.page(`http://127.0.0.1:${server.address().port}${path}`);
        await use(page, driver);
        await page.close();
      } finally {
        await driver.close();
      }
    }
  } finally {
    server.close();
  }
}

const firstLine = (error) => String(error?.message ?? error).split('\n')[0];

/** `id`: chromium, firefox or webkit. */
export async function openBrowser(id = 'chromium') {
  const server = await startServer();
  const url = `http://127.0.0.1:${server.address().port}/`;
  let driver;
  try {
    driver = await DRIVERS[id]();
  } catch (error) {
    server.close();
    throw error;
  }

  /** `fn(page)` in a fresh page, closed after. */
  async function inPage(fn) {
    const page = await driver.page(url);
    try {
      return await fn(page);
    } finally {
      await page.close().catch(() => {});
    }
  }

  return {
    name: driver.name,
    // WebKit's version is known once a session has started (the first info()).
    get version() {
      return driver.version;
    },
    get engine() {
      return { name: driver.engine, version: driver.engineVersion };
    },
    info: () => inPage((page) => page.call('info')),

    /** Cells for one implementation; a fresh page after any cell that threw. */
    async measure(impl, cells, expected, profile) {
      const results = new Array(cells.length);
      const show = progress(impl.name, cells);
      let page;
      let loadError;
      for (let index = 0; index < cells.length; index++) {
        let result;
        try {
          if (page === undefined) {
            page = await driver.page(url);
            const loaded = await page.call('load', impl.name);
            if (loaded.loadError) {
              loadError = loaded.loadError;
              break;
            }
          }
          result = await page.call('cell', { cell: cells[index], expected, profile });
        } catch (error) {
          // The page or the browser's content process died (out of memory, say).
          result = { status: 'failed', error: `page died: ${firstLine(error)}` };
        }
        results[index] = result;
        show.cell(index, result);
        if (result.status === 'failed' && page !== undefined) {
          await page.close().catch(() => {});
          page = undefined;
        }
      }
      await page?.close().catch(() => {});
      show.done();
      if (loadError) console.log(`  ${impl.name.padEnd(24)} failed to load: ${loadError}`);
      return { cells: results, loadError };
    },

    async cold(impl, runs) {
      const times = [];
      for (let i = 0; i < runs; i++) {
        const r = await inPage((page) => page.call('cold', impl.name)).catch((e) => ({ error: firstLine(e) }));
        if (r.error) return { error: r.error, runs: times };
        times.push(r.ms);
      }
      return { runs: times, medianMs: median(times) };
    },

    parallel: (job) => inPage((page) => page.call('parallel', job)).catch((e) => ({ error: firstLine(e) })),

    async close() {
      await driver.close();
      server.close();
    },
  };
}
