// Jaro similarity as the `strsim` crate computes it, which clap uses to
// suggest an option for a mistyped one (`--hel` → `--help` when above 0.7).
// strsim counts a transposition whenever a match lands left of the previous
// one, not the textbook half of out-of-order pairs; suggestions follow that.

export function jaro(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  if (left.length === 0 && right.length === 0) return 1;
  if (left.length === 0 || right.length === 0) return 0;
  if (left.length === 1 && right.length === 1) return left[0] === right[0] ? 1 : 0;
  const range = Math.floor(Math.max(left.length, right.length) / 2) - 1;
  const used = new Array<boolean>(right.length).fill(false);
  let matches = 0;
  let transpositions = 0;
  let lastMatch = 0;
  for (let i = 0; i < left.length; i++) {
    const from = Math.max(0, i - range);
    const to = Math.min(right.length - 1, i + range);
    for (let j = from; j <= to; j++) {
      if (used[j] || left[i] !== right[j]) continue;
      used[j] = true;
      matches++;
      if (j < lastMatch) transpositions++;
      lastMatch = j;
      break;
    }
  }
  if (matches === 0) return 0;
  return (matches / left.length + matches / right.length + (matches - transpositions) / matches) / 3;
}
