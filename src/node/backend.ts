// Node's side of the backend choice (backend.ts has the rules): the wasm
// files read from disk next to dist/, the BLAKE3_KIT_BACKEND variable, and
// the optional native addon with its routed combination.

import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import type { OneShots } from '../api.js';
import { BACKEND_VARIABLE, type BackendPlatform, type InitOptions } from '../backend.js';
import { loadAddon } from '../native/addon.js';
import { nativeEngine } from '../native/engine.js';
import { nativeDeriveKey, nativeHash, nativeKeyedHash } from '../native/hash.js';
import type { Flavour } from '../wasm/load.js';
import { routedEngine, routedOneShots } from './routing.js';

export interface NodeInitOptions extends InitOptions {
  /** The addon file to load instead of the packaged one (also
   * BLAKE3_KIT_NATIVE_PATH). */
  nativePath?: string | URL;
}

const URL_SCHEME = /^[a-z][a-z0-9+.-]+:/i; // at least two letters: not a drive

/** An environment variable, or undefined where reading one is not allowed:
 * Deno without --allow-env throws (NotCapable) on any access. Settings from
 * the environment are optional; init() must work without them. */
function env(name: string): string | undefined {
  try {
    return process.env[name];
  } catch {
    return undefined;
  }
}

const nativeOneShots: OneShots = { hash: nativeHash, keyedHash: nativeKeyedHash, deriveKey: nativeDeriveKey };

/** Where the package's files are; the entry point (src/node.ts, bundled
 * as dist/node.js) gives them relative to itself. */
export interface PackagedFiles {
  wasm: (flavour: Flavour) => URL;
  addon: URL;
}

export const nodePlatform = (packaged: PackagedFiles): BackendPlatform => ({
  defaultSource: packaged.wasm,
  async load(location) {
    const url = location instanceof URL ? location : URL_SCHEME.test(location) ? new URL(location) : pathToFileURL(location);
    if (url.protocol === 'file:') return readFile(url);
    return fetch(url);
  },
  backendVariable: () => env(BACKEND_VARIABLE),
  loadNative(options) {
    loadAddon((options as NodeInitOptions).nativePath ?? env('BLAKE3_KIT_NATIVE_PATH') ?? packaged.addon);
    return { oneShots: nativeOneShots, engine: nativeEngine, routed: { oneShots: routedOneShots, engine: routedEngine } };
  },
});
