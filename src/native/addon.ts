// The optional napi-rs addon (crate/node): its interface, and loading it.
// The package works without it; a failed load is kept (with its cause) for
// nativeStatus() to show, never thrown unless the native backend was forced.

import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Must equal the addon's `abiVersion()` (crate/node/src/lib.rs). */
export const NATIVE_ABI_VERSION = 8;

/** The core's resumable hasher (crate/native/src/resumable.rs) behind a napi class. */
export interface NativeHasherHandle {
  /** RangeError, hashing nothing, past 2^64 - 1 bytes in all. */
  update(input: Uint8Array): void;
  /** The input bytes it can still take, at most 2^53 - 1. */
  room(): number;
  /** XOF output from byte `skip` of block lo + hi * 2^32 into all of `out`. */
  fill(out: Uint8Array, counterLo: number, counterHi: number, skip: number): void;
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
  /** The state as a saved state's BODY (src/state.ts); RangeError with no
   * room left. */
  exportState(): Uint8Array;
  /** Makes this handle a new hasher in `mode` (a disposed one, kept). */
  renew(mode: number, key: Uint8Array | undefined): void;
  /** Makes `target` (a disposed handle) an independent copy of this one. */
  cloneInto(target: NativeHasherHandle): void;
  /** Writes mode, key and state over the start of `out` (PARKED_MAX
   * bytes), for the engine's own memory alone (they hold the key); returns
   * their length. */
  park(out: Uint8Array): number;
  /** Makes this handle the hasher park() gave these bytes of. */
  unparkInto(parked: Uint8Array): void;
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
  /** A subtree's chaining value (upstream's hazmat; misuse is a RangeError). */
  subtreeChainingValue(mode: number, key: Uint8Array | null | undefined, offsetLo: number, offsetHi: number, input: Uint8Array): Uint8Array;
  /** Two chaining values' parent: its chaining value, or root output. */
  mergeSubtrees(
    mode: number,
    key: Uint8Array | null | undefined,
    left: Uint8Array,
    right: Uint8Array,
    root: boolean,
    outLength: number,
    positionLo: number,
    positionHi: number,
  ): Uint8Array;
  chunkChainingValues(mode: number, key: Uint8Array | null | undefined, counterLo: number, counterHi: number, input: Uint8Array): Uint8Array;
  parentChainingValues(mode: number, key: Uint8Array | null | undefined, records: Uint8Array): Uint8Array;
  /** The pre-order Bao tree of `content` into all of `out`; returns the root hash, or the subtree's chaining value. */
  baoEncode(
    mode: number,
    key: Uint8Array | null | undefined,
    content: Uint8Array,
    first: number,
    chunkLog: number,
    combined: boolean,
    root: boolean,
    out: Uint8Array,
  ): Uint8Array;
  hashMany(
    mode: number,
    key: Uint8Array | null | undefined,
    data: Uint8Array,
    itemLength: number,
    ends: Uint32Array | undefined,
    outLength: number,
    out: Uint8Array,
  ): void;
  NativeHasher: {
    new (mode: number, key?: Uint8Array | null): NativeHasherHandle;
    /** A hasher from a BODY; an invalid one is a RangeError saying why. */
    importState(mode: number, key: Uint8Array | null | undefined, body: Uint8Array): NativeHasherHandle;
    /** The hasher park() gave these bytes of. */
    unpark(parked: Uint8Array): NativeHasherHandle;
  };
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

/** Loads the addon at `location` and makes it the one in use. Throws an
 * Error whose `cause` is the underlying failure. */
export function loadAddon(location: URL | string): NativeAddon {
  const path = location instanceof URL ? fileURLToPath(location) : location;
  try {
    return useAddon(nodeModule().createRequire(resolve(path)), path);
  } catch (cause) {
    const error = new Error(`blake3-kit: the native addon at ${path} could not be loaded`, { cause });
    status = { loaded: false, path, error };
    throw error;
  }
}

/** Where a packaged addon may be: the npm package for this platform (its
 * `main` is the .node file), or a file (a function: finding it may throw). */
export type AddonPlace = { package: string } | { file: () => URL };

/**
 * Loads the first addon in `places` that loads, packages resolved from
 * `requireBase` (a file or URL, for createRequire). A place that holds
 * nothing (package not installed, no local build) is passed over; one that
 * holds a broken addon is too, but its failure is the `cause` of the error
 * thrown when none loads, and every place's reason is in its message.
 */
export function loadFirstAddon(places: AddonPlace[], platform: string, requireBase: () => string | URL): NativeAddon {
  const reasons: string[] = [];
  let broken: { path: string; cause: unknown } | undefined;
  // Made here, not at import: from a base that can't be had (a bundle's
  // import.meta.url in CommonJS), the load fails with the reason.
  let require: NodeJS.Require | undefined;
  for (const place of places) {
    let label = 'package' in place ? place.package : 'the local build';
    let path = label;
    try {
      require ??= nodeModule().createRequire(requireBase());
      if ('file' in place) label = path = fileURLToPath(place.file());
      else {
        if (!installed(require, place.package)) {
          reasons.push(`the optional package ${label} is not installed`);
          continue;
        }
        path = require.resolve(place.package);
      }
      return useAddon(require, path);
    } catch (cause) {
      if ('file' in place && isNotFound(cause)) {
        reasons.push(`there is no local build at ${label}`);
        continue;
      }
      broken ??= { path, cause };
      reasons.push(`${label} did not load (${messageOf(cause)})`);
    }
  }
  const error = new Error(`blake3-kit: no native addon for ${platform} loaded: ${reasons.join('; ')}`, { cause: broken?.cause });
  status = { loaded: false, path: broken?.path, error };
  throw error;
}

/** node:module, got at run time: a bundler that sees createRequire()
 * tries to resolve its argument at build time (webpack warns that it
 * can't), where only run time knows the place. */
const nodeModule = () => process.getBuiltinModule('node:module') as typeof import('node:module');

/** Whether `name` resolves for `require`; its `main` may still be missing. */
function installed(require: NodeJS.Require, name: string): boolean {
  try {
    require.resolve(`${name}/package.json`);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

function useAddon(require: NodeJS.Require, path: string): NativeAddon {
  const loaded = require(path) as NativeAddon;
  const version = typeof loaded.abiVersion === 'function' ? loaded.abiVersion() : undefined;
  if (version !== NATIVE_ABI_VERSION) {
    throw new Error(`its ABI version is ${String(version)}, not ${NATIVE_ABI_VERSION}; rebuild it with \`npm run build:native\``);
  }
  addon = loaded;
  keepSigbus(loaded);
  status = { loaded: true, path, cpuFeatures: loaded.cpuFeatures(), threads: loaded.threads() };
  return loaded;
}

const isNotFound = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code === 'MODULE_NOT_FOUND';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

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
