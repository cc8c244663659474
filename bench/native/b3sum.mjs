// hashFile() and the CLI against the official b3sum on one large file.
//
//   node bench/native/b3sum.mjs [--size-mib 1024] [--runs 7] [--dir /tmp]   (after `node scripts/setup.mjs`)
//
// Writes a random file of --size-mib MiB in --dir (deleted at the end), reads
// it once untimed so it is in the page cache, and checks every command's
// digest against `b3sum`. Then --runs runs; each times, by wall clock:
//   b3sum F                    vs  node bin/blake3-kit.cjs F                  (all threads, mmap)
//   b3sum --num-threads 1 F    vs  node bin/blake3-kit.cjs --num-threads 1 F
//   b3sum --no-mmap F          vs  node bin/blake3-kit.cjs --no-mmap F         (b3sum: one thread, reads)
// (which of each pair goes first alternates), then in this process, after
// init(), the call alone:
//   hashFile(F) (mapped) and hashFile(F, { mmap: false }), with the default thread count
//   and with configureParallel({ workers: 1 })
// each compared with the b3sum command that hashes the same way. A command's
// time includes its process start (about 1 ms for b3sum, 40-60 ms for Node);
// the in-process rows have none. Ratios are b3sum time ÷ ours (≥ 1: ours is
// as fast or faster). No hyperfine needed: wall time is taken around spawnSync.
import { spawnSync } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { closeSync, existsSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoDir } from '../lib/build.mjs';
import { toHex } from '../lib/data.mjs';
import { fmtRatio, mdTable, MiB } from '../lib/format.mjs';
import { loadKit } from '../lib/kit.mjs';
import { infoLines, runInfo, writeNativeResults } from '../lib/record.mjs';
import { median } from '../lib/timing.mjs';

const { values: args } = parseArgs({
  options: {
    'size-mib': { type: 'string', default: '1024' },
    runs: { type: 'string', default: '7' },
    dir: { type: 'string', default: tmpdir() },
  },
});
const sizeMiB = Number(args['size-mib']);
const runs = Number(args.runs);
const size = sizeMiB * MiB;
const env = { ...process.env, PATH: `${join(homedir(), '.cargo', 'bin')}:${process.env.PATH}` };
const cli = join(repoDir, 'bin', 'blake3-kit.cjs');

const info = runInfo('native/b3sum.mjs');
const b3sumVersion = spawnSync('b3sum', ['--version'], { env, encoding: 'utf8' }).stdout?.trim();
if (!b3sumVersion) throw new Error('b3sum not found (node scripts/setup.mjs --test installs it into ~/.cargo/bin)');
const kit = await loadKit('auto');
const status = kit.mod.nativeStatus();
const defaultThreads = status.threads;

const file = join(args.dir, `blake3-kit-bench-${process.pid}.bin`);
const cleanup = () => existsSync(file) && rmSync(file);
process.on('SIGINT', () => (cleanup(), process.exit(130)));

function writeFile() {
  const piece = randomFillSync(Buffer.allocUnsafe(16 * MiB));
  const fd = openSync(file, 'w');
  try {
    for (let done = 0; done < size; ) {
      const n = Math.min(piece.length, size - done);
      writeSync(fd, piece, 0, n);
      done += n;
      piece[0]++; // not the same 16 MiB over and over
    }
  } finally {
    closeSync(fd);
  }
}

function warm() {
  const buf = Buffer.allocUnsafe(16 * MiB);
  const fd = openSync(file, 'r');
  try {
    while (readSync(fd, buf, 0, buf.length, null) > 0);
  } finally {
    closeSync(fd);
  }
}

/** Wall ms of a command; its output must start with the digest. */
function timed(cmd, argv, digest) {
  const t0 = performance.now();
  const r = spawnSync(cmd, argv, { env, encoding: 'utf8', maxBuffer: 1 << 20 });
  const ms = performance.now() - t0;
  if (r.status !== 0 || !r.stdout.startsWith(digest)) {
    throw new Error(`${cmd} ${argv.join(' ')}: exit ${r.status}, stdout ${JSON.stringify(r.stdout.slice(0, 100))}, stderr ${r.stderr.slice(-300)}`);
  }
  return ms;
}

const PAIRS = [
  { id: 'mmap', label: 'all threads, mmap', flags: [] },
  { id: 'threads1', label: '`--num-threads 1`', flags: ['--num-threads', '1'] },
  { id: 'nommap', label: '`--no-mmap`', flags: ['--no-mmap'] },
];
const IN_PROCESS = [
  // hashFile maps by default (the addon survives a truncation while mapped).
  { id: 'mmapcall', label: `hashFile(F) (mapped), ${defaultThreads} threads (default)`, threads: defaultThreads, options: undefined, vs: 'mmap' },
  { id: 'reads', label: `hashFile(F, { mmap: false }), ${defaultThreads} threads (default)`, threads: defaultThreads, options: { mmap: false }, vs: 'nommap' },
  { id: 'mmapcall1', label: 'hashFile(F) (mapped), workers: 1', threads: 1, options: undefined, vs: 'threads1' },
  { id: 'reads1', label: 'hashFile(F, { mmap: false }), workers: 1', threads: 1, options: { mmap: false }, vs: 'nommap' },
];

const times = Object.fromEntries([...PAIRS.flatMap((p) => [`b3sum-${p.id}`, `kit-${p.id}`]), ...IN_PROCESS.map((x) => x.id)].map((k) => [k, []]));
let digest;
try {
  console.log(`b3sum: writing ${sizeMiB} MiB to ${file}`);
  writeFile();
  warm();
  digest = spawnSync('b3sum', ['--no-names', file], { env, encoding: 'utf8' }).stdout.trim();
  // Untimed once each: the digest check, and the page cache and Node's
  // compile cache warm for every command.
  for (const p of PAIRS) {
    timed('b3sum', [...p.flags, file], digest);
    timed(process.execPath, [cli, ...p.flags, file], digest);
  }
  for (const x of IN_PROCESS) {
    kit.mod.configureParallel({ workers: x.threads });
    const got = toHex(await kit.mod.hashFile(file, x.options));
    if (got !== digest) throw new Error(`${x.label}: ${got}, b3sum says ${digest}`);
  }
  console.log(`b3sum: ${b3sumVersion}; digests agree; native addon ${status.path} (${status.cpuFeatures}, ${defaultThreads} threads); ${runs} runs`);

  for (let r = 0; r < runs; r++) {
    for (const p of PAIRS) {
      const ours = () => times[`kit-${p.id}`].push(timed(process.execPath, [cli, ...p.flags, file], digest));
      const theirs = () => times[`b3sum-${p.id}`].push(timed('b3sum', [...p.flags, file], digest));
      if (r % 2) ours(), theirs();
      else theirs(), ours();
    }
    for (let i = 0; i < IN_PROCESS.length; i++) {
      const x = IN_PROCESS[(i + r) % IN_PROCESS.length];
      kit.mod.configureParallel({ workers: x.threads });
      const t0 = performance.now();
      await kit.mod.hashFile(file, x.options);
      times[x.id].push(performance.now() - t0);
    }
    kit.mod.configureParallel({ workers: defaultThreads });
    process.stdout.write(`\r  run ${r + 1}/${runs}`);
  }
  process.stdout.write('\n');
} finally {
  cleanup();
}

const med = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
const gbs = (ms) => (size / (ms / 1e3) / 1e9).toFixed(2);
const cliTable = mdTable(
  ['mode', 'b3sum ms', 'blake3-kit CLI ms', 'b3sum GB/s', 'blake3-kit GB/s', '**b3sum ÷ ours**'],
  PAIRS.map((p) => {
    const b = med[`b3sum-${p.id}`];
    const o = med[`kit-${p.id}`];
    return [p.label, b.toFixed(0), o.toFixed(0), gbs(b), gbs(o), fmtRatio(b / o)];
  }),
);
const label = Object.fromEntries(PAIRS.map((p) => [p.id, `\`b3sum ${p.flags.join(' ')}${p.flags.length ? ' ' : ''}F\``]));
const inTable = mdTable(
  ['call (in process, after init)', 'ms', 'GB/s', 'compared with', 'its ms', '**b3sum ÷ ours**'],
  IN_PROCESS.map((x) => [x.label, med[x.id].toFixed(0), gbs(med[x.id]), label[x.vs], med[`b3sum-${x.vs}`].toFixed(0), fmtRatio(med[`b3sum-${x.vs}`] / med[x.id])]),
);
const md = [
  '# hashFile() and the CLI vs b3sum',
  '',
  infoLines(info, [
    '',
    `${b3sumVersion} (~/.cargo/bin); native addon ${status.path}, cpu features ${status.cpuFeatures}, ${defaultThreads} threads by default. ` +
      `A ${sizeMiB} MiB random file in ${args.dir}, in the page cache (read once before). Medians of ${runs} runs, wall time in ms; ` +
      'CLI rows include process start, in-process rows time the call only. Ratio = b3sum time ÷ ours (target ≥ 0.95×).',
  ]),
  '',
  '## CLI (`node bin/blake3-kit.cjs`) vs `b3sum`',
  '',
  cliTable,
  '',
  '## hashFile() in process',
  '',
  inTable,
  '',
].join('\n');
console.log(`\n${md}`);
console.log(`b3sum: wrote ${writeNativeResults('b3sum', md, { ...info, b3sumVersion, nativeStatus: { ...status, error: status.error?.message }, sizeMiB, runs, digest, medianMs: med, timesMs: times })}`);
