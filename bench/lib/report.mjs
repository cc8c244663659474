// Turns one runtime's results into markdown, JSON and an SVG chart, and works
// out the ratios: blake3-kit against the best peer (other BLAKE3 packages;
// the reference and non-BLAKE3 rows are context) and against the reference.
import { MODES } from './config.mjs';
import { fmtRate, fmtRatio, sizeLabel } from './format.mjs';
import { chartSvg } from './chart.mjs';

/** The value of one cell as a table entry. */
function cellText(cell) {
  if (cell === undefined) return '–';
  switch (cell.status) {
    case 'ok':
      return fmtRate(cell.mbps);
    case 'n/a':
      return 'n/a';
    case 'wrong':
      return '**WRONG**';
    case 'failed':
      return '**failed**';
  }
  return '?';
}

/** rows[implName][mode][size] = cell */
export function index(data) {
  const byImpl = {};
  for (const impl of data.impls) {
    const modes = (byImpl[impl.name] = {});
    impl.cells.forEach((cell, i) => {
      const { mode, size } = data.cells[i];
      (modes[mode] ??= {})[size] = cell ?? { status: 'failed', error: impl.loadError ?? 'not run' };
    });
  }
  return byImpl;
}

export function ratios(data) {
  const byImpl = index(data);
  const peers = data.impls.filter((i) => i.group === 'peer');
  const out = {};
  for (const mode of MODES) {
    const sizes = [...new Set(data.cells.filter((c) => c.mode === mode.id).map((c) => c.size))];
    if (!sizes.length) continue;
    const rows = (out[mode.id] = []);
    for (const size of sizes) {
      const bestOf = (list) => {
        let best;
        for (const p of list) {
          const c = byImpl[p.name]?.[mode.id]?.[size];
          if (c?.status === 'ok' && (best === undefined || c.mbps > best.mbps)) best = { name: p.name, mbps: c.mbps };
        }
        return best;
      };
      const best = bestOf(peers);
      // The same without native addons (@napi-rs/blake-hash): what a page or a
      // wasm-only Node deployment could use instead.
      const bestWasm = bestOf(peers.filter((p) => !p.native));
      const rate = (name) => {
        const c = byImpl[name]?.[mode.id]?.[size];
        return c?.status === 'ok' ? c.mbps : undefined;
      };
      const auto = rate('blake3-kit');
      const native = rate('blake3-kit native');
      const simd = rate('blake3-kit simd');
      const scalar = rate('blake3-kit scalar');
      const ref = rate('reference simd');
      const refScalar = rate('reference scalar');
      rows.push({
        size,
        bestPeer: best?.name,
        bestPeerMbps: best?.mbps,
        bestWasmPeer: bestWasm?.name,
        bestWasmPeerMbps: bestWasm?.mbps,
        defaultVsBestPeer: auto && best ? auto / best.mbps : undefined,
        nativeVsBestPeer: native && best ? native / best.mbps : undefined,
        simdVsBestPeer: simd && best ? simd / best.mbps : undefined,
        simdVsBestWasmPeer: simd && bestWasm ? simd / bestWasm.mbps : undefined,
        scalarVsBestPeer: scalar && best ? scalar / best.mbps : undefined,
        simdVsReferenceSimd: simd && ref ? simd / ref : undefined,
        scalarVsReferenceScalar: scalar && refScalar ? scalar / refScalar : undefined,
      });
    }
  }
  return out;
}

const GROUP_NOTE = { kit: '', reference: ' ᴿ', peer: '', context: ' ᶜ' };

export function markdown(data) {
  const byImpl = index(data);
  const rat = ratios(data);
  const m = data.machine;
  const lines = [];
  const p = (s = '') => lines.push(s);
  p(`# BLAKE3 throughput: ${data.runtimeLabel}`);
  p();
  p(`${data.date} · \`${data.command}\` · profile **${data.profileName}**${data.partial ? ' (partial run)' : ''}`);
  p();
  p(`${runtimeText(data)}. Machine: ${m.cpu}, ${m.cores} cores, ${m.memGiB} GiB, ${m.os}. ` +
    `blake3-kit ${data.kitVersion} at ${data.gitCommit}${data.build ? `, build ${data.build}` : ''}. ` +
    (data.buildAtEnd && data.buildAtEnd !== data.build ? `**The build changed during the run (${data.build} → ${data.buildAtEnd}): rows may mix two builds.** ` : '') +
    `Load average (1/5/15 min) ${m.loadavgAtStart?.join(' ') ?? '?'} at the start, ${data.loadavgAtEnd?.join(' ') ?? '?'} at the end. ${m.note ?? ''}`);
  p();
  p('MB/s = 10^6 bytes per second, the median of many timed batches (higher is better). ' +
    'ᴿ = the official crate compiled by us the plain way (reference, not a peer). ᶜ = another algorithm, for scale only. ' +
    'n/a = not in that package\'s API. **WRONG** = the digest differed, so it was not timed. **failed** = it threw (see the notes).');
  p();
  for (const mode of MODES) {
    const sizes = [...new Set(data.cells.filter((c) => c.mode === mode.id).map((c) => c.size))];
    if (!sizes.length) continue;
    p(`## ${mode.title}`);
    p();
    p(`| implementation | ${sizes.map(sizeLabel).join(' | ')} |`);
    p(`|---|${sizes.map(() => '---:').join('|')}|`);
    for (const impl of data.impls) {
      const cells = sizes.map((s) => byImpl[impl.name]?.[mode.id]?.[s]);
      if (cells.every((c) => c?.status === 'n/a')) continue;
      const name = impl.group === 'kit' ? `**${impl.name}**` : `${impl.name}${GROUP_NOTE[impl.group]}`;
      p(`| ${name} | ${cells.map(cellText).join(' | ')} |`);
    }
    p();
    const r = rat[mode.id];
    if (r.some((x) => x.bestPeer)) {
      p(`| ratio | ${sizes.map(sizeLabel).join(' | ')} |`);
      p(`|---|${sizes.map(() => '---:').join('|')}|`);
      const row = (label, key) => p(`| ${label} | ${r.map((x) => (x[key] === undefined ? '–' : fmtRatio(x[key]))).join(' | ')} |`);
      p(`| best peer | ${r.map((x) => x.bestPeer ?? '–').join(' | ')} |`);
      // The Node-only rows (default = native+wasm-simd, and native alone).
      if (r.some((x) => x.defaultVsBestPeer !== undefined)) row('kit (default) ÷ best peer', 'defaultVsBestPeer');
      if (r.some((x) => x.nativeVsBestPeer !== undefined)) row('kit native ÷ best peer', 'nativeVsBestPeer');
      row('kit simd ÷ best peer', 'simdVsBestPeer');
      row('kit scalar ÷ best peer', 'scalarVsBestPeer');
      if (r.some((x) => x.bestWasmPeer !== x.bestPeer)) {
        p(`| best non-native peer | ${r.map((x) => x.bestWasmPeer ?? '–').join(' | ')} |`);
        row('kit simd ÷ best non-native peer', 'simdVsBestWasmPeer');
      }
      row('kit simd ÷ reference simd', 'simdVsReferenceSimd');
      row('kit scalar ÷ reference scalar', 'scalarVsReferenceScalar');
      p();
    }
  }

  p('## Cold start');
  p();
  p(`Import + init + first hash (64 bytes), in a fresh ${freshText(data)} each time; median of ${data.profile.coldRuns} runs, ms.`);
  p();
  p('| implementation | ms | runs |');
  p('|---|---:|---|');
  for (const impl of data.impls) {
    const c = impl.cold;
    if (!c) continue;
    p(`| ${impl.name} | ${c.error ? `**failed**` : c.medianMs.toFixed(1)} | ${c.runs.map((x) => x.toFixed(1)).join(', ')}${c.error ? ` (${c.error})` : ''} |`);
  }
  p();

  if (data.parallel?.length) {
    p('## hashParallel: cold and warm');
    p();
    p(
      `blake3-kit's \`hashParallel\` on ${sizeLabel(data.parallel[0].size ?? 0)} in a fresh ${freshText(data)}, after \`init()\` and one 64-byte \`hash()\`: ` +
        `the first call (cold: the median of ${data.parallel[0].coldRuns?.length ?? 1} fresh ${freshText(data)}s), then the median of ` +
        `${data.profile.parallelRuns} more (warm), against \`hash()\` of the same input on the calling thread. ms; every digest checked. ` +
        'Where the default backend is native, its hashParallel runs on the addon\'s threads and starts no workers, so wasm-simd is also timed.',
    );
    p();
    p('| init | backend | cold ms | warm ms | cold ÷ warm | hash() ms | hash() ÷ warm | workers started |');
    p('|---|---|---:|---:|---:|---:|---:|---:|');
    for (const r of data.parallel) {
      if (r.error) p(`| ${r.variant} | **failed**: ${r.error} | | | | | | |`);
      else
        p(
          `| ${r.variant} | ${r.backend} | ${r.coldMs.toFixed(1)} | ${r.warmMs.toFixed(1)} | ${fmtRatio(r.coldMs / r.warmMs)} | ${r.serialMs.toFixed(1)} | ${fmtRatio(r.serialMs / r.warmMs)} | ${r.workersStarted} |`,
        );
    }
    p();
  }

  if (data.payload?.length) {
    p('## Bundle payload');
    p();
    p('Browser JS bundled and minified with esbuild from a one-line entry, gzip -9, plus the .wasm the page fetches, gzip -9. Packages with inlined wasm have it in the JS column.');
    p();
    p('| package | JS min | JS gzip | wasm | wasm gzip | total gzip |');
    p('|---|---:|---:|---:|---:|---:|');
    for (const r of data.payload) {
      if (r.error) p(`| ${r.name} | failed: ${r.error} | | | | |`);
      else p(`| ${r.name} | ${r.jsMinBytes} | ${r.jsGzip} | ${r.wasmBytes || '–'} | ${r.wasmGzip || '–'} | **${r.totalGzip}** |`);
    }
    p();
  }

  p('## Versions');
  p();
  p(data.impls.map((i) => `${i.name}: ${i.version}`).join(' · '));
  p();

  const notes = [...(data.notes ?? [])];
  for (const impl of data.impls) {
    if (impl.loadError) notes.push(`${impl.name} failed to load: ${impl.loadError}`);
    impl.cells.forEach((c, i) => {
      if (c?.status === 'failed' || c?.status === 'wrong') {
        const cell = data.cells[i];
        const what = c.status === 'wrong' ? `wrong digest: got ${c.got}, expected ${c.expected}` : c.error;
        notes.push(`${impl.name}, ${cell.mode}, ${sizeLabel(cell.size)}: ${c.status} (${what})`);
      }
    });
  }
  if (notes.length) {
    p('## Notes and failures');
    p();
    for (const n of notes) p(`- ${n}`);
    p();
  }
  return lines.join('\n');
}

/** "Runtime: Deno 2.9.6 (V8 15.0.245.2-rusty)", and which Node drove the run. */
export function runtimeText(data) {
  const m = data.machine;
  if (!data.engine) return `Node ${m.node}${data.browserVersion ? `; Chromium ${data.browserVersion}` : ''}`;
  return `Runtime: **${data.runtimeLabel}**, engine ${data.engine.name} ${data.engine.version}; driven from Node ${m.node}`;
}

function freshText(data) {
  const kind = data.kind ?? (data.runtime === 'node' ? 'process' : 'browser');
  if (kind === 'process') return 'process';
  return data.runtimeId === 'webkit' ? 'browser (a new WebDriver session, no cache)' : 'page and browser context (no cache)';
}

export function writeOutputs(data) {
  return { md: markdown(data), json: JSON.stringify({ ...data, ratios: ratios(data) }, null, 1), svg: chartSvg(data, index(data)) };
}
