// Peak resident growth of the browser this bench started, by kind of process.
// The browser is found as this Node process's descendants, not by name: the
// machine is shared, and another session's Chromium or Firefox must not count.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { MiB } from '../lib/format.mjs';

/** pid's descendants (WebKitWebDriver -> MiniBrowser -> WebKitWebProcess …),
 * from every process's parent in /proc/<pid>/stat: a thread's
 * task/<tid>/children lists only what that thread started, and Firefox
 * starts its content processes from another thread than the main one. */
function descendants(root) {
  const children = new Map();
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      // The parent is the 2nd field after the `(comm)` one, which may hold spaces.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const parent = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
      children.set(parent, [...(children.get(parent) ?? []), pid]);
    } catch {
      // the process ended meanwhile
    }
  }
  const out = [];
  const visit = (pid) => {
    for (const child of children.get(pid) ?? []) {
      out.push(child);
      visit(child);
    }
  };
  visit(String(root));
  return out;
}

/**
 * What a process is, from its command line:
 *   Chromium  --type / --utility-sub-type, else `browser` (it rewrites its
 *             children's command lines as one string, so regexes, not argv);
 *   Firefox   `parent`, or the child type, the last word after -contentproc
 *             (`tab`, `socket`, `rdd`, `utility`, …);
 *   WebKit    the executable's name (MiniBrowser, WebKitWebProcess,
 *             WebKitNetworkProcess, WebKitWebDriver).
 * Xvfb is the display, not the browser: left out.
 */
function kindOf(pid) {
  const line = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  const exe = basename(line.split(' ')[0]);
  if (exe === 'Xvfb') return undefined;
  if (exe.startsWith('chromium')) return /--utility-sub-type=(\S+)/.exec(line)?.[1] ?? /--type=(\S+)/.exec(line)?.[1] ?? 'browser';
  if (exe.startsWith('firefox')) return line.includes(' -contentproc') ? `content ${line.split(' ').at(-1)}` : 'parent';
  return exe;
}

function browserProcesses() {
  const out = [];
  for (const pid of descendants(process.pid)) {
    try {
      const kind = kindOf(pid);
      if (kind) out.push({ pid, kind });
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/** A process's resident memory now and at its peak (VmHWM), in bytes. */
function residentOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kB = (field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { now: kB('VmRSS'), peak: kB('VmHWM') };
}

/**
 * Runs `task` and returns each kind of browser process's peak resident
 * growth over it, in MiB: the kernel's own high-water mark (reset through
 * clear_refs before), not samples, so no peak falls between two reads.
 * A process started during the task counts from zero.
 */
export async function peakGrowth(task) {
  const base = new Map();
  const seen = new Set();
  for (const { pid } of browserProcesses()) {
    seen.add(pid);
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
      base.set(pid, residentOf(pid).now);
    } catch {
      // the process ended, or its peak can't be reset (then it is not counted)
    }
  }
  const result = await task();
  const growth = {};
  const processes = [];
  for (const { pid, kind } of browserProcesses()) {
    if (seen.has(pid) && !base.has(pid)) continue;
    try {
      const { peak } = residentOf(pid);
      // The peak restarts at the resident size when clear_refs is written,
      // which may sit a page above the base read just after: never below 0.
      growth[kind] = (growth[kind] ?? 0) + Math.max(0, peak - (base.get(pid) ?? 0)) / MiB;
      processes.push({ pid: Number(pid), kind, startMiB: base.has(pid) ? base.get(pid) / MiB : 'started during the task', peakMiB: peak / MiB });
    } catch {
      // the process ended meanwhile
    }
  }
  return { result, growth, processes, total: Object.values(growth).reduce((a, b) => a + b, 0) };
}
