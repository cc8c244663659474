// The package files a Node bundle entry carries (node-bundle.ts and the
// others): both wasm flavours (wasm/embedded.ts) and the worker_threads
// script's code, started from a data: URL. No file is read, and no
// import.meta is used: in a bundle esbuild writes as CommonJS it is empty
// (and esbuild warns of it).

import { embeddedWasm } from '../wasm/embedded.js';
import type { PackagedFiles } from './packaged.js';

// dist/worker-node.js, one self-contained module, put in by scripts/bundle.mjs.
declare const __BLAKE3_KIT_NODE_WORKER__: string;

declare const __filename: string | undefined;

/**
 * Where `require` finds the platform package from: the bundle's own file
 * in CommonJS (where __filename is the bundle's), else the script Node
 * runs, else the working directory. A bundle whose folder has the package
 * in node_modules (npm installed it there) then loads the addon.
 */
function requireBase(): string {
  const script = bundleFile() ?? process.argv[1];
  return script !== undefined && script !== '' ? script : `${process.cwd()}/`;
}

/** The bundle's own path where it runs as CommonJS. Read, not tested with
 * typeof: webpack folds `typeof __filename` to 'string' in ES module
 * output too, where reading it then throws. */
function bundleFile(): string | undefined {
  try {
    return typeof __filename === 'string' ? __filename : undefined;
  } catch {
    return undefined;
  }
}

export const embeddedFiles: PackagedFiles = {
  wasm: embeddedWasm,
  wasmBytes: embeddedWasm,
  worker: () => new URL(`data:text/javascript,${encodeURIComponent(__BLAKE3_KIT_NODE_WORKER__)}`),
  webWorker() {
    throw new Error("blake3-kit: a bundle carries no Web Worker script; Deno imports 'blake3-kit' unbundled");
  },
  localAddon() {
    throw Object.assign(new Error('a bundle has no local build of the addon'), { code: 'MODULE_NOT_FOUND' });
  },
  requireBase,
  bundled: true,
};
