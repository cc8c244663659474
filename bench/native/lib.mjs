// Shared by the native-backend benchmarks (bench/native/*.mjs): separate
// blake3-kit instances per backend, batch timing, machine facts, markdown
// tables and the result files.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildStamp } from '../lib/build.mjs';

export const repoDir = fileURLToPath(new URL('../../', import.meta.url));
export const benchDir = fileURLToPath(new URL('../', import.meta.url));
const distNode = pathToFileURL(join(repoDir, 'dist', 'node.js')).href;

export const KiB = 1024;
export const MiB = 1024 * KiB;

/** What each init({ backend }) must end up as; anything else is an error
 * (an `auto` that silently fell back to wasm would measure the wrong thing). */
const EXPECTED_BACKEND = { native: 'native', auto: 'native+wasm-simd', 'wasm-simd': 'wasm-simd', 'wasm-scalar': 'wasm-scalar' };

/**
 * A blake3-kit instance of its own, initialised with `backend`. The query
 * string makes each URL a separate ES module instance (own wasm memory, own
 * routing state); the addon is a CommonJS require and so is shared by all.
 */
export async function loadKit(backend) {
  const mod = await import(`${distNode}?${backend}`);
  let b3;
  try {
    b3 = await mod.init({ backend });
  } catch (error) {
    const cause = error?.cause?.cause ?? error?.cause;
    throw new Error(`blake3-kit: init({ backend: '${backend}' }) failed: ${error.message}${cause ? ` (${cause.message ?? cause})` : ''}`);
  }
  if (b3.backend !== EXPECTED_BACKEND[backend]) {
    const why = mod.nativeStatus?.().error;
    throw new Error(`blake3-kit: init({ backend: '${backend}' }) gave ${b3.backend}${why ? `: ${why.message} (${why.cause?.message})` : ''}`);
  }
  return { mod, b3 };
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// Results go here so no call can be optimised away.
export let sink;

/** ms for k calls of fn. */
export function timeBatch(fn, k) {
  const t0 = performance.now();
  for (let i = 0; i < k; i++) sink = fn();
  return performance.now() - t0;
}

/** Calls per batch so that one batch takes about `ms` (also warms fn up). */
export function calibrate(fn, ms) {
  let k = 1;
  for (;;) {
    const t = Math.min(timeBatch(fn, k), timeBatch(fn, k));
    if (t >= ms / 2 || k >= 1 << 24) return k;
    k = t < ms / 16 ? k * 8 : Math.max(k + 1, Math.ceil((k * ms) / Math.max(t, 1e-3)));
  }
}

/** ms for k calls of an async fn. */
export async function timeBatchAsync(fn, k) {
  const t0 = performance.now();
  for (let i = 0; i < k; i++) sink = await fn();
  return performance.now() - t0;
}

export async function calibrateAsync(fn, ms) {
  let k = 1;
  for (;;) {
    const t = Math.min(await timeBatchAsync(fn, k), await timeBatchAsync(fn, k));
    if (t >= ms / 2 || k >= 1 << 20) return k;
    k = t < ms / 16 ? k * 8 : Math.max(k + 1, Math.ceil((k * ms) / Math.max(t, 1e-3)));
  }
}

/** The official test-vector pattern: byte i is i % 251. */
export function makeInput(size) {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = i % 251;
  return out;
}

export function toHex(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

export function sizeLabel(size) {
  if (size >= MiB && size % MiB === 0) return `${size / MiB} MiB`;
  if (size >= KiB && size % KiB === 0) return `${size / KiB} KiB`;
  if (size >= KiB && (2 * size) % KiB === 0) return `${size / KiB} KiB`;
  if (size > KiB && (size + 1) % KiB === 0) return `${(size + 1) / KiB} KiB − 1`;
  return `${size} B`;
}

export const fmtRate = (mbps) => (mbps >= 100 ? Math.round(mbps).toLocaleString('en-US') : mbps.toFixed(1));
export const fmtRatio = (r) => (r === undefined || !Number.isFinite(r) ? '–' : `${r.toFixed(2)}×`);

export function mdTable(head, rows, align) {
  const a = align ?? head.map((_, i) => (i === 0 ? '---' : '---:'));
  return [`| ${head.join(' | ')} |`, `|${a.join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

function git(...args) {
  try {
    return execFileSync('git', args, { cwd: repoDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '?';
  }
}

/** Machine, versions and commit: written next to every number. */
export function runInfo(script) {
  const dirty = git('status', '--porcelain', '--', 'src', 'crate');
  return {
    date: new Date().toISOString(),
    command: `node bench/native/${script}${process.argv.length > 2 ? ` ${process.argv.slice(2).join(' ')}` : ''}`,
    gitCommit: `${git('rev-parse', '--short', 'HEAD')}${dirty ? ' (+ uncommitted changes in src/ or crate/)' : ''}`,
    build: buildStamp(),
    machine: {
      cpu: os.cpus()[0]?.model.trim() ?? '?',
      cores: os.cpus().length,
      memGiB: Math.round(os.totalmem() / 2 ** 30),
      os: `${os.type()} ${os.release()} ${os.arch()}`,
      node: process.versions.node,
      loadavgAtStart: os.loadavg().map((x) => +x.toFixed(2)),
    },
  };
}

export function infoLines(info, extra = []) {
  const m = info.machine;
  info.buildAtEnd = buildStamp();
  const changed = info.buildAtEnd !== info.build ? ` **The build changed during the run (${info.build} → ${info.buildAtEnd}): the numbers may mix two builds.**` : '';
  return [
    `${info.date} · \`${info.command}\` · blake3-kit at ${info.gitCommit}, build ${info.build}.${changed}`,
    '',
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memGiB} GiB, ${m.os}; Node ${m.node}. ` +
      `Load average (1/5/15 min) ${m.loadavgAtStart.join(' ')} at the start, ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} at the end. ` +
      (m.cores <= 2 ? 'A shared 2-core machine: expect noise of 10-50% in single cells; the ratios come from the same run.' : ''),
    ...extra,
  ].join('\n');
}

/** Writes bench/results/native-<name>-<date>.{md,json} and latest-native-<name>.*. */
export function writeResults(name, md, json) {
  const dir = join(benchDir, 'results');
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().slice(0, 16).replace(/[:T]/g, '-');
  const base = join(dir, `native-${name}-${stamp}`);
  writeFileSync(`${base}.md`, md);
  writeFileSync(`${base}.json`, JSON.stringify(json, null, 1));
  for (const ext of ['md', 'json']) copyFileSync(`${base}.${ext}`, join(dir, `latest-native-${name}.${ext}`));
  return `bench/results/native-${name}-${stamp}.{md,json} (and latest-native-${name}.*)`;
}
