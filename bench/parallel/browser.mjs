// Parallel hashing in Debian's headless Chromium: worker speedups at 16 and
// 256 MiB on a cross-origin isolated page (shared pieces) and a plain one
// (transferred pieces), and hashBlob on a 256 MiB File picked from disk,
// with the peak resident growth of each kind of Chromium process, against reading
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

/** Chromium's processes by kind (`--type=renderer`, `gpu-process`, …;
 * the browser process has none). The page and its dedicated workers share
 * one renderer process; a File's bytes are read by the browser process. */
function chromiumProcesses() {
  const processes = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      // Chromium rewrites its children's command lines as one string.
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmdline.startsWith('/usr/lib/chromium/chromium')) continue;
      const kind = /--utility-sub-type=(\S+)/.exec(cmdline)?.[1] ?? /--type=(\S+)/.exec(cmdline)?.[1] ?? 'browser';
      processes.push({ pid, type: kind });
    } catch {
      // the process ended meanwhile
    }
  }
  return processes;
}

/** A process's resident memory now and at its peak (VmHWM), in bytes. */
function residentOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kB = (field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { now: kB('VmRSS'), peak: kB('VmHWM') };
}

/**
 * Runs `task` and returns each kind of Chromium process's peak resident
 * growth over it, in MiB: the kernel's own high-water mark (reset through
 * clear_refs before), not samples, so no peak falls between two reads.
 */
async function peakGrowth(task) {
  const processes = chromiumProcesses();
  const base = new Map();
  for (const { pid } of processes) {
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
      base.set(pid, residentOf(pid).now);
    } catch {
      // the process ended, or the peak can't be reset (not our process)
    }
  }
  const result = await task();
  const growth = {};
  for (const { pid, type } of processes) {
    if (!base.has(pid)) continue;
    try {
      growth[type] = (growth[type] ?? 0) + (residentOf(pid).peak - base.get(pid)) / MiB;
    } catch {
      // the process ended meanwhile
    }
  }
  return { result, growth };
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
      const { result, growth } = await peakGrowth(() => page.evaluate(([r, s]) => window.bench.blob(r, s), [runs, blobSettings]));
      report.blob = result;
      // The renderer holds the page's and its workers' buffers; the browser
      // process reads the File for them.
      report.blob.peakGrowthMiB = growth;
      report.blob.peakRssGrowthMiB = Object.values(growth).reduce((a, b) => a + b, 0);
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
