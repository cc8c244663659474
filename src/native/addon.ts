// The optional napi-rs addon (crate/node): its interface, and loading it.
// The package works without it; a failed load is kept (with its cause) for
// nativeStatus() to show, never thrown unless the native backend was forced.

import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** Must equal the addon's `abiVersion()` (crate/node/src/lib.rs). */
export const NATIVE_ABI_VERSION = 2;

/** The official crate's Hasher behind a napi class. */
export interface NativeHasherHandle {
  update(input: Uint8Array): void;
  /** XOF output at position lo + hi * 2^32 into all of `out`. */
  fill(out: Uint8Array, positionLo: number, positionHi: number): void;
  reset(): void;
  clone(): NativeHasherHandle;
  /** Frees the state now; later calls throw. */
  free(): void;
  /** Hashes `input` off the JS thread: in place if it is in a
   * SharedArrayBuffer, otherwise from a copy made before this returns. */
  updateAsync(input: Uint8Array, signal?: AbortSignal): Promise<void>;
  /** Hashes file bytes [offset, offset + length) off the JS thread; resolves
   * to the bytes hashed, fewer if the file ended first. */
  updateFromFd(fd: number, offset: number, length: number, mmap: boolean, signal?: AbortSignal): Promise<number>;
}

export interface NativeAddon {
  abiVersion(): number;
  cpuFeatures(): string;
  setThreads(threads: number): void;
  /** Puts the addon's SIGBUS handler back in front; true if it is. */
  reclaimSigbus(): boolean;
  threads(): number;
  contextKey(context: string): Uint8Array;
  /** One-shot: fills all of `out` with output from position 0. */
  hashInto(mode: number, key: Uint8Array | null | undefined, input: Uint8Array, out: Uint8Array): void;
  hashFile(
    path: string,
    mode: number,
    key: Uint8Array | null | undefined,
    outLength: number,
    mmap: boolean,
    signal?: AbortSignal,
  ): Promise<Uint8Array>;
  NativeHasher: new (mode: number, key?: Uint8Array | null) => NativeHasherHandle;
}

/** What the last attempt to load the addon found. */
export interface NativeStatus {
  /** Whether the addon is loaded and in use by some path. */
  loaded: boolean;
  /** Where it was looked for. */
  path: string | undefined;
  /** The kernels the official crate can use on this CPU. */
  cpuFeatures?: string;
  /** Threads used for large inputs and files. */
  threads?: number;
  /** Why it did not load; the underlying error is its `cause`. */
  error?: Error;
}

export let addon: NativeAddon | undefined;
let status: NativeStatus = { loaded: false, path: undefined };

// Made on first load: bundled as CommonJS, import.meta.url is empty and
// createRequire throws, which must fail the load (kept as its cause), not the import.
let require: NodeJS.Require | undefined;

/** Loads the addon at `location` and makes it the one in use. Throws an
 * Error whose `cause` is the underlying failure. */
export function loadAddon(location: URL | string): NativeAddon {
  const path = location instanceof URL ? fileURLToPath(location) : location;
  try {
    const loaded = (require ??= createRequire(import.meta.url))(path) as NativeAddon;
    const version = typeof loaded.abiVersion === 'function' ? loaded.abiVersion() : undefined;
    if (version !== NATIVE_ABI_VERSION) {
      throw new Error(`its ABI version is ${String(version)}, not ${NATIVE_ABI_VERSION}; rebuild it with \`npm run build:native\``);
    }
    addon = loaded;
    keepSigbus(loaded);
    status = { loaded: true, path, cpuFeatures: loaded.cpuFeatures(), threads: loaded.threads() };
    return loaded;
  } catch (cause) {
    const error = new Error(`blake3-kit: the native addon at ${path} could not be loaded`, { cause });
    status = { loaded: false, path, error };
    throw error;
  }
}

/**
 * Node installs its own SIGBUS handler when the first `process.on('SIGBUS')`
 * listener is added (and resets it when the last goes), without chaining to
 * the addon's. A mapped hash running then would fault for ever on a
 * truncated file. Node's own 'newListener'/'removeListener' hooks run first,
 * so by the time these run its change is made and the addon takes the front
 * again, chaining to Node's.
 */
function keepSigbus(loaded: NativeAddon): void {
  const reclaim = (event: string | symbol) => {
    if (event === 'SIGBUS') loaded.reclaimSigbus();
  };
  process.on('newListener', reclaim);
  process.on('removeListener', reclaim);
}

/** Diagnostics: whether the native addon is in use, and if not, why. */
export function nativeStatus(): NativeStatus {
  if (addon !== undefined) status = { ...status, threads: addon.threads() };
  return { ...status };
}
