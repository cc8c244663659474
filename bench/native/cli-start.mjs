// The CLI's start-up on a tiny file, against Node's own (`node -e 0`), on
// each Node the suite runs: the goal is within 1.2x. b3sum for scale.
//
//   node bench/native/cli-start.mjs [--runs 21] [--node 20,22,24,26]   (after `node scripts/setup.mjs`)
//
// Per Node: `node -e 0` and `node bin/blake3-kit.cjs F` (F: 5 bytes) run in
// turn, which goes first alternating, wall clock around spawnSync; the
// ratio is taken pair by pair, so a drift in the machine's speed moves both.
// Medians. One untimed run of each first (Node's compile cache, from 22.1,
// is filled by the first run of the command, as after an install).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { NODE_VERSIONS, nodeBinary } from '../../scripts/node-versions.mjs';
import { repoDir } from '../lib/build.mjs';
import { mdTable } from '../lib/format.mjs';
import { infoLines, runInfo, writeNativeResults } from '../lib/record.mjs';
import { median } from '../lib/timing.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '21' }, node: { type: 'string' } } });
const runs = Number(values.runs);
const info = runInfo('native/cli-start.mjs');
const cli = join(repoDir, 'bin', 'blake3-kit.cjs');
const dir = mkdtempSync(join(tmpdir(), 'blake3-kit-cli-start-'));
const file = join(dir, 'five.txt');
writeFileSync(file, 'hello');
const DIGEST = 'ea8f163db38682925e4491c5e58d4bb3506ef8c14eb78a86e908c5624a67200f';

const nodes = [
  { label: `Node ${process.versions.node}`, bin: process.execPath, major: process.versions.node.split('.')[0] },
  ...NODE_VERSIONS.map((version) => ({ label: `Node ${version}`, bin: nodeBinary(version), major: version.split('.')[0] })),
].filter((node) => existsSync(node.bin) && (values.node === undefined || values.node.split(',').includes(node.major)));

/** Wall ms of one run; the command must exit 0 and, if `expect` is given, print it first. */
function timed(cmd, argv, expect) {
  const t0 = performance.now();
  const r = spawnSync(cmd, argv, { encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0 || (expect !== undefined && !r.stdout.startsWith(expect))) {
    throw new Error(`${cmd} ${argv.join(' ')}: exit ${r.status}, stdout ${JSON.stringify(r.stdout.slice(0, 100))}, stderr ${r.stderr.slice(-300)}`);
  }
  return ms;
}

const b3sum = spawnSync('b3sum', ['--version'], { encoding: 'utf8' });
const rows = [];
const json = { info, runs, file: '5 bytes', nodes: [] };
try {
  for (const node of nodes) {
    const bare = () => timed(node.bin, ['-e', '0']);
    const ours = () => timed(node.bin, [cli, file], DIGEST);
    bare();
    ours();
    const times = { bare: [], ours: [], ratio: [] };
    for (let r = 0; r < runs; r++) {
      let ourMs;
      let bareMs;
      if (r % 2) {
        ourMs = ours();
        bareMs = bare();
      } else {
        bareMs = bare();
        ourMs = ours();
      }
      times.ours.push(ourMs);
      times.bare.push(bareMs);
      times.ratio.push(ourMs / bareMs);
    }
    const result = { node: node.label, bareMs: median(times.bare), ourMs: median(times.ours), ratio: median(times.ratio) };
    json.nodes.push(result);
    rows.push([node.label, result.ourMs.toFixed(1), result.bareMs.toFixed(1), `${result.ratio.toFixed(2)}×`, result.ratio <= 1.2 ? 'yes' : 'no']);
    console.log(rows.at(-1).join('  '));
  }
  if (b3sum.status === 0) {
    timed('b3sum', [file], DIGEST);
    json.b3sumMs = median(Array.from({ length: runs }, () => timed('b3sum', [file], DIGEST)));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const md = [
  '# The CLI on a 5-byte file against `node -e 0`',
  '',
  infoLines(info, [
    '',
    `Wall ms, medians of ${runs} alternating pairs; the ratio is the median of the pairs' ratios.` +
      (json.b3sumMs === undefined ? '' : ` b3sum (${b3sum.stdout.trim()}) takes ${json.b3sumMs.toFixed(1)} ms.`),
  ]),
  '',
  mdTable(['Node', 'blake3-kit F, ms', 'node -e 0, ms', 'ratio', '≤ 1.2×'], rows, ['---', '---:', '---:', '---:', '---']),
  '',
].join('\n');
console.log(`\n${md}`);
console.log(writeNativeResults('cli-start', md, json));
