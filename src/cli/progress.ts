// A progress line on stderr for large files, only when stderr is a terminal:
// piped or redirected output never gets control characters.

const MIN_SIZE = 256 * 1024 * 1024;
const REDRAW_MS = 100;
const WIDTH = 30;

export class Progress {
  readonly #total: number;
  readonly #label: string;
  readonly #started = performance.now();
  #done = 0;
  #drawn = 0;

  private constructor(total: number, label: string) {
    this.#total = total;
    this.#label = label;
  }

  /** A progress line for `total` bytes, or undefined if none should show. */
  static maybe(total: number, label: string): Progress | undefined {
    return process.stderr.isTTY && total >= MIN_SIZE ? new Progress(total, label) : undefined;
  }

  advance(bytes: number): void {
    this.#done += bytes;
    const now = performance.now();
    if (now - this.#drawn < REDRAW_MS) return;
    this.#drawn = now;
    const fraction = Math.min(1, this.#done / this.#total);
    const filled = Math.round(fraction * WIDTH);
    const rate = this.#done / ((now - this.#started) / 1000) / 1e6;
    const bar = '#'.repeat(filled) + '-'.repeat(WIDTH - filled);
    process.stderr.write(`\r${this.#label} [${bar}] ${(fraction * 100).toFixed(0).padStart(3)}% ${rate.toFixed(0)} MB/s\x1b[K`);
  }

  /** Erases the line, leaving the terminal as it was. */
  finish(): void {
    if (this.#drawn > 0) process.stderr.write('\r\x1b[K');
  }
}
