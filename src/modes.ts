// BLAKE3's three modes, and how `{ key }` / `{ context }` options become one:
// the home of mode resolution for every backend. Checks only; deriving a
// context key is the backend's (see HasherEngine.contextKey).

import { MAX_CONTEXT_BYTES, checkContext, checkKey, checkOptions, type KeyOption, utf8 } from './input.js';

export const MODE_HASH = 0;
export const MODE_KEYED = 1;
export const MODE_DERIVE_KEY = 2;
export type Mode = typeof MODE_HASH | typeof MODE_KEYED | typeof MODE_DERIVE_KEY;

/** A mode with its key: the 32-byte key, derive_key's context key, or none. */
export interface ModeKey {
  readonly mode: Mode;
  readonly key: Uint8Array | undefined;
}

export const HASH_MODE: ModeKey = Object.freeze({ mode: MODE_HASH, key: undefined });

export function notInitialized(): never {
  throw new Error('blake3-kit: call `await init()` before hashing');
}

/** Reused by modeOf: one-shot calls resolve a mode without allocating. */
const resolved: { mode: Mode; key: Uint8Array | undefined } = { mode: MODE_HASH, key: undefined };

/**
 * Checks `key`/`context` options (`name` is how messages call them) and
 * returns the mode with its key: the caller's key view as given (copy it to
 * keep it), or the cached context key. The result object is reused by the
 * next call: read it at once.
 */
export function modeOf(options: KeyOption | undefined, name: string, contextKey: ContextKeys): ModeKey {
  if (options === undefined) return HASH_MODE;
  checkOptions(options, name);
  const { key, context } = options;
  if (key !== undefined) {
    if (context !== undefined) {
      throw new TypeError(`blake3-kit: ${name}.key and ${name}.context cannot be used together`);
    }
    resolved.mode = MODE_KEYED;
    resolved.key = checkKey(key, `${name}.key`);
    return resolved;
  }
  if (context !== undefined) {
    resolved.key = contextKey(checkContext(context, `${name}.context`), `${name}.context`);
    resolved.mode = MODE_DERIVE_KEY;
    return resolved;
  }
  return HASH_MODE;
}

/** modeOf's result, to keep: a key is copied, so later changes to the
 * caller's array reach no hasher or worker (context keys are cached arrays
 * of our own). */
export function ownedModeOf(options: KeyOption | undefined, name: string, contextKey: ContextKeys): ModeKey {
  const chosen = modeOf(options, name, contextKey);
  if (chosen === HASH_MODE) return HASH_MODE; // no allocation for a plain hasher
  // modeOf's object is reused by its next call: this one is kept.
  // new Uint8Array(view) copies; a Node Buffer's slice() would be a view.
  return { mode: chosen.mode, key: chosen.mode === MODE_KEYED ? new Uint8Array(chosen.key!) : chosen.key };
}

/** derive_key's context key of a checked context string; `name` is how a
 * RangeError for an over-long one calls it. */
export type ContextKeys = (context: string, name: string) => Uint8Array;

/** Context keys by context string, one cache per backend. Deriving one costs
 * a hash of the context; applications use a handful of constant contexts.
 * Every backend takes contexts up to MAX_CONTEXT_BYTES of UTF-8 (the wasm
 * staging buffer), so all accept the same ones. */
export function contextKeyCache(derive: (context: string) => Uint8Array): ContextKeys {
  const keys = new Map<string, Uint8Array>();
  const SIZE = 64;
  return (context, name) => {
    const cached = keys.get(context);
    if (cached !== undefined) return cached;
    if (context.length > MAX_CONTEXT_BYTES / 3 && utf8(context).length > MAX_CONTEXT_BYTES) {
      throw new RangeError(`blake3-kit: ${name} must be at most ${MAX_CONTEXT_BYTES} bytes as UTF-8`);
    }
    const key = derive(context);
    if (keys.size >= SIZE) keys.clear();
    keys.set(context, key);
    return key;
  };
}
