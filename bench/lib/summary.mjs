// One table across runtimes: for each runtime (a column) blake3-kit's default,
// simd and scalar rows against the best peer measured in that same runtime
// and run, with the host and engine each column comes from. Built from the
// per-runtime results (run.mjs, or --summary with their JSON files).
import { fmtRate, fmtRatio, sizeLabel } from './format.mjs';
import { ratios } from './report.mjs';

const MODES = [
  ['oneshot', 'One-shot hash'],
  ['stream-4096', 'Streaming, 4 KiB updates'],
];
const ROWS = [
  ['kit default ÷ best peer', 'defaultVsBestPeer'],
  ['kit simd ÷ best peer', 'simdVsBestPeer'],
  ['kit scalar ÷ best peer', 'scalarVsBestPeer'],
];

const columnName = (d) => d.runtimeId ?? d.runtime;

/** `runs`: results objects (one per runtime). `skipped`: [{ id, reason }]. */
export function summaryMarkdown(runs, { command, skipped = [] } = {}) {
  const lines = [];
  const p = (s = '') => lines.push(s);
  const head = (first) => {
    p(`| ${first} | ${runs.map(columnName).join(' | ')} |`);
    p(`|---|${runs.map(() => '---:').join('|')}|`);
  };
  p('# BLAKE3 throughput across runtimes');
  p();
  // --only keeps the full profile (every size, full budgets) for fewer rows.
  const quick = runs.some((d) => d.profileName === 'quick');
  p(`\`${command}\`${quick ? ' · quick profile: short budgets, 4 sizes' : runs.some((d) => d.partial) ? ' · full profile, some implementations (--only)' : ''}`);
  p();
  p('Each column is one runtime, measured in the same run as its peers; ratios above 1 mean blake3-kit is faster than the best other BLAKE3 package (any, native included) in that runtime. The per-runtime files have every row, mode and size.');
  p();
  p('| column | runtime | engine | host | started (UTC) | load avg at start | results file |');
  p('|---|---|---|---|---|---|---|');
  for (const d of runs) {
    const m = d.machine;
    const engine = d.engine ? `${d.engine.name} ${d.engine.version}` : '?';
    p(
      `| ${columnName(d)} | ${d.runtimeLabel} | ${engine} | ${m.cpu}, ${m.cores} cores | ${d.date.slice(0, 16).replace('T', ' ')} | ${m.loadavgAtStart?.join(' ') ?? '?'} | ${d.file ?? `${d.runtime}-${d.partial ? 'partial-' : ''}${d.date.slice(0, 16).replace(/[:T]/g, '-')}`} |`,
    );
  }
  p();

  const rat = runs.map((d) => ratios(d));
  for (const [mode, title] of MODES) {
    const sizes = [...new Set(runs.flatMap((d) => d.cells.filter((c) => c.mode === mode).map((c) => c.size)))].sort((a, b) => a - b);
    if (!sizes.length) continue;
    p(`## ${title}`);
    p();
    head('size · row');
    for (const size of sizes) {
      const at = rat.map((r) => r[mode]?.find((x) => x.size === size));
      p(`| **${sizeLabel(size)}** best peer, MB/s | ${at.map((x) => (x?.bestPeer ? `${x.bestPeer} ${fmtRate(x.bestPeerMbps)}` : '–')).join(' | ')} |`);
      for (const [label, key] of ROWS) {
        if (at.every((x) => x?.[key] === undefined)) continue;
        p(`| ${sizeLabel(size)} ${label} | ${at.map((x) => fmtRatio(x?.[key])).join(' | ')} |`);
      }
    }
    p();
  }

  if (runs.some((d) => d.parallel?.length)) {
    const size = runs.find((d) => d.parallel?.length).parallel[0].size ?? 0;
    p(`## hashParallel, ${size / 2 ** 20} MiB: cold (first call, starts the pool) and warm (median), ms; "hash() only": the first hash() in its own fresh process or page`);
    p();
    p('| column | init | backend | cold | warm | hash() on the calling thread | workers started |');
    p('|---|---|---|---:|---:|---:|---:|');
    for (const d of runs) {
      for (const r of d.parallel ?? []) {
        if (r.error) p(`| ${columnName(d)} | ${r.variant} | **failed**: ${r.error} | | | | |`);
        else p(`| ${columnName(d)} | ${r.variant} | ${r.backend} | ${r.coldMs.toFixed(1)} | ${r.warmMs.toFixed(1)} | ${r.serialMs.toFixed(1)} | ${r.workersStarted} |`);
      }
    }
    p();
  }

  const missing = [];
  for (const d of runs) {
    for (const impl of d.impls) if (impl.loadError) missing.push(`${columnName(d)}: ${impl.name} did not load: ${impl.loadError}`);
  }
  for (const s of skipped) missing.push(`${s.id}: not measured: ${s.reason}`);
  if (missing.length) {
    p('## Not measured');
    p();
    for (const m of missing) p(`- ${m}`);
    p();
  }
  return lines.join('\n');
}
