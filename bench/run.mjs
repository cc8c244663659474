// The benchmark: every BLAKE3 package we could install, the official crate
// built plainly as a reference, and blake3-kit (simd and scalar), in Node and
// in real Chromium. See bench/README.md.
//
//   npm run bench                       full run, Node then Chromium
//   npm run bench -- --quick            1-2 minute smoke run
//   npm run bench -- --node | --browser one runtime only
//   npm run bench -- --only kit,noble   implementations whose name contains one of these
//   npm run bench -- --no-setup         don't run scripts/setup.mjs (use the existing build)
//   npm run bench -- --render F.json    rewrite F.md and F.svg from a results JSON (no measuring)
//
// Writes bench/results/<runtime>-<date>.{md,json,svg} and copies a full run
// to bench/results/latest-<runtime>.* (quick or --only runs: latest-<runtime>-partial.*).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchDir, buildBrowserBundle, buildStamp, ensureBenchDeps, ensureReference, ensureRepoBuild, repoDir } from './lib/build.mjs';
import { sizeLabel } from './lib/format.mjs';
import { commandLine, fileStamp, gitCommit as commitOf, loadavg, machineFacts, writeResults } from './lib/record.mjs';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    node: { type: 'boolean', default: false },
    browser: { type: 'boolean', default: false },
    only: { type: 'string', multiple: true, default: [] },
    'no-setup': { type: 'boolean', default: false },
    render: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) {
  const head = readFileSync(new URL(import.meta.url), 'utf8').split('\n');
  console.log(
    head
      .slice(
        0,
        head.findIndex((l) => !l.startsWith('//')),
      )
      .join('\n')
      .replace(/^\/\/ ?/gm, ''),
  );
  process.exit(0);
}
if (args.render) {
  const { writeOutputs } = await import('./lib/report.mjs');
  const { findImpl } = await import('./lib/impls.mjs');
  const data = JSON.parse(readFileSync(args.render, 'utf8'));
  delete data.ratios;
  for (const row of data.impls) row.native ??= findImpl(row.name)?.native === true;
  const out = writeOutputs(data);
  for (const ext of ['md', 'svg']) writeFileSync(args.render.replace(/\.json$/, `.${ext}`), out[ext]);
  writeFileSync(args.render, out.json);
  console.log(`bench: rendered ${args.render.replace(/\.json$/, '.{md,svg}')}`);
  process.exit(0);
}

const runNode = args.node || !args.browser;
const runBrowser = args.browser || !args.node;
const only = args.only
  .flatMap((o) => o.split(','))
  .map((o) => o.trim())
  .filter(Boolean);

ensureBenchDeps();
ensureRepoBuild({ browser: runBrowser, skip: args['no-setup'] });
ensureReference();
if (runBrowser) await buildBrowserBundle();

const { PROFILES, cellsFor } = await import('./lib/config.mjs');
const { implsFor, IMPLS } = await import('./lib/impls.mjs');
const { computeExpected } = await import('./lib/expected.mjs');
const { measureNode, coldNode } = await import('./lib/node-runner.mjs');
const { measurePayload } = await import('./lib/payload.mjs');
const { writeOutputs, ratios } = await import('./lib/report.mjs');

const profileName = args.quick ? 'quick' : 'full';
const profile = PROFILES[profileName];
const partial = args.quick || only.length > 0;
const cells = cellsFor(profile.sizes);
const date = new Date();
const stamp = fileStamp(date);
const command = commandLine('run.mjs');
const gitCommit = commitOf();
const build = buildStamp();
const kitVersion = JSON.parse(readFileSync(join(repoDir, 'package.json'), 'utf8')).version;
const machine = {
  ...machineFacts(),
  v8: process.versions.v8,
  note: os.cpus().length <= 2 ? 'A shared 2-core machine (other jobs were running): expect run-to-run noise of 10-50%.' : undefined,
};

function versionOf(impl) {
  if (impl.group === 'kit') return `${kitVersion} (${gitCommit})`;
  if (impl.group === 'reference') return 'blake3 =1.8.7, wasm-bindgen =0.2.130';
  if (impl.pkg === 'node:crypto') return `Node ${process.versions.node} (OpenSSL ${process.versions.openssl})`;
  if (impl.pkg === 'crypto.subtle') return 'built in';
  try {
    return JSON.parse(readFileSync(join(benchDir, 'node_modules', impl.pkg, 'package.json'), 'utf8')).version;
  } catch {
    return 'not installed';
  }
}

const NOTES = [
  '63-byte streaming stops at 1 MiB (more would take minutes for the slow rows without telling anything new).',
  '@awasm/noble is not in the npm registry (404), so it has no row.',
  'blake3-wasm 3.0.0 installs only with an npm override pointing @c4312/blake3-internal 2.1.7 at 3.0.0 (bench/package.json).',
];

console.log(`bench: ${profileName} profile, ${cells.length} cells per implementation; machine ${machine.cpu}, ${machine.cores} cores`);
const payload = await measurePayload();
const selected = IMPLS.filter((i) => (runNode && implsFor('node', only).includes(i)) || (runBrowser && implsFor('browser', only).includes(i)));
console.log('bench: expected digests from the official crate, cross-checked with @noble/hashes');
const expected = await computeExpected(selected, cells);

const written = [];

async function runtime(name, label, impls, measure, cold, extra = {}) {
  console.log(`\nbench: ${label}: ${impls.length} implementations`);
  const rows = [];
  for (const impl of impls) {
    const r = await measure(impl, cells, expected, profile);
    const c = await cold(impl, profile.coldRuns);
    console.log(`  ${impl.name.padEnd(24)} cold start ${c.error ? `failed: ${c.error}` : `${c.medianMs.toFixed(1)} ms`}`);
    rows.push({
      name: impl.name,
      group: impl.group,
      native: impl.native === true,
      algo: impl.algo,
      pkg: impl.pkg,
      version: versionOf(impl),
      ...r,
      cold: c,
    });
  }
  const data = {
    runtime: name,
    loadavgAtEnd: loadavg(),
    runtimeLabel: label,
    date: date.toISOString(),
    command,
    profileName,
    profile,
    partial,
    machine,
    gitCommit,
    build,
    buildAtEnd: buildStamp(),
    kitVersion,
    cells,
    impls: rows,
    payload,
    notes: NOTES,
    ...extra,
  };
  const base = `${name}-${partial ? 'partial-' : ''}${stamp}`;
  const latest = `latest-${name}${partial ? '-partial' : ''}`;
  // The raw data first, so a bug in the rendering can never lose a run
  // (--render redoes the rest from it).
  writeResults(base, latest, { json: JSON.stringify(data, null, 1) });
  const { md, json, svg } = writeOutputs(data);
  written.push(writeResults(base, latest, { md, json, svg }));
  summary(data);
}

function summary(data) {
  const r = ratios(data);
  for (const [label, key] of [
    ['blake3-kit (default) ÷ best peer', 'defaultVsBestPeer'],
    ['blake3-kit simd ÷ best peer', 'simdVsBestPeer'],
  ]) {
    if (!Object.values(r).some((rows) => rows.some((x) => x[key] !== undefined))) continue;
    console.log(`\n${data.runtimeLabel}: ${label}`);
    for (const [mode, rows] of Object.entries(r)) {
      console.log(`  ${mode.padEnd(12)} ${rows.map((x) => `${sizeLabel(x.size)} ${x[key] ? x[key].toFixed(2) : '–'}`).join('  ')}`);
    }
  }
}

if (runNode) {
  await runtime('node', `Node ${process.versions.node}`, implsFor('node', only), measureNode, coldNode);
}
if (runBrowser) {
  const { openBrowser } = await import('./lib/browser-runner.mjs');
  const browser = await openBrowser();
  try {
    const info = await browser.info();
    if (!info.crossOriginIsolated) console.log('bench: warning: the page is not cross-origin isolated');
    await runtime(
      'chromium',
      `Chromium ${browser.version}`,
      implsFor('browser', only),
      (impl, c, e, p) => browser.measure(impl, c, e, p),
      (impl, runs) => browser.cold(impl, runs),
      { browserVersion: browser.version, userAgent: info.userAgent, crossOriginIsolated: info.crossOriginIsolated },
    );
  } finally {
    await browser.close();
  }
}

/** Runs one of the focused benches as its own process and keeps its
 * markdown: hashMany and Bao against hash() (Node), hashBlob against the
 * File read limits (Chromium). Skipped for --only runs. */
function focused(name, script, args) {
  console.log(`\nbench: ${name}: node bench/${script} ${args.join(' ')}`);
  try {
    const out = execFileSync(process.execPath, [join(benchDir, script), ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 1 << 26,
    });
    console.log(out);
    written.push(
      writeResults(`${name}-${partial ? 'partial-' : ''}${stamp}`, `latest-${name}${partial ? '-partial' : ''}`, { md: `${command}\n\n${out}` }),
    );
  } catch (error) {
    console.log(`bench: ${name} failed: ${error.message}`);
  }
}
if (only.length === 0) {
  if (runNode) {
    for (const backend of ['auto', 'native', 'wasm-simd']) focused(`many-${backend}`, 'many.mjs', ['--backend', backend]);
    focused('bao', 'bao.mjs', ['--sizes', args.quick ? '1' : '1,64']);
  }
  if (runBrowser) focused('blob-chromium', 'parallel/browser.mjs', ['--blob-only', ...(args.quick ? ['--quick'] : [])]);
}

console.log('\nbench: payload (gzip bytes: JS + wasm)');
for (const p of payload) console.log(`  ${p.name.padEnd(36)} ${p.error ? `failed: ${p.error}` : `${p.jsGzip} + ${p.wasmGzip} = ${p.totalGzip}`}`);
console.log(`\nbench: wrote\n  ${written.join('\n  ')}`);
