// Parallel hashing in Debian's headless Chromium: worker speedups at 16 and
// 256 MiB on a cross-origin isolated page (shared pieces) and a plain one
// (transferred pieces), and hashBlob on a 256 MiB File picked from disk,
// with the peak resident memory of all Chromium processes, against reading
// the same File every way (one reader, several, stream(), workers).
//
//   node bench/parallel/browser.mjs [--quick] [--blob-only]   (after `node scripts/setup.mjs`)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright';
import { serve } from '../../examples/serve.mjs';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../scripts/chromium.mjs';
import { MiB } from '../lib/format.mjs';
import { resultsDir } from '../lib/record.mjs';

const quick = process.argv.includes('--quick');
const runs = quick ? 3 : 5;
// Only the File rows: hashBlob, its memory and the read limits.
const blobOnly = process.argv.includes('--blob-only');
// configureParallel() settings for the hashBlob row, as JSON: --blob-settings '{"workers":4}'.
const settingsAt = process.argv.indexOf('--blob-settings');
const blobSettings = settingsAt > 0 ? JSON.parse(process.argv[settingsAt + 1]) : {};

/** Resident memory of every chromium process, in bytes. */
function chromiumRss() {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('chromium')) continue;
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (match) total += Number(match[1]) * 1024;
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

const report = { machine: { chromium: execFileSync(CHROMIUM_PATH, ['--version'], { encoding: 'utf8' }).trim(), date: new Date().toISOString(), command: `node bench/parallel/browser.mjs${quick ? ' --quick' : ''}` }, speedups: [], blob: undefined };
const dir = mkdtempSync(join(tmpdir(), 'blake3-kit-pbench-'));
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
try {
  for (const isolated of blobOnly ? [true] : [true, false]) {
    const server = await serve({ isolated });
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/bench/parallel/page.html`);
    await page.waitForFunction(() => window.ready === true);
    const cores = await page.evaluate(() => window.bench.cores);
    const counts = [...new Set([1, 2, cores])];
    for (const mib of blobOnly ? [] : quick ? [16] : [16, 256]) {
      const row = await page.evaluate(([m, c, r]) => window.bench.speedups(m, c, r), [mib, counts, runs]);
      report.speedups.push(row);
      console.log(JSON.stringify(row));
    }
    if (isolated) {
      const mib = quick ? 64 : 256;
      const path = join(dir, 'file.bin');
      const bytes = Buffer.alloc(mib * MiB);
      for (let i = 0; i < bytes.length; i++) bytes[i] = i % 251;
      writeFileSync(path, bytes);
      await page.setInputFiles('#file', path);
      const base = chromiumRss();
      let peak = base;
      const sampler = setInterval(() => (peak = Math.max(peak, chromiumRss())), 20);
      report.blob = await page.evaluate(([r, s]) => window.bench.blob(r, s), [runs, blobSettings]);
      clearInterval(sampler);
      report.blob.peakRssGrowthMiB = (peak - base) / MiB;
      // Reading only, the same File: the limits hashBlob is held to.
      report.blob.readLimits = await page.evaluate((r) => window.bench.readLimits(r), runs);
      report.blob.fastestRead = Math.max(...Object.values(report.blob.readLimits));
      report.blob.ratioToFastestRead = report.blob.MBs / report.blob.fastestRead;
      const memory = await page.evaluate(([m, r]) => window.bench.inMemory(m, r), [mib, runs]);
      report.blob.inMemoryMBs = memory.MBs;
      report.blob.ratio = report.blob.MBs / memory.MBs;
      report.blob.sameDigest = memory.digest === report.blob.digest;
      console.log(JSON.stringify(report.blob));
    }
    await page.close();
    server.close();
  }
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
writeFileSync(join(resultsDir, 'parallel-chromium.json'), JSON.stringify(report, null, 2));
