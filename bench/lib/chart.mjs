// A hand-written SVG chart: MB/s (log) against input size (log), one line per
// implementation, one panel per mode, a shared legend and y-axis range so the
// panels compare directly.
import { MODES } from './config.mjs';
import { sizeLabel } from './format.mjs';

const COLORS = {
  'blake3-kit': '#000000',
  'blake3-kit native': '#8c1c13',
  'blake3-kit simd': '#d62728',
  'blake3-kit scalar': '#ff7f0e',
  'reference simd': '#7f7f7f',
  'reference scalar': '#b0b0b0',
  'hash-wasm': '#1f77b4',
  '@noble/hashes': '#2ca02c',
  'blake3-wasm': '#9467bd',
  'blake3-jit': '#8c564b',
  '@webbuf/blake3': '#e377c2',
  '@napi-rs/blake-hash': '#17becf',
  'node:crypto sha256': '#bcbd22',
  'node:crypto blake2b512': '#6b6ecf',
  'WebCrypto SHA-256': '#bcbd22',
  'xxhash-wasm h64': '#393b79',
};

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;');

export function chartSvg(data, byImpl) {
  const panels = MODES.filter((m) => m.kind !== 'xof' && data.cells.some((c) => c.mode === m.id));
  const sizes = [...new Set(data.cells.filter((c) => c.mode !== 'xof').map((c) => c.size))].sort((a, b) => a - b);
  const rates = [];
  for (const name in byImpl) for (const m in byImpl[name]) for (const s in byImpl[name][m]) {
    const c = byImpl[name][m][s];
    if (c.status === 'ok' && m !== 'xof' && Number.isFinite(c.mbps) && c.mbps > 0) rates.push(c.mbps);
  }
  if (!rates.length || sizes.length < 2) return '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>';
  const yMin = 10 ** Math.floor(Math.log10(Math.min(...rates)));
  const yMax = 10 ** Math.ceil(Math.log10(Math.max(...rates)));

  const cols = 3;
  const pw = 440;
  const ph = 320;
  const m = { l: 62, r: 14, t: 34, b: 44 };
  const headH = 56;
  const cells = panels.length + 1; // + legend
  const rows = Math.ceil(cells / cols);
  const W = cols * pw;
  const H = headH + rows * ph;
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="12">`);
  out.push(`<rect width="${W}" height="${H}" fill="#fff"/>`);
  out.push(`<text x="16" y="24" font-size="17" font-weight="bold">BLAKE3 throughput, ${esc(data.runtimeLabel)} (MB/s, log scale; higher is better)</text>`);
  out.push(`<text x="16" y="44" fill="#555">${esc(`${data.machine.cpu}, ${data.machine.cores} cores · ${data.engine ? `${data.runtimeLabel}, ${data.engine.name} ${data.engine.version}` : `Node ${data.machine.node}${data.browserVersion ? ` · Chromium ${data.browserVersion}` : ''}`} · ${data.date.slice(0, 10)} · median of timed batches · profile ${data.profileName}`)}</text>`);

  panels.forEach((mode, i) => {
    const ox = (i % cols) * pw;
    const oy = headH + Math.floor(i / cols) * ph;
    const x0 = ox + m.l;
    const x1 = ox + pw - m.r;
    const y0 = oy + ph - m.b;
    const y1 = oy + m.t;
    const modeSizes = sizes;
    const X = (s) => x0 + ((Math.log2(s) - Math.log2(sizes[0])) / (Math.log2(sizes.at(-1)) - Math.log2(sizes[0]))) * (x1 - x0);
    const Y = (v) => y0 - ((Math.log10(v) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin))) * (y0 - y1);
    out.push(`<text x="${x0}" y="${oy + 22}" font-size="14" font-weight="bold">${esc(mode.title)}</text>`);
    // Grid and axes.
    for (let d = yMin; d <= yMax * 1.001 && d < 1e12; d *= 10) {
      for (const f of [1, 2, 5]) {
        const v = d * f;
        if (v > yMax * 1.001) break;
        const y = Y(v).toFixed(1);
        out.push(`<line x1="${x0}" x2="${x1}" y1="${y}" y2="${y}" stroke="${f === 1 ? '#ccc' : '#eee'}"/>`);
        if (f === 1 || (Math.log10(yMax / yMin) <= 3 && f !== 1))
          out.push(`<text x="${x0 - 6}" y="${+y + 4}" text-anchor="end" fill="#444">${v >= 1000 ? `${v / 1000}k` : v}</text>`);
      }
    }
    for (const s of modeSizes) {
      const x = X(s).toFixed(1);
      out.push(`<line x1="${x}" x2="${x}" y1="${y1}" y2="${y0}" stroke="#f0f0f0"/>`);
      out.push(`<text x="${x}" y="${y0 + 16}" text-anchor="middle" fill="#444" font-size="10.5">${sizeLabel(s).replace(' ', '')}</text>`);
    }
    out.push(`<rect x="${x0}" y="${y1}" width="${x1 - x0}" height="${y0 - y1}" fill="none" stroke="#888"/>`);
    out.push(`<text x="${(x0 + x1) / 2}" y="${y0 + 34}" text-anchor="middle" fill="#444">input size</text>`);
    out.push(`<text transform="translate(${ox + 16} ${(y0 + y1) / 2}) rotate(-90)" text-anchor="middle" fill="#444">MB/s</text>`);
    // One line per implementation; failed, wrong and n/a points break it.
    for (const impl of data.impls) {
      const color = COLORS[impl.name] ?? '#000';
      const dash = impl.group === 'reference' ? ' stroke-dasharray="6 4"' : impl.group === 'context' ? ' stroke-dasharray="2 3"' : '';
      const width = impl.group === 'kit' ? 3 : 1.6;
      let seg = [];
      const segs = [seg];
      for (const s of modeSizes) {
        const c = byImpl[impl.name]?.[mode.id]?.[s];
        if (c?.status === 'ok' && rates.includes(c.mbps)) seg.push([X(s), Y(c.mbps)]);
        else if (c && c.status !== 'n/a' || seg.length) segs.push((seg = []));
      }
      for (const sg of segs) {
        if (!sg.length) continue;
        out.push(`<polyline fill="none" stroke="${color}" stroke-width="${width}"${dash} points="${sg.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ')}"/>`);
        for (const [x, y] of sg) out.push(`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${impl.group === 'kit' ? 3 : 2}" fill="${color}"/>`);
      }
      // Failed or wrong cells: a cross at the bottom of the panel.
      for (const s of modeSizes) {
        const c = byImpl[impl.name]?.[mode.id]?.[s];
        if (c && (c.status === 'failed' || c.status === 'wrong')) {
          const x = X(s);
          out.push(`<path d="M${x - 4} ${y0 - 10} l8 8 m0 -8 l-8 8" stroke="${color}" stroke-width="2"/>`);
        }
      }
    }
  });

  // Legend in the next free cell.
  const li = panels.length;
  const lx = (li % cols) * pw + 30;
  const ly = headH + Math.floor(li / cols) * ph + 30;
  out.push(`<text x="${lx}" y="${ly - 6}" font-size="14" font-weight="bold">Implementations</text>`);
  data.impls.forEach((impl, i) => {
    const y = ly + 12 + i * 19;
    const color = COLORS[impl.name] ?? '#000';
    const dash = impl.group === 'reference' ? ' stroke-dasharray="6 4"' : impl.group === 'context' ? ' stroke-dasharray="2 3"' : '';
    out.push(`<line x1="${lx}" x2="${lx + 34}" y1="${y}" y2="${y}" stroke="${color}" stroke-width="${impl.group === 'kit' ? 3 : 1.6}"${dash}/>`);
    const tag = impl.group === 'reference' ? ' (official crate, plain build)' : impl.group === 'context' ? ' (not BLAKE3)' : '';
    out.push(`<text x="${lx + 42}" y="${y + 4}"${impl.group === 'kit' ? ' font-weight="bold"' : ''}>${esc(impl.name + tag)}</text>`);
  });
  out.push(`<text x="${lx}" y="${ly + 12 + data.impls.length * 19 + 8}" fill="#666" font-size="11">× at the bottom: failed or wrong digest at that size</text>`);
  out.push('</svg>');
  return out.join('\n');
}
