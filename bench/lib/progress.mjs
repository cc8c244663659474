// Console progress: one line per implementation and mode, as results arrive.
import { sizeLabel } from './format.mjs';

export function progress(implName, cells) {
  let current;
  let parts = [];
  const flush = () => {
    if (current !== undefined && parts.length) console.log(`  ${implName.padEnd(24)} ${current.padEnd(12)} ${parts.join('  ')}`);
    parts = [];
  };
  return {
    cell(index, result) {
      const cell = cells[index];
      if (cell.mode !== current) {
        flush();
        current = cell.mode;
      }
      const value =
        result.status === 'ok' ? `${Math.round(result.mbps)}` : result.status === 'n/a' ? 'n/a' : result.status.toUpperCase();
      parts.push(`${sizeLabel(cell.size)}:${value}`);
      if (result.status === 'wrong' || result.status === 'failed') {
        flush();
        console.log(`  ${''.padEnd(24)} ${result.status}: ${result.error ?? `got ${result.got}, expected ${result.expected}`}`);
      }
    },
    done: flush,
  };
}
