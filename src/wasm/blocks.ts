// Which code the SIMD module runs for single blocks (inputs up to a few KiB,
// tails, root output): row-wise v128 or plain u32 words, measured where it
// runs, once per module, since neither wins on every host and engine; and
// whether whole chunks go four at once in v128 lanes or one at a time on
// that code, by engine.
//
// ns per hash_oneshot(1 KiB), medians of 15 alternating rounds in one
// process (`bench/small-path.mjs`, 2-core Intel Xeon model 207, shared):
//
// | engine             | rows | words | words ÷ rows |
// |--------------------|-----:|------:|-------------:|
// | Node 20.20 (V8)    | 1382 |  1525 |         1.10 |
// | Deno 2.9.6 (V8)    | 1638 |  3376 |         2.06 |
// | Bun 1.4.5 (JSC)    | 1336 |  2674 |         2.00 |
//
// On an AMD EPYC Zen 5 the other way round: the scalar module, whose blocks
// are these words, hashed 1 KiB 1.5-1.9x faster than the SIMD module with
// rows, in V8, SpiderMonkey and JavaScriptCore alike.
//
// Whole chunks: four lanes hold 32 live v128 values. MB/s of 16 KiB
// one-shots over 60 alternating 40 ms windows (same host; lanes ÷ one chunk
// at a time on rows): Chromium 1,000-1,300 ÷ ~600, Firefox 830-1,280 ÷
// 490-590, WebKitGTK 2.50 280-930 ÷ 210-620. So lanes everywhere. In
// JavaScriptCore the lanes re-read their message vectors from memory, in a
// rounds loop the compiler does not unroll (wasm_simd.rs), 2026-11-29, AMD
// EPYC: Bun 1.4.5 1,475 against 569 MB/s at 64 KiB (one chunk at a time,
// Bun's code before, 565), WebKitGTK 1.13-1.16x at 4 KiB-1 MiB with its
// rotations by shuffles too (bench/kernel-ab-browser.mjs), where Chromium runs it at 0.93-0.95x and
// Firefox at 1.00-1.01x: so by engine, not measured. Not probed: a short
// probe sees each engine's baseline tier and ranked chunk codes wrongly
// (Firefox picked single chunks; 1 in 3 or 4 Bun runs kept lanes).
//
// The probe runs in slices on later macrotasks, not in init(): the first
// calls after instantiation run baseline code (V8's Liftoff, JSC's BBQ), which
// ranks the two differently from the optimised code, and a page should not
// stall for it. Until it ends, blocks run row-wise.

import type { CoreExports } from './core.js';
import { selfTestFailure } from './self-test.js';

export type BlockCode = 'rows' | 'words';
export type ChunkCode = 'lanes' | 'single';
export type MessageCode = 'live' | 'reloaded';

export interface BlockChoice {
  /** The single-block code in use. */
  blocks: BlockCode;
  /** Whole chunks four at once in v128 lanes, or one at a time on the
   * single-block code: lanes (see above). */
  chunks: ChunkCode;
  /** The lanes' sixteen message vectors kept live, or read from memory
   * again at every use: reloaded in JavaScriptCore (see above). */
  messages: MessageCode;
  /** 'probing' until the measurement ends; then 'measured'. 'only' for the
   * scalar module (words only), 'forced' when set by the caller,
   * 'unmeasured' where the clock stands still while code runs (workerd) or
   * no timer may be set: rows, the default. */
  how: 'probing' | 'measured' | 'only' | 'forced' | 'unmeasured';
  /** Median µs per 1 KiB hash of each, once measured. */
  rowsMicros?: number;
  wordsMicros?: number;
  /** Rounds of measuring: 2 where both chose the same code, up to
   * MAX_ROUNDS where they did not. */
  rounds?: number;
  /** Words were faster (or reloaded messages chosen) but failed their
   * known-answer test: rows (live messages) stay. */
  wordsFailed?: string;
  reloadFailed?: string;
}

const PROBE_LEN = 1024;
// Each slice hashes for one clock edge to the next edge at least this far
// on, so even a 1 ms clock (browsers without cross-origin isolation) times it
// to a few calls; slices alternate rows and words, one per macrotask.
const SLICE_MS = 1;
// The first slices warm both up (tier-up); the median of the rest decides.
const WARM_SLICES = 6;
const SLICES = 18;
// A choice stands when two rounds in a row make it (each a fresh set of the
// slices after the warm ones), within this many rounds; else the last
// round's. A fresh page's probe races the engine's compiler and the page's
// own loading: with one round, 2 of 28 fresh Chromium pages chose rows (1.76
// / 1.76 and 1.82 / 2.05 µs, rows / words), where the rest measured words at
// 0.57-0.87x rows.
const MAX_ROUNDS = 4;
// Words replace the default only when clearly faster: a noisy probe must not
// trade a sure 1.1x for nothing. Not 0.9: Bun measured words at 0.89-0.92x
// rows, so it kept rows and hashed 1 KiB in 1,816 ns against hash-wasm's
// 1,769; with words, 1,664-1,673 against 1,702-1,786 (bench/small-path.mjs,
// Bun 1.4.5, AMD EPYC). V8, SpiderMonkey and WebKitGTK measure words at
// 0.54-0.84x, so they choose as before.
const MARGIN = 0.95;
// A slice that reaches this many calls without the clock moving ends the
// probe (3-12 ms of 1 KiB hashes).
const MAX_CALLS = 2048;

const SCALAR: BlockChoice = { blocks: 'words', chunks: 'single', messages: 'live', how: 'only' };
let choice: BlockChoice = SCALAR;
let generation = 0;
/** Calls hashing a large input on this thread in macrotasks (a first
 * hashParallel): the probe waits for them. */
let holds = 0;

/** Keeps the probe's slices off this thread until the returned release is
 * called: a first 64 MiB hashParallel in Chromium took 74 ms with the probe's
 * 18 slices between its pieces and 58 ms with the probe done before it
 * (medians of 5 fresh pages, AMD EPYC). */
export function holdProbe(): () => void {
  holds++;
  let held = true;
  return () => {
    if (held) holds--;
    held = false;
  };
}

export function blockChoice(): BlockChoice {
  return { ...choice };
}

/** The module's code settings, for workers that run the same module:
 * bit 0 words, bit 1 single chunks, bit 2 reloaded messages. The scalar
 * module's are always 3 (it has no other code), and a worker running it
 * ignores them. */
export function kernelCode(): number {
  return (choice.blocks === 'words' ? 1 : 0) | (choice.chunks === 'single' ? 2 : 0) | (choice.messages === 'reloaded' ? 4 : 0);
}

/** Sets `kernelCode()`'s settings on a worker's instance of the module. */
export function applyKernelCode(core: CoreExports, code: number): void {
  if (core.is_simd() !== 1) return;
  core.set_word_blocks(code & 1);
  core.set_lanes(code & 2 ? 0 : 1);
  core.set_reload_message(code & 4 ? 1 : 0);
}

/** Sets the chunk code for this engine and starts measuring the block code
 * for a freshly attached module (rows until it ends). */
export function probeBlocks(core: CoreExports): void {
  const mine = ++generation;
  if (core.is_simd() !== 1) {
    choice = SCALAR;
    return;
  }
  core.set_word_blocks(0);
  core.set_lanes(1);
  core.set_reload_message(0);
  choice = { blocks: 'rows', chunks: 'lanes', messages: 'live', how: 'probing' };
  if (javaScriptCore()) {
    const reloadFailed = switchFailure(core, 'set_reload_message', 1, 0);
    if (reloadFailed === undefined) choice.messages = 'reloaded';
    else choice.reloadFailed = reloadFailed;
  }
  const samples = { rows: [] as number[], words: [] as number[] };
  let slice = 0;
  let rounds = 1;
  let previous: BlockCode | 'unclear' | undefined;
  const step = () => {
    if (mine !== generation || choice.how !== 'probing') return;
    if (holds > 0) return later(step);
    const words = slice & 1;
    const micros = timeSlice(core, words);
    if (micros === undefined) {
      choice = { ...choice, how: 'unmeasured' };
      return;
    }
    if (slice >= WARM_SLICES) (words === 1 ? samples.words : samples.rows).push(micros);
    if (++slice < SLICES) return later(step);
    const rows = median(samples.rows);
    const wordsMicros = median(samples.words);
    const verdict = wordsMicros < rows * MARGIN ? 'words' : rows < wordsMicros * MARGIN ? 'rows' : 'unclear';
    const agreed = verdict !== 'unclear' && verdict === previous;
    previous = verdict;
    if (!agreed && rounds < MAX_ROUNDS) {
      rounds++;
      samples.rows = [];
      samples.words = [];
      slice = WARM_SLICES;
      return later(step);
    }
    const wordsFailed = wordsMicros < rows * MARGIN ? switchFailure(core, 'set_word_blocks', 1, 0) : 'slower';
    choice = {
      ...choice,
      how: 'measured',
      blocks: wordsFailed === undefined ? 'words' : 'rows',
      rowsMicros: round(rows),
      wordsMicros: round(wordsMicros),
      rounds,
    };
    if (wordsFailed !== undefined && wordsFailed !== 'slower') choice.wordsFailed = wordsFailed;
  };
  later(step);
}

/** JavaScriptCore: Bun, or a WebKit browser (Safari, WebKitGTK, and every
 * browser on iOS), whose user agent names AppleWebKit and no Chrome. */
function javaScriptCore(): boolean {
  if (typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined') return true;
  const agent = (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent;
  return typeof agent === 'string' && /AppleWebKit\//.test(agent) && !/(Chrome|Chromium)\//.test(agent);
}

// A timer that keeps no process alive (Node, Bun, Deno); where timers may
// not be set (workerd's global scope), nothing is measured.
function later(step: () => void): void {
  try {
    const timer: unknown = setTimeout(step, 0);
    const deno = (globalThis as { Deno?: { unrefTimer?: (id: number) => void } }).Deno;
    if (typeof timer === 'number') deno?.unrefTimer?.(timer);
    else (timer as { unref?: () => void } | undefined)?.unref?.();
  } catch {
    choice = { ...choice, blocks: 'rows', how: 'unmeasured' };
  }
}

/** Switches to the measured code if it passes the known-answer test; else
 * says why not and switches back. */
function switchFailure(core: CoreExports, setting: Setting, to: number, back: number): string | undefined {
  core[setting](to);
  const failure = selfTestFailure(core);
  if (failure !== undefined) core[setting](back);
  return failure;
}

type Setting = 'set_word_blocks' | 'set_lanes' | 'set_reload_message';

/** Sets the single-block, chunk and message code by hand (tests,
 * benchmarks); ends a probe. */
export function forceBlocks(core: CoreExports, blocks: BlockCode, chunks: ChunkCode = 'lanes', messages: MessageCode = 'live'): void {
  if (core.is_simd() !== 1 && (blocks !== 'words' || chunks !== 'single' || messages !== 'live')) {
    throw new RangeError(
      `blake3-kit: the scalar module has only 'words' blocks, 'single' chunks and 'live' messages; got ${JSON.stringify([blocks, chunks, messages])}`,
    );
  }
  core.set_word_blocks(blocks === 'words' ? 1 : 0);
  core.set_lanes(chunks === 'lanes' ? 1 : 0);
  if (core.is_simd() === 1) core.set_reload_message(messages === 'reloaded' ? 1 : 0);
  generation++;
  choice = { blocks, chunks, messages, how: core.is_simd() === 1 ? 'forced' : 'only' };
}

// The staging buffer is free between calls: every export re-reads what it
// needs from it, and no caller keeps bytes there across a macrotask.
// Undefined when the clock does not move (workerd's stands still while code
// runs): every loop here is bounded.
function timeSlice(core: CoreExports, words: number): number | undefined {
  const previous = core.word_blocks();
  core.set_word_blocks(words);
  let now = performance.now();
  const before = now;
  let calls = 0;
  while (now === before && calls < MAX_CALLS) {
    core.hash_oneshot(0, PROBE_LEN, 32);
    calls++;
    now = performance.now();
  }
  const start = now;
  calls = 0;
  while (now - start < SLICE_MS && calls < MAX_CALLS) {
    for (let i = 0; i < 4; i++) core.hash_oneshot(0, PROBE_LEN, 32);
    calls += 4;
    now = performance.now();
  }
  core.set_word_blocks(previous);
  return now - start < SLICE_MS ? undefined : ((now - start) * 1000) / calls;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

const round = (micros: number) => Math.round(micros * 100) / 100;
