// Node's side of the backend choice (backend.ts has the rules): the wasm
// files read from disk next to dist/, the BLAKE3_KIT_BACKEND variable, and
// the optional native addon with its routed combination.

import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { OneShots } from '../backend.js';
import { BACKEND_VARIABLE, type BackendPlatform, type InitOptions } from '../backend.js';
import { loadAddon, loadFirstAddon } from '../native/addon.js';
import { nativeEngine, nativeTreeOps } from '../native/engine.js';
import { nativeManyOps } from '../native/many.js';
import { nativeDeriveKey, nativeHash, nativeKeyedHash } from '../native/hash.js';
import type { Flavour } from '../wasm/load.js';
import { nativePackage, nativeTriple } from './native-package.js';
import { routedEngine, routedManyOps, routedOneShots, routedTreeOps } from './routing.js';

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
  /** The addon `npm run build:native` writes in a source checkout. */
  localAddon: () => URL;
}

// A bundle of this code has its own location, not the package's: the wasm
// files are not beside it (ESM), or import.meta.url is empty (CommonJS).
const BUNDLED_APART =
  "blake3-kit: the package's wasm files are not beside this code, as happens when it is bundled (esbuild --platform=node, for one); import 'blake3-kit/inline', which has the wasm inside, or pass init({ source })";

export const nodePlatform = (packaged: PackagedFiles): BackendPlatform => {
  const defaults = new Set<string>();
  return {
    defaultSource(flavour) {
      try {
        const url = packaged.wasm(flavour);
        defaults.add(url.href);
        return url;
      } catch (error) {
        throw new Error(BUNDLED_APART, { cause: error });
      }
    },
    async load(location) {
      const url = location instanceof URL ? location : URL_SCHEME.test(location) ? new URL(location) : pathToFileURL(location);
      if (url.protocol !== 'file:') return fetch(url);
      try {
        return await readFile(url);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !defaults.has(url.href)) throw error;
        throw new Error(`${BUNDLED_APART} (${fileURLToPath(url)} is missing)`, { cause: error });
      }
    },
    backendVariable: () => env(BACKEND_VARIABLE),
    loadNative(options) {
      const explicit = (options as NodeInitOptions).nativePath ?? env('BLAKE3_KIT_NATIVE_PATH');
      if (explicit !== undefined) loadAddon(explicit);
      else {
        const triple = nativeTriple();
        loadFirstAddon([{ package: nativePackage(triple) }, { file: packaged.localAddon }], triple);
      }
      return {
        oneShots: nativeOneShots,
        engine: nativeEngine,
        tree: nativeTreeOps,
        many: nativeManyOps,
        routed: { oneShots: routedOneShots, engine: routedEngine, tree: routedTreeOps, many: routedManyOps },
      };
    },
  };
};
