// A known-answer test of a freshly instantiated module, before anything is
// hashed with it: an engine that miscompiles our code (WebKit did with wasm
// SIMD shuffles on x86-64 in 2026) must not hand out wrong digests. The
// answers are the official test vectors' (input byte i is i % 251), first
// 8 bytes of each: a wrong digest matching 64 bits is not a risk.
//
// The cases cross every kernel path: 0 and 64 bytes (one block, the root),
// 1025 (a chunk and a partial one: the row-wise pair), 2048 (two chunks),
// 8193 (four chunks at once twice, parents four at once, a one-byte chunk);
// keyed and derive_key; extended output from byte 64 (the second output
// block). init() tests the code a module starts with (row-wise, four lanes
// in the SIMD module); blocks.ts tests u32 words, up to 1025 bytes, and
// single chunks, on every case, before it switches.

import { toHex } from '../hex.js';
import { MODE_DERIVE_KEY, MODE_HASH, MODE_KEYED, type Mode } from '../modes.js';
import type { CoreExports } from './core.js';
import { utf8 } from '../input.js';

const KEY = 'whats the Elvish word for friend';
const CONTEXT = 'BLAKE3 2019-12-27 16:29:52 test vectors context';

/** [mode, input length, output byte to start from, first 8 expected bytes]. */
const ANSWERS: [Mode, number, number, string][] = [
  [MODE_HASH, 0, 0, 'af1349b9f5f9a1a6'],
  [MODE_HASH, 64, 0, '4eed7141ea4a5cd4'],
  [MODE_HASH, 1025, 0, 'd00278ae47eb27b3'],
  [MODE_KEYED, 64, 0, 'ba8ced36f327700d'],
  [MODE_DERIVE_KEY, 64, 0, 'a5c4a7053fa86b64'],
  [MODE_HASH, 1025, 64, 'e332b0ef84b40910'],
  [MODE_HASH, 2048, 0, 'e776b6028c7cd22a'],
  [MODE_HASH, 8193, 0, 'bab6c09cb8ce8cf4'],
];
// The cases after these take the same single-block code as the ones
// before: the SIMD module's second code (words) skips them.
const SINGLE_BLOCK_CASES = 6;
const LONGEST = 8193;

let input: Uint8Array | undefined;

/** Undefined if `core`, with the single-block code it is set to, gives
 * every known answer; else the first it got wrong, in words. */
export function selfTestFailure(core: CoreExports): string | undefined {
  if (input === undefined) {
    input = new Uint8Array(LONGEST);
    for (let i = 0; i < LONGEST; i++) input[i] = i % 251;
  }
  const onlyBlocksDiffer = core.is_simd() === 1 && core.word_blocks() === 1 && core.lanes() === 1;
  return firstWrong(core, onlyBlocksDiffer ? SINGLE_BLOCK_CASES : ANSWERS.length);
}

function firstWrong(core: CoreExports, cases: number): string | undefined {
  const staging = () => new Uint8Array(core.memory.buffer, core.staging_ptr(), core.staging_len());
  const keyArea = new Uint8Array(core.memory.buffer, core.key_ptr(), 32);
  for (const [mode, length, from, expected] of ANSWERS.slice(0, cases)) {
    if (mode === MODE_KEYED) keyArea.set(utf8(KEY));
    if (mode === MODE_DERIVE_KEY) {
      const context = utf8(CONTEXT);
      staging().set(context);
      if (core.derive_context_key(context.length) !== 0) return 'derive_key: the context key failed';
    }
    staging().set(input!.subarray(0, length));
    const code = core.hash_oneshot(mode, length, from + 8);
    const got = toHex(staging().subarray(from, from + 8));
    if (code !== 0 || got !== expected) {
      const what = ['hash', 'keyed_hash', 'derive_key'][mode];
      return `${what} of ${length} bytes${from > 0 ? ` from output byte ${from}` : ''}: ${code !== 0 ? `code ${code}` : `${got}… instead of ${expected}…`}`;
    }
  }
  return undefined;
}
