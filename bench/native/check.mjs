// `blake3-kit --check` against `b3sum --check` on a checkfile of many small
// files: a backup manifest's shape.
//
//   node bench/native/check.mjs [--lines 100000] [--runs 5] [--dir /tmp] [--keep]
//
// Makes --lines files in a new directory under --dir (sizes 8 B to 8 KiB,
// log-uniform: 1.2 KB on average; 1000 per subdirectory), has `b3sum` write
// the checkfile (absolute paths), and deletes it all at the end (--keep
// leaves it and prints where it is). Before any timing, the two commands'
// stdout, stderr and exit status must be equal byte for byte on the
// checkfile, with --quiet, and on a damaged copy (wrong hashes, missing
// files, malformed lines; with and without --quiet). Then --runs pairs
// of runs, by wall clock around spawnSync, stdout to a pipe as in a shell:
//   b3sum --check SUMS   vs   node bin/blake3-kit.cjs --check SUMS
// (which goes first alternates). A run's time includes process start (about
// 1 ms for b3sum, 40-70 ms for Node). The table gives medians and the
// median of the pair ratios (ours ÷ b3sum: lower is better, target ≤ 2).
import { spawnSync } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoDir } from '../lib/build.mjs';
import { fmtRatio, mdTable } from '../lib/format.mjs';
import { infoLines, runInfo, writeNativeResults } from '../lib/record.mjs';
import { median } from '../lib/timing.mjs';

const { values: args } = parseArgs({
  options: {
    lines: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '5' },
    dir: { type: 'string', default: tmpdir() },
    keep: { type: 'boolean', default: false },
  },
});
const count = Number(args.lines);
const runs = Number(args.runs);
const env = { ...process.env, PATH: `${join(homedir(), '.cargo', 'bin')}:${process.env.PATH}`, RUST_BACKTRACE: '0' };
const cli = join(repoDir, 'bin', 'blake3-kit.cjs');
const PER_DIR = 1000;

const info = runInfo('native/check.mjs');
const b3sumVersion = spawnSync('b3sum', ['--version'], { env, encoding: 'utf8' }).stdout?.trim();
if (!b3sumVersion) throw new Error('b3sum not found (node scripts/setup.mjs --test installs it into ~/.cargo/bin)');

const root = mkdtempSync(join(args.dir, 'blake3-kit-check-'));
const sums = join(root, 'sums');
const damaged = join(root, 'sums-damaged');
const cleanup = () => args.keep || rmSync(root, { recursive: true, force: true });
process.on('SIGINT', () => (cleanup(), process.exit(130)));

/** The files, and b3sum's checkfile of them. */
function makeFixture() {
  const pool = randomFillSync(Buffer.allocUnsafe(1 << 20));
  const paths = [];
  let seed = 1;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let i = 0; i < count; i++) {
    const sub = join(root, 'f', String(Math.floor(i / PER_DIR)).padStart(4, '0'));
    if (i % PER_DIR === 0) mkdirSync(sub, { recursive: true });
    const size = Math.floor(2 ** (3 + 10 * random()));
    const offset = Math.floor(random() * (pool.length - size));
    const path = join(sub, `${i}.bin`);
    writeFileSync(path, pool.subarray(offset, offset + size));
    paths.push(path);
  }
  const out = [];
  for (let i = 0; i < paths.length; i += 5000) {
    const r = spawnSync('b3sum', paths.slice(i, i + 5000), { env, maxBuffer: 1 << 30 });
    if (r.status !== 0) throw new Error(`b3sum failed: ${r.stderr}`);
    out.push(r.stdout);
  }
  writeFileSync(sums, Buffer.concat(out));
}

/** A copy of the checkfile with wrong hashes (every 1000th line), missing
 * files (every 1777th) and malformed lines (every 2500th); the files stay
 * as they are, so a kept fixture can be timed again. */
function damage() {
  const lines = readFileSync(sums, 'latin1').split('\n');
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i];
    if (i % 1000 === 999) lines[i] = `${line[0] === '0' ? '1' : '0'}${line.slice(1)}`;
    if (i % 1777 === 1776) lines[i] = `${line}.missing`;
    if (i % 2500 === 2499) lines[i] = line.slice(2);
  }
  writeFileSync(damaged, lines.join('\n'), 'latin1');
}

function run(command, argv) {
  const t0 = performance.now();
  const r = spawnSync(command, argv, { env, maxBuffer: 1 << 30 });
  const ms = performance.now() - t0;
  if (r.error) throw r.error;
  return { ms, status: r.status, stdout: r.stdout, stderr: r.stderr.toString('latin1') };
}

const ours = (argv) => run(process.execPath, [cli, ...argv]);
const theirs = (argv) => run('b3sum', argv);

/** Both commands on `argv`: stdout, stderr (names swapped) and status equal. */
function same(argv) {
  const a = ours(argv);
  const b = theirs(argv);
  const diffs = [];
  if (!a.stdout.equals(b.stdout)) diffs.push('stdout');
  if (a.stderr !== b.stderr.replaceAll('b3sum:', 'blake3-kit:')) diffs.push('stderr');
  if (a.status !== b.status) diffs.push(`status (${a.status} vs ${b.status})`);
  if (diffs.length > 0) throw new Error(`--check differs from b3sum on ${argv.join(' ')}: ${diffs.join(', ')}`);
  return `\`${argv.join(' ').replace(root, '$DIR')}\`: exit ${a.status}, ${a.stdout.length} B stdout, ${a.stderr.length} B stderr`;
}

const times = { b3sum: [], ours: [], ratio: [] };
let sameRows;
try {
  console.log(`check: ${count} files in ${root}`);
  makeFixture();
  // Untimed once each (the page cache, Node's compile cache), compared.
  sameRows = [same(['--check', sums]), same(['--check', '--quiet', sums])];
  console.log(`check: ${b3sumVersion}; outputs equal; ${runs} pairs of runs`);
  for (let r = 0; r < runs; r++) {
    const argv = ['--check', sums];
    let a;
    let b;
    if (r % 2) (a = ours(argv)), (b = theirs(argv));
    else (b = theirs(argv)), (a = ours(argv));
    if (a.status !== 0 || b.status !== 0) throw new Error(`exit ${a.status} (ours), ${b.status} (b3sum): ${a.stderr.slice(-300)}`);
    times.ours.push(a.ms);
    times.b3sum.push(b.ms);
    times.ratio.push(a.ms / b.ms);
    process.stdout.write(`\r  run ${r + 1}/${runs}`);
  }
  process.stdout.write('\n');
  damage();
  sameRows.push(same(['--check', damaged]), same(['--check', '--quiet', damaged]));
} finally {
  cleanup();
}
if (args.keep) console.log(`check: kept ${root}`);

const med = { b3sum: median(times.b3sum), ours: median(times.ours), ratio: median(times.ratio) };
const table = mdTable(
  ['lines', 'b3sum ms', 'blake3-kit ms', 'µs per line (b3sum / ours)', '**ours ÷ b3sum** (median of pairs)'],
  [[count.toLocaleString('en-US'), med.b3sum.toFixed(0), med.ours.toFixed(0), `${((med.b3sum * 1e3) / count).toFixed(1)} / ${((med.ours * 1e3) / count).toFixed(1)}`, fmtRatio(med.ratio)]],
);
const md = [
  '# `--check` vs `b3sum --check`',
  '',
  infoLines(info, [
    '',
    `${b3sumVersion} (~/.cargo/bin). ${count} files of 8 B-8 KiB (log-uniform) in ${args.dir}, in the page cache; ` +
      `the checkfile written by b3sum. Medians of ${runs} pairs, wall time in ms, process start included; stdout to a pipe.`,
  ]),
  '',
  table,
  '',
  'Equal byte for byte before timing (stdout, stderr, exit status):',
  '',
  ...sameRows.map((row) => `- ${row}`),
  '',
].join('\n');
console.log(`\n${md}`);
console.log(`check: wrote ${writeNativeResults('check', md, { ...info, b3sumVersion, count, runs, medianMs: med, timesMs: times })}`);
