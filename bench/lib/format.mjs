// Units and how numbers look in every bench table: the main bench's reports,
// the native scripts and front.mjs print sizes, rates and ratios alike.

export const KiB = 1024;
export const MiB = 1024 * KiB;

/** 64 B, 1 KiB, 1.5 KiB, 8 KiB − 1, 16 MiB. */
export function sizeLabel(size) {
  if (size >= MiB && size % MiB === 0) return `${size / MiB} MiB`;
  if (size >= KiB && size % KiB === 0) return `${size / KiB} KiB`;
  if (size >= KiB && (2 * size) % KiB === 0) return `${size / KiB} KiB`;
  if (size > KiB && (size + 1) % KiB === 0) return `${(size + 1) / KiB} KiB − 1`;
  return `${size} B`;
}

/** MB/s with three significant digits or so. */
export const fmtRate = (mbps) => (mbps >= 100 ? Math.round(mbps).toLocaleString('en-US') : mbps >= 10 ? mbps.toFixed(1) : mbps.toFixed(2));

export const fmtRatio = (r) => (r === undefined || !Number.isFinite(r) ? '–' : `${r.toFixed(2)}×`);

/** A markdown table; numeric columns (all but the first) right-aligned unless `align` says otherwise. */
export function mdTable(head, rows, align) {
  const a = align ?? head.map((_, i) => (i === 0 ? '---' : '---:'));
  return [`| ${head.join(' | ')} |`, `|${a.join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}
