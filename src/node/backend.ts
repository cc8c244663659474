// Node's side of the backend choice (backend.ts has the rules): the wasm
// from the package's files (packaged.ts: read from beside dist/, or carried
// by a bundle entry), the BLAKE3_KIT_BACKEND variable, and the optional
// native addon with its routed combination.

import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Blake3 } from '../api.js';
import type { OneShots } from '../backend.js';
import { BACKEND_VARIABLE, initBackend, type BackendPlatform, type InitOptions } from '../backend.js';
import { loadAddon, loadFirstAddon } from '../native/addon.js';
import { nativeEngine, nativeTreeOps } from '../native/engine.js';
import { nativeManyOps } from '../native/many.js';
import { nativeDeriveKey, nativeHash, nativeKeyedHash } from '../native/hash.js';
import { nativePackage, nativeTriple } from './native-package.js';
import { BUNDLED_APART, type PackagedFiles, usePackagedFiles } from './packaged.js';
import { routedEngine, routedManyOps, routedOneShots, routedTreeOps } from './routing.js';
import { fsPromises } from './builtins.js';

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

/** The platform of an entry whose package files are `packaged`; the first
 * one made decides where workers and the addon are looked for. */
export const nodePlatform = (packaged: PackagedFiles): BackendPlatform => {
  usePackagedFiles(packaged);
  const defaults = new Set<string>();
  return {
    defaultSource(flavour) {
      const source = packaged.wasm(flavour);
      if (source instanceof URL) defaults.add(source.href);
      return source;
    },
    async load(location) {
      const url = location instanceof URL ? location : URL_SCHEME.test(location) ? new URL(location) : pathToFileURL(location);
      if (url.protocol !== 'file:') return fetch(url);
      try {
        return await fsPromises().readFile(url);
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
        loadFirstAddon([{ package: nativePackage(triple) }, { file: () => packaged.localAddon() }], triple, () => packaged.requireBase());
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

/** init() of an entry whose package files are `packaged`. */
export function initNode(packaged: PackagedFiles, options: NodeInitOptions | undefined): Promise<Blake3> {
  return initBackend(nodePlatform(packaged), options);
}
