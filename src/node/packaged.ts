// Where a Node entry finds the package's own files: the wasm modules, the
// hashing worker's script, a local addon build, and the place npm installs
// the platform package beside. The entries in dist/ find them beside
// themselves (filesBeside); the bundle entries (dist/*-bundle.js, which
// bundlers pick by the `module` condition) carry the wasm and the worker
// inside (embedded.ts), so that a one-file bundle needs nothing beside it.

import type { WasmSource } from '../wasm/load.js';
import type { Flavour } from '../engine.js';
import { fs } from './builtins.js';

export interface PackagedFiles {
  /** The wasm module of `flavour`: a file URL, or its bytes. */
  wasm(flavour: Flavour): WasmSource;
  /** Its bytes, synchronously (the compat entry loads at import). */
  wasmBytes(flavour: Flavour): Uint8Array<ArrayBuffer>;
  /** The worker_threads script: a file: URL, or a data: URL of its code. */
  worker(): URL;
  /** The module Web Worker script, which the pool runs in Deno instead. */
  webWorker(): URL;
  /** The addon `npm run build:native` writes in a source checkout. */
  localAddon(): URL;
  /** Where `require` resolves the platform package from (createRequire). */
  requireBase(): string | URL;
  /** Why files beside the code can't be read here (bundled), if so. */
  readonly bundled: boolean;
}

// A bundle of dist/*.js (not a *-bundle.js entry) has its own location, not
// the package's: the wasm files are not beside it (ESM), or
// import.meta.url is empty (CommonJS, where esbuild makes import.meta {}).
export const BUNDLED_APART =
  "blake3-kit: the package's wasm files are not beside this code, as happens when it is bundled by a bundler that does not use the `module` export condition (esbuild with custom conditions, bun build): add 'module' to its conditions to get blake3-kit's bundle entries, which carry the wasm inside, or import 'blake3-kit/inline', or pass init({ source })";

/** The files of the package that `base` (an entry's import.meta.url, in
 * dist/) is in. Every getter throws BUNDLED_APART, with the cause, where
 * they cannot be found from `base`. */
export function filesBeside(base: string | undefined): PackagedFiles {
  const beside = (path: string) => {
    try {
      return new URL(path, base);
    } catch (error) {
      throw new Error(BUNDLED_APART, { cause: error });
    }
  };
  // Run from sources (the test suite imports src/entries/), the built files are used.
  const fromSources = base?.endsWith('.ts') === true;
  const dist = fromSources ? '../../dist/' : './';
  return {
    wasm: (flavour) => beside(`${dist}../wasm/blake3-kit-${flavour}.wasm`),
    wasmBytes(flavour) {
      const url = beside(`${dist}../wasm/blake3-kit-${flavour}.wasm`);
      try {
        return fs.readFileSync(url) as Uint8Array<ArrayBuffer>;
      } catch (error) {
        throw new Error(`${BUNDLED_APART} (${url.href} is missing)`, { cause: error });
      }
    },
    worker: () => beside(`${dist}worker-node.js`),
    webWorker: () => beside(`${dist}worker.js`),
    localAddon: () => beside(`${dist}../native/blake3-kit.${process.platform}-${process.arch}.node`),
    requireBase: () => base ?? beside('.'),
    bundled: false,
  };
}

let inUse: PackagedFiles | undefined;

/** Called by a Node entry's init() (node/backend.ts): the files that
 * workers and the addon loader then use. The first entry to load wins; in
 * one program they are all dist/ or all bundle entries. */
export function usePackagedFiles(files: PackagedFiles): void {
  inUse ??= files;
}

/** The files in use, once an entry loaded a backend. */
export function packagedFiles(): PackagedFiles | undefined {
  return inUse;
}
