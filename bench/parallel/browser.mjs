// Parallel hashing in the stock browsers (Debian's headless Chromium, Firefox
// ESR, WebKitGTK's MiniBrowser): worker speedups at 16 and 256 MiB on a
// cross-origin isolated page (shared pieces) and a plain one (transferred
// pieces), and hashBlob on a 256 MiB File picked from disk through
// <input type=file>, with the peak resident growth of each kind of the
// browser's processes, against reading the same File every way (one reader,
// several, stream(), workers). Issue #22 holds hashBlob to >= 0.85x the
// fastest read and <= 64 MiB peak growth in every browser.
//
//   node bench/parallel/browser.mjs [--quick] [--blob-only] [--browser chromium|firefox|webkit|all]
//                                   [--blob-settings '{"workers":4}']   (after `node scripts/setup.mjs`)
//
// The browsers are reached through bench/lib/browser-runner.mjs's drivers;
// the File is set the way each driver can (playwright setInputFiles,
// puppeteer uploadFile over BiDi, W3C Element Send Keys), never built in the
// page, and the page checks it got the file of the right name and size.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '../../examples/serve.mjs';
import { launchDriver } from '../lib/browser-runner.mjs';
import { MiB } from '../lib/format.mjs';
import { resultsDir } from '../lib/record.mjs';
import { peakGrowth } from './processes.mjs';

const BROWSERS = ['chromium', 'firefox', 'webkit'];
const option = (name) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const quick = process.argv.includes('--quick');
const runs = quick ? 3 : 5;
const fileMiB = quick ? 64 : 256;
// Only the File rows: hashBlob, its memory and the read limits.
const blobOnly = process.argv.includes('--blob-only');
// configureParallel() settings for the hashBlob row, as JSON.
const blobSettings = JSON.parse(option('--blob-settings') ?? '{}');
const which = option('--browser') ?? 'chromium';
if (which !== 'all' && !BROWSERS.includes(which)) throw new Error(`--browser: ${which}? (${BROWSERS.join(', ')} or all)`);
const command = `node ${process.argv
  .slice(1)
  .join(' ')
  .replace(/^.*?bench\//, 'bench/')}`;

/** The speedup rows and the File rows in browser `id`, as one report. */
async function measure(id, filePath) {
  const driver = await launchDriver(id);
  const report = { machine: { browser: driver.name, version: undefined, date: new Date().toISOString(), command }, speedups: [], blob: undefined };
  try {
    for (const isolated of blobOnly ? [true] : [true, false]) {
      const server = await serve({ isolated });
      try {
        const url = `http://127.0.0.1:${server.address().port}/bench/parallel/page.html`;
        const page = await driver.page(url);
        try {
          report.machine.version = driver.version;
          const about = await page.call('about');
          report.machine.userAgent = about.userAgent;
          if (about.isolated !== isolated) throw new Error(`${id}: crossOriginIsolated is ${about.isolated}, expected ${isolated}`);
          const workerCounts = [...new Set([1, 2, about.cores])];
          for (const mib of blobOnly ? [] : quick ? [16] : [16, 256]) {
            const row = await page.call('speedups', { mib, workerCounts, runs });
            report.speedups.push(row);
            console.log(`${id} ${JSON.stringify(row)}`);
          }
          if (isolated) report.blob = await fileRows(page, filePath, () => driver.page(url));
        } finally {
          await page.close().catch(() => {});
        }
      } finally {
        server.close();
      }
    }
  } finally {
    await driver.close();
  }
  console.log(`${id} ${JSON.stringify(report.blob)}`);
  writeFileSync(join(resultsDir, `parallel-${id}.json`), JSON.stringify(report, null, 2));
  return report;
}

/** `page` with the File picked, checked. */
async function pickFile(page, filePath) {
  await page.setFile('#file', filePath);
  const picked = await page.call('picked');
  if (!picked?.isFile || picked.name !== 'file.bin' || picked.size !== fileMiB * MiB)
    throw new Error(`the page did not get ${filePath}: ${JSON.stringify(picked)}`);
  return picked;
}

/** hashBlob's rows in `page`; each way of reading alone in a page of its
 * own from `freshPage()`, so its memory is not what an earlier task left. */
async function fileRows(page, filePath, freshPage) {
  const picked = await pickFile(page, filePath);
  const start = await peakGrowth(() => page.call('startOnly', { settings: blobSettings }));
  const { result: blob, growth, processes, total } = await peakGrowth(() => page.call('blob', { runs, settings: blobSettings }));
  blob.poolStart = { workers: start.result, peakGrowthMiB: start.growth, totalMiB: start.total };
  blob.file = { ...picked, from: 'disk, through <input type=file>' };
  // By kind: where the page and its workers run, and where the File is read.
  blob.peakGrowthMiB = growth;
  blob.peakRssGrowthMiB = total;
  blob.processes = processes;
  const memory = await page.call('inMemory', { mib: fileMiB, runs });
  Object.assign(blob, { inMemoryMBs: memory.MBs, ratio: blob.MBs / memory.MBs, sameDigest: memory.digest === blob.digest });
  // Reading only, the same File: the limits hashBlob is held to, in time
  // and in memory (what the browser itself holds while a page reads).
  blob.readLimits = {};
  blob.readGrowthMiB = {};
  const ways = await page.call('readWays');
  // WebKitWebDriver drives one session at a time: this page goes first.
  await page.close();
  for (const way of ways) {
    const reader = await freshPage();
    try {
      await pickFile(reader, filePath);
      const read = await peakGrowth(() => reader.call('readOne', { way, runs }));
      blob.readLimits[way] = read.result;
      blob.readGrowthMiB[way] = read.total;
    } finally {
      await reader.close().catch(() => {});
    }
  }
  const [fastestWay, fastestRead] = Object.entries(blob.readLimits).sort((a, b) => b[1] - a[1])[0];
  const [leanestWay, leanestGrowth] = Object.entries(blob.readGrowthMiB).sort((a, b) => a[1] - b[1])[0];
  Object.assign(blob, { fastestWay, fastestRead, ratioToFastestRead: blob.MBs / fastestRead, leanestWay, leanestGrowth });
  return blob;
}

const dir = mkdtempSync(join(tmpdir(), 'blake3-kit-pbench-'));
const lines = [];
try {
  // The same bytes as makeInput(), so the in-memory digest must equal the File's.
  const filePath = join(dir, 'file.bin');
  const bytes = Buffer.alloc(fileMiB * MiB);
  for (let i = 0; i < bytes.length; i++) bytes[i] = i % 251;
  writeFileSync(filePath, bytes);
  for (const id of which === 'all' ? BROWSERS : [which]) {
    const started = Date.now();
    try {
      const { machine, blob } = await measure(id, filePath);
      const kinds = Object.entries(blob.peakGrowthMiB)
        .map(([k, v]) => `${k} ${v.toFixed(0)}`)
        .join(', ');
      lines.push(
        `${id} ${machine.version}: hashBlob ${fileMiB} MiB ${blob.MBs.toFixed(0)} MiB/s${blob.sameDigest ? '' : ' DIGEST DIFFERS'}, fastest read ${blob.fastestRead.toFixed(0)} MiB/s (${blob.fastestWay}), ratio ${blob.ratioToFastestRead.toFixed(2)}, peak growth ${blob.peakRssGrowthMiB.toFixed(0)} MiB (${kinds}; reading alone: ${blob.readGrowthMiB[blob.fastestWay].toFixed(0)} MiB the fastest way, ${blob.leanestGrowth.toFixed(0)} MiB the leanest, ${blob.leanestWay}), of which starting ${blob.poolStart.workers} workers ${blob.poolStart.totalMiB.toFixed(0)} MiB, stalled reads ${blob.status?.stalledReads}, jobs ${blob.status?.jobs} [${((Date.now() - started) / 1000).toFixed(0)} s]`,
      );
    } catch (error) {
      lines.push(`${id}: failed: ${String(error?.message ?? error).split('\n')[0]}`);
      process.exitCode = 1;
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(lines.join('\n'));
