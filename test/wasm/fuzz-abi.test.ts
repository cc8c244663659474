// Fuzzes the built wasm module's raw exports from JS: random export calls
// with hostile integers (negative, past 2^31 and 2^32, NaN, fractions, the
// staging edges) must never trap, every result must be a slot index or one
// of the ABI's codes, and the instance must still hash right afterwards.
// crate/wasm/tests/fuzz.rs checks the results themselves against the
// official crate; this checks the module as built, with JS's number
// conversions, in Node and in Chromium.
//
// A fixed seed and call count by default. Long mode (Node):
// BLAKE3_KIT_FUZZ_SECONDS=N runs fresh seeds until N seconds pass; a failing
// seed is in the error, and BLAKE3_KIT_FUZZ_SEED=<seed> replays it.
import { blake3 as noble } from '@noble/hashes/blake3.js';
import { describe, expect, it } from 'vitest';
import type { CoreExports } from '../../src/wasm/core.js';
import { wasmEngine } from '../../src/wasm/engine.js';
import { instantiate, loadedModule } from '../../src/wasm/load.js';
import { openSubtree } from '../../src/wasm/subtree.js';
import { loadBao, random } from '../shared/setup.js';

// The bao entry's init() (in every entry the same module of each flavour).
await loadBao();
const module = loadedModule();

const env = typeof process !== 'undefined' ? process.env : {};
const replaySeed = Number(env.BLAKE3_KIT_FUZZ_SEED);
const seconds = Number(env.BLAKE3_KIT_FUZZ_SECONDS);
const DEFAULT_SEED = 0x5eed_ab1;
const CALLS = 50_000;
/** E_SLOT .. E_INPUT_LIMIT, and E_BODY - 9 (a saved state's body with the
 * last of its reasons) in crate/wasm/src/lib.rs; 1 is OK_MEMORY_GREW. */
const LOWEST_CODE = -25;

type Export = Exclude<keyof CoreExports, 'memory'>;
/** Every export that takes arguments, with how many. */
const ARITIES: [Export, number][] = [
  ['derive_context_key', 1],
  ['hash_oneshot', 3],
  ['hasher_new', 1],
  ['hasher_update', 2],
  ['hasher_room', 1],
  ['hasher_finalize', 5],
  ['hasher_reset', 1],
  ['hasher_clone', 1],
  ['hasher_free', 1],
  ['hasher_set_input_offset', 3],
  ['hasher_finalize_non_root', 1],
  ['merge_non_root', 1],
  ['merge_root', 4],
  ['chunk_cvs', 4],
  ['parent_cvs', 2],
  ['subtree_parents', 5],
  ['hasher_export_state', 1],
  ['hasher_import_state', 2],
  // Flips the SIMD module's single-block and chunk code between calls: the
  // rest must hash right with any.
  ['set_word_blocks', 1],
  ['set_lanes', 1],
];
const SLOT_TAKING = new Set<Export>([
  'hasher_update',
  'hasher_room',
  'hasher_finalize',
  'hasher_reset',
  'hasher_clone',
  'hasher_free',
  'hasher_set_input_offset',
  'hasher_finalize_non_root',
  'hasher_export_state',
]);

/** Runs `calls` random calls on a fresh instance; returns its exports. */
function fuzz(seed: number, calls: number): CoreExports {
  const exports = instantiate(module!);
  const rng = random(seed);
  const stagingLen = exports.staging_len();
  const live = new Set<number>();
  const hostile = (): number => {
    switch (rng.int(12)) {
      case 0:
        return -1 - rng.int(10);
      case 1:
        return 2 ** 31 - 1 + rng.int(3);
      case 2:
        return 2 ** 32 + rng.int(70_000);
      case 3:
        return [NaN, Infinity, -Infinity, -0, 0.5, 1e300][rng.int(6)]!;
      case 4:
        return stagingLen - 2 + rng.int(5);
      case 5:
        return rng.int(1024) * 1024;
      case 6:
        return rng.int(2 ** 32);
      case 7:
        return -(2 ** 31) - rng.int(3);
      default:
        return rng.int(70_000);
    }
  };
  /** The length of the body the last hasher_export_state staged. */
  let exported = 108;
  for (let i = 0; i < calls; i++) {
    const [name, arity] = ARITIES[rng.int(ARITIES.length)]!;
    const args = Array.from({ length: arity }, hostile);
    if (SLOT_TAKING.has(name) && live.size > 0 && rng.int(2) === 0) args[0] = [...live][rng.int(live.size)]!;
    if ((name === 'set_word_blocks' || name === 'set_lanes') && rng.int(2) === 0) args[0] = rng.int(2);
    // Often a body as staged by an export (or what a later call left of it),
    // so that imports get past the length check to the other rules.
    if (name === 'hasher_import_state' && rng.int(2) === 0) [args[0], args[1]] = [rng.int(3), exported];
    if (rng.int(4) === 0) {
      // Memory may have grown: a fresh view each time.
      new Uint8Array(exports.memory.buffer, exports.staging_ptr(), stagingLen).set(rng.bytes(64 + rng.int(2000)));
    }
    const result = (exports[name] as (...a: number[]) => number)(...args);
    if (!Number.isInteger(result) || result < LOWEST_CODE) {
      throw new Error(`${name}(${args.join(', ')}) returned ${result} (seed ${seed}, call ${i})`);
    }
    if ((name === 'hasher_new' || name === 'hasher_clone' || name === 'hasher_import_state') && result >= 0) live.add(result);
    if (name === 'hasher_export_state' && result >= 0) exported = result;
    if (name === 'hasher_free' && result === 0) live.delete(args[0]! >>> 0);
    if (live.size > 64) {
      const oldest = live.values().next().value!;
      expect(exports.hasher_free(oldest)).toBe(0);
      live.delete(oldest);
    }
  }
  expect(exports.slots_in_use(), `seed ${seed}`).toBe(live.size);
  return exports;
}

/** The instance still hashes right: one-shot and streamed. */
function expectStillRight(exports: CoreExports, seed: number): void {
  const input = random(seed).bytes(3000);
  const staging = () => new Uint8Array(exports.memory.buffer, exports.staging_ptr(), exports.staging_len());
  staging().set(input);
  expect(exports.hash_oneshot(0, input.length, 32)).toBe(0);
  expect(staging().slice(0, 32)).toEqual(noble(input));
  const slot = exports.hasher_new(0);
  expect(slot).toBeGreaterThanOrEqual(0);
  for (const piece of [input.subarray(0, 1500), input.subarray(1500)]) {
    staging().set(piece);
    expect(exports.hasher_update(slot, piece.length)).toBeGreaterThanOrEqual(0);
  }
  expect(exports.hasher_finalize(slot, 32, 0, 0, 0)).toBe(0);
  expect(staging().slice(0, 32)).toEqual(noble(input));
  expect(exports.hasher_free(slot)).toBe(0);
}

describe.runIf(module)('raw wasm exports under random and invalid integers', () => {
  it('never trap, return only slots and codes, and leave the instance hashing right', () => {
    const seed = Number.isFinite(replaySeed) ? replaySeed : DEFAULT_SEED;
    expectStillRight(fuzz(seed, CALLS), seed);
  });

  it.runIf(seconds > 0)(
    'long mode: fresh seeds until BLAKE3_KIT_FUZZ_SECONDS pass',
    () => {
      const deadline = Date.now() + seconds * 1000;
      let rounds = 0;
      while (Date.now() < deadline) {
        const seed = Math.floor(Math.random() * 2 ** 31);
        try {
          expectStillRight(fuzz(seed, CALLS), seed);
        } catch (error) {
          throw new Error(`BLAKE3_KIT_FUZZ_SEED=${seed} fails: ${(error as Error).message}`, { cause: error });
        }
        rounds++;
      }
      expect(rounds).toBeGreaterThan(0);
    },
    (seconds + 60) * 1000,
  );
});

describe.runIf(module)('saved states of subtree slots', () => {
  it('a hasher at an input offset has none: E_STATE raw, a clear error from the engine', () => {
    const exports = instantiate(module!);
    for (const offset of [0, 4096]) {
      const slot = exports.hasher_new(0);
      expect(exports.hasher_set_input_offset(slot, offset, 0)).toBe(0);
      expect(exports.hasher_export_state(slot)).toBe(-6);
      expect(exports.hasher_free(slot)).toBe(0);
    }
    const slot = openSubtree(0, undefined, 1024, 0);
    try {
      expect(() => wasmEngine.exportState!(slot)).toThrow(/subtree hasher .*cannot be saved/);
    } finally {
      exports.hasher_free(slot);
    }
  });
});
