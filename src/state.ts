// Saved hasher states (Hasher.save / load): the one home of the format's
// magic, version, key check and checksum. Engines write and check only the
// BODY (HasherEngine.exportState / importState), which is canonical: the
// same input gives the same bytes on every backend, so a state saved by one
// loads on any other.
//
// | offset | size | field |
// |---|---|---|
// | 0 | 4 | magic "B3KS" |
// | 4 | 1 | format version, 2 |
// | 5 | 1 | mode: 0 hash, 1 keyed_hash, 2 derive_key |
// | 6 | 2 | zero |
// | 8 | 16 | key check: keyed_hash(key, KEY_CHECK_MESSAGE)[0..16], the key
// |   |    | being the keyed mode's key, derive_key's context key, or the IV |
// | 24 | n | BODY: 108 + 32 k bytes (k <= 54), see crate/wasm/src/state.rs |
// | 24 + n | 16 | checksum: hash(bytes 0 .. 24 + n)[0..16] |
//
// Version 2 writes no key: the BODY's chunk value field is zeros until a
// block of the chunk is compressed, where version 1 wrote the chunk's value
// then, which is the key (a keyed state held its key in clear). Version 1
// states still load: their field must hold this hasher's key, and becomes
// zeros before the engine sees the body. A state always has room for one
// more input byte (BLAKE3 takes at most 2^64 - 1).

import type { HasherEngine } from './engine.js';
import { sameBytes } from './equal.js';
import { toBytes, lengthOf, utf8 } from './input.js';
import { MODE_HASH, MODE_KEYED, type Mode } from './modes.js';
import { CV_LEN } from './tree/geometry.js';

const MAGIC = [0x42, 0x33, 0x4b, 0x53]; // "B3KS"
const VERSION = 2;
/** The format that wrote the key into the BODY (read, never written). */
const VERSION_WITH_KEY = 1;
/** Where the BODY keeps how many blocks of its chunk are compressed, and
 * that chunk's value (crate/wasm/src/state.rs). */
const BODY_BLOCKS = 8;
const BODY_CV = 12;
const HEADER = 24;
const CHECK = 16;
const BODY_FIXED = 108;
/** A stack entry per set bit of a chunk counter below 2^54. */
const MAX_STACK = 54;
const MIN_LEN = HEADER + BODY_FIXED + CHECK;
const MODE_NAMES = ['hash', 'keyed_hash', 'derive_key'];
const KEY_CHECK_MESSAGE = utf8('blake3-kit saved state key check');
/** BLAKE3's IV as little-endian bytes: hash mode's key. */
const IV_BYTES = Uint8Array.from([
  0x67, 0xe6, 0x09, 0x6a, 0x85, 0xae, 0x67, 0xbb, 0x72, 0xf3, 0x6e, 0x3c, 0x3a, 0xf5, 0x4f, 0xa5, 0x7f, 0x52, 0x0e, 0x51, 0x8c, 0x68, 0x05, 0x9b,
  0xab, 0xd9, 0x83, 0x1f, 0x19, 0xcd, 0xe0, 0x5b,
]);

function keyCheck(engine: HasherEngine, mode: Mode, key: Uint8Array | undefined, out: Uint8Array): void {
  engine.hashInto(MODE_KEYED, mode === MODE_HASH ? IV_BYTES : key, KEY_CHECK_MESSAGE, out);
}

/** The saved state of a hasher in `mode` with `key` whose BODY is `body`. */
export function writeState(engine: HasherEngine, mode: Mode, key: Uint8Array | undefined, body: Uint8Array): Uint8Array {
  const length = lengthOf(body);
  const state = new Uint8Array(HEADER + length + CHECK);
  state.set(MAGIC);
  state[4] = VERSION;
  state[5] = mode;
  keyCheck(engine, mode, key, state.subarray(8, HEADER));
  state.set(body, HEADER);
  engine.hashInto(MODE_HASH, undefined, state.subarray(0, HEADER + length), state.subarray(HEADER + length));
  return state;
}

/**
 * Checks the header and trailer of `state` (what Hasher.load was given) for
 * a hasher in `mode` with `key`, in the format's order; returns a copy of
 * its BODY, for the engine to check and import. Throws TypeError for what
 * is not bytes, RangeError for a wrong length, Error for the rest.
 */
export function readState(engine: HasherEngine, mode: Mode, key: Uint8Array | undefined, state: unknown): Uint8Array {
  // A copy first: the caller's bytes can't change between checks and use.
  const bytes = toBytes(state, 'state').slice();
  const length = bytes.length;
  if (length < MIN_LEN || (length - MIN_LEN) % CV_LEN !== 0 || (length - MIN_LEN) / CV_LEN > MAX_STACK) {
    throw new RangeError(
      `blake3-kit: state is ${length} bytes; a saved state is ${MIN_LEN} + 32k bytes (k <= ${MAX_STACK}), so this one is truncated, extended or not a saved state`,
    );
  }
  if (MAGIC.some((byte, i) => bytes[i] !== byte)) throw new Error('blake3-kit: state is not a blake3-kit saved state (no "B3KS" magic)');
  const version = bytes[4]!;
  if (version !== VERSION && version !== VERSION_WITH_KEY) {
    throw new Error(`blake3-kit: state was saved by state format v${version}; this version reads v${VERSION_WITH_KEY} and v${VERSION}`);
  }
  const end = length - CHECK;
  const sum = new Uint8Array(CHECK);
  engine.hashInto(MODE_HASH, undefined, bytes.subarray(0, end), sum);
  if (!sameBytes(sum, bytes.subarray(end))) throw new Error('blake3-kit: state is corrupted (its checksum does not match its bytes)');
  if (bytes[6] !== 0 || bytes[7] !== 0) throw new Error('blake3-kit: state has reserved header bytes set; it was written by a newer blake3-kit');
  const saved = bytes[5]!;
  if (saved !== mode) {
    const name = MODE_NAMES[saved] ?? `an unknown mode (${saved})`;
    throw new Error(`blake3-kit: state was saved from a ${name} hasher; this hasher is ${MODE_NAMES[mode]}`);
  }
  const check = new Uint8Array(CHECK);
  keyCheck(engine, mode, key, check);
  if (!sameBytes(check, bytes.subarray(8, HEADER))) throw new Error('blake3-kit: state was saved with another key/context than this hasher has');
  const body = bytes.subarray(HEADER, end);
  if (version === VERSION_WITH_KEY) dropKey(body, mode === MODE_HASH ? IV_BYTES : key!);
  return body;
}

/** A version 1 BODY as version 2 writes it: the key that v1 kept as the
 * value of a chunk with no block compressed, checked and zeroed. */
function dropKey(body: Uint8Array, key: Uint8Array): void {
  if (body[BODY_BLOCKS] !== 0) return;
  const field = body.subarray(BODY_CV, BODY_CV + key.length);
  if (!sameBytes(field, key)) {
    throw new RangeError(
      "blake3-kit: saved state body is not valid: its chunk has no block compressed, yet its chaining value is not this hasher's key",
    );
  }
  field.fill(0);
}
