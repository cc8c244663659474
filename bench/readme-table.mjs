// The README's performance table, from one bench run's results: per
// runtime, blake3-kit's default ÷ the best other BLAKE3 package that runs
// there, one-shot hash, at every size. In browsers the default is the
// build init() picks there (simd), measured as "blake3-kit simd".
//
//   node bench/readme-table.mjs [STAMP]   the run that wrote <runtime>[-partial]-STAMP.json
//                                         (default: every latest-<runtime>.json)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ratios } from './lib/report.mjs';
import { resultsDir } from './lib/record.mjs';
import { sizeLabel } from './lib/format.mjs';

const IDS = ['node', 'node22', 'node24', 'node26', 'deno', 'bun', 'chromium', 'firefox', 'webkit'];
const stamp = process.argv[2];
const files = stamp
  ? readdirSync(resultsDir)
      .filter((name) => name.endsWith(`-${stamp}.json`) && !name.startsWith('summary'))
      .map((name) => join(resultsDir, name))
  : IDS.map((id) => join(resultsDir, `latest-${id}.json`)).filter(existsSync);
const order = (data) => IDS.indexOf(data.runtimeId === 'node20' ? 'node' : data.runtimeId);
const runs = files.map((file) => JSON.parse(readFileSync(file, 'utf8'))).sort((a, b) => order(a) - order(b));
if (runs.length === 0) throw new Error('no full-run results (bench/results/latest-<runtime>.json): run `npm run bench` first');

const rowsOf = (data) => ratios(data).oneshot ?? [];
const sizes = [...new Set(runs.flatMap((d) => rowsOf(d).map((r) => r.size)))].sort((a, b) => a - b);
const fmt = (x) => (x === undefined ? '–' : `${x.toFixed(2)}×`);
const started = runs.map((d) => d.runStarted ?? d.date).sort();
const commits = [...new Set(runs.map((d) => d.gitCommit).filter(Boolean))];
const m = runs[0].machine;

const out = [];
out.push(
  `blake3-kit's default ÷ the fastest other BLAKE3 package in that runtime (one-shot \`hash()\`, ` +
    `MB/s medians, each implementation in its own process or page). Host: ${m.cpu}, ${m.cores} shared cores, ` +
    `${m.memGiB} GiB; ${started[0].slice(0, 16).replace('T', ' ')} to ${started.at(-1).slice(0, 16).replace('T', ' ')} UTC, ` +
    `commit ${commits.join(', ')}; \`npm run bench\`.`,
);
out.push('');
out.push(`| runtime (engine) | ${sizes.map(sizeLabel).join(' | ')} |`);
out.push(`|---|${sizes.map(() => '---:').join('|')}|`);
for (const d of runs) {
  const bySize = new Map(rowsOf(d).map((r) => [r.size, r]));
  const cells = sizes.map((s) => {
    const r = bySize.get(s);
    return fmt(r?.defaultVsBestPeer ?? r?.simdVsBestPeer);
  });
  out.push(`| ${d.runtimeLabel} (${d.engine.name} ${d.engine.version.split('-')[0]}) | ${cells.join(' | ')} |`);
}
console.log(out.join('\n'));
