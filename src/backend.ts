// init()'s rules: which backend to use (wasm, the native addon, or both
// routed by size), chosen once. The choice is one record in engine.ts
// (useBackend), which every new Hasher and the tree and batch APIs read.
// The named exports (hash, keyedHash, deriveKey) are live bindings that
// follow the choice, so `import { hash }` behaves like `b3.hash`.

import { Hasher, XofReader, createHasher } from './hasher.js';
import { toHex } from './hex.js';
import { backendInUse, useBackend, type HasherEngine, type ManyOps, type TreeOps } from './engine.js';
import { wasmEngine } from './wasm/engine.js';
import { deriveKey as wasmDeriveKey, hash as wasmHash, keyedHash as wasmKeyedHash } from './wasm/hash.js';
import { blockChoice, type BlockChoice } from './wasm/blocks.js';
import {
  loadWasm,
  loadWasmSync,
  selfTestFallback,
  simdSupported,
  type Backend,
  type Flavour,
  type Platform,
  type WasmBackend,
  type WasmSource,
} from './wasm/load.js';
import type { WasmModule } from './wasm/types.js';

/** The one-shot functions a backend provides. */
export interface OneShots {
  readonly hash: typeof wasmHash;
  readonly keyedHash: typeof wasmKeyedHash;
  readonly deriveKey: typeof wasmDeriveKey;
}

/** What `init()` resolves to: the synchronous API and the backend chosen.
 * `Hasher`, `XofReader` and `createHasher` are the same in every backend;
 * a new hasher takes the state of the backend in use. */
export interface Blake3 extends OneShots {
  readonly backend: Backend;
  readonly createHasher: typeof createHasher;
  readonly Hasher: typeof Hasher;
  readonly XofReader: typeof XofReader;
  readonly toHex: typeof toHex;
}

const wasmOneShots: OneShots = { hash: wasmHash, keyedHash: wasmKeyedHash, deriveKey: wasmDeriveKey };

function apiFor(active: Backend, oneShots: OneShots = wasmOneShots): Blake3 {
  return Object.freeze({ backend: active, ...oneShots, createHasher, Hasher, XofReader, toHex });
}

/** `auto` (default): the native addon for large inputs and wasm for small
 * ones where the addon loads (Node), else wasm. `wasm`: wasm, SIMD where the
 * engine has it. The others force one backend. */
export type BackendChoice = 'auto' | 'native' | 'wasm' | WasmBackend;
const CHOICES: readonly BackendChoice[] = ['auto', 'native', 'wasm', 'wasm-simd', 'wasm-scalar'];

export interface InitOptions {
  /** Which backend; see BackendChoice. In Node it overrides the
   * BLAKE3_KIT_BACKEND environment variable. */
  backend?: BackendChoice;
  /** @deprecated Use `backend: 'wasm-simd'` or `'wasm-scalar'`. With `auto`
   * or `wasm` it picks the wasm flavour; with another backend it must agree. */
  flavour?: Flavour | 'auto';
  /** The wasm module to load instead of the packaged file: one source, or a
   * function from the chosen flavour to a source (for self-hosted files). */
  source?: WasmSource | ((flavour: Flavour) => WasmSource | PromiseLike<WasmSource>);
}

/** The addon's one-shots and hasher state, alone and routed with wasm. */
export interface NativeBackend {
  oneShots: OneShots;
  engine: HasherEngine<unknown>;
  tree: TreeOps;
  many: ManyOps;
  routed: { oneShots: OneShots; engine: HasherEngine<unknown>; tree: TreeOps; many: ManyOps };
}

/** What a platform adds to the wasm one: Node's addon and environment. */
export interface BackendPlatform extends Platform {
  /** The requested backend from the environment, if the platform has one. */
  backendVariable?: () => string | undefined;
  /** Loads the native addon (throws with the cause if it can't); absent
   * where there is none (browsers). */
  loadNative?: (options: InitOptions) => NativeBackend;
}

/** A platform whose wasm is at hand synchronously (Node reads the file,
 * workerd imports the module): initBackendSync() loads from it. */
export interface SyncBackendPlatform extends BackendPlatform {
  /** The compiled module of a flavour, read or imported synchronously. */
  compileSync(flavour: Flavour): WasmModule;
}

export const BACKEND_VARIABLE = 'BLAKE3_KIT_BACKEND';

export let hash = wasmHash;
export let keyedHash = wasmKeyedHash;
export let deriveKey = wasmDeriveKey;

let reason = '';
let started: Promise<Blake3> | undefined;
/** What `started` resolved to, once it has: initBackendSync() reads it. */
let current: Blake3 | undefined;

/** The backend in use, or undefined before init() resolves. */
export function backend(): Backend | undefined {
  return backendInUse()?.name;
}

export interface BackendStatus {
  /** As backend(). */
  backend: Backend | undefined;
  /** Why init() chose it, in a sentence. */
  reason: string;
  /** Which single-block code the wasm module runs (small inputs, tails,
   * output), and how that was decided; undefined without wasm. */
  wasmBlocks: BlockChoice | undefined;
}

/** What init() chose and why, for logs and bug reports. */
export function backendStatus(): BackendStatus {
  const active = backend();
  return { backend: active, reason, wasmBlocks: active === undefined || active === 'native' ? undefined : blockChoice() };
}

/** Whether the addon serves large inputs (the native and routed backends). */
export function nativeInUse(): boolean {
  return backend()?.startsWith('native') ?? false;
}

/** What was asked for: whether to load the addon, and which wasm flavour. */
interface Request {
  choice: BackendChoice;
  /** Where the choice came from, for backendStatus(). */
  from: string;
  native: 'no' | 'try' | 'must';
  wasm: Flavour | 'auto' | 'none';
}

function checkChoice(value: unknown, what: string): BackendChoice {
  if (CHOICES.includes(value as BackendChoice)) return value as BackendChoice;
  throw new TypeError(
    `blake3-kit: ${what} must be one of ${CHOICES.join(', ')}; got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
  );
}

function request(platform: BackendPlatform, options: InitOptions): Request {
  let choice: BackendChoice = 'auto';
  let source = 'the default';
  if (options.backend !== undefined) {
    choice = checkChoice(options.backend, 'options.backend');
    source = 'init({ backend })';
  } else {
    const variable = platform.backendVariable?.();
    if (variable !== undefined && variable !== '') {
      choice = checkChoice(variable, BACKEND_VARIABLE);
      source = BACKEND_VARIABLE;
    }
  }
  const flavour = options.flavour ?? 'auto';
  if (flavour !== 'auto' && flavour !== 'simd' && flavour !== 'scalar') {
    throw new TypeError(`blake3-kit: options.flavour must be 'auto', 'simd' or 'scalar'; got ${String(flavour)}`);
  }
  const hasNative = platform.loadNative !== undefined;
  if (choice === 'native' && !hasNative) throw new Error("blake3-kit: the native backend exists only in Node; use backend 'wasm'");
  if (choice === 'auto' || choice === 'wasm') return { choice, from: source, native: choice === 'auto' && hasNative ? 'try' : 'no', wasm: flavour };
  if (flavour !== 'auto' && choice !== `wasm-${flavour}`) {
    throw new TypeError(`blake3-kit: flavour ${flavour} does not go with backend ${choice}`);
  }
  if (choice === 'native') return { choice, from: source, native: 'must', wasm: 'none' };
  return { choice, from: source, native: 'no', wasm: choice === 'wasm-simd' ? 'simd' : 'scalar' };
}

/** Whether the backend in use serves a later init() call's request. */
function satisfies(inUse: Backend, { choice, wasm }: Request): boolean {
  const flavourOk = wasm === 'auto' || wasm === 'none' || inUse.endsWith(`wasm-${wasm}`);
  if (choice === 'auto') return flavourOk;
  if (choice === 'native') return inUse === 'native';
  return inUse.startsWith('wasm') && flavourOk;
}

/** Loads a backend once (later calls get the same one, or an error if they
 * ask for another) and resolves to the synchronous API. */
export function initBackend(platform: BackendPlatform, options: InitOptions = {}): Promise<Blake3> {
  let wanted: Request;
  try {
    wanted = checkedRequest(platform, options);
  } catch (error) {
    return Promise.reject(error);
  }
  if (started !== undefined) return started.then((api) => served(api, wanted));
  started = start(platform, options, wanted).catch((error: unknown) => {
    started = undefined; // a failed init may be retried
    throw error;
  });
  return started;
}

/**
 * init() done synchronously, for the entries that must hash right after
 * import (blake3-kit/compat in Node and workerd, as blake3-wasm does): the
 * same choice of backend, self-test and state, so a later init() gets this
 * backend. Returns the pending promise instead when an init() is still
 * loading (its module will be the one in use).
 */
export function initBackendSync(platform: SyncBackendPlatform, options: InitOptions = {}): Blake3 | Promise<Blake3> {
  const wanted = checkedRequest(platform, options);
  if (current !== undefined) return served(current, wanted);
  if (started !== undefined) return started.then((api) => served(api, wanted));
  const native = loadNative(platform, options, wanted);
  let loaded: { wasm: WasmBackend; fallback: string | undefined } | undefined;
  if (native === undefined || wanted.wasm !== 'none') {
    const wasm = loadWasmSync((flavour) => platform.compileSync(flavour), wanted.wasm === 'none' ? 'auto' : wanted.wasm);
    loaded = { wasm, fallback: selfTestFallback() };
  }
  const api = finish(wanted, loaded, native);
  started = Promise.resolve(api);
  return api;
}

function checkedRequest(platform: BackendPlatform, options: InitOptions): Request {
  if (typeof options !== 'object' || options === null) throw new TypeError('blake3-kit: init options must be an object');
  return request(platform, options);
}

/** The backend in use, if it serves `wanted`. */
function served(api: Blake3, wanted: Request): Blake3 {
  if (satisfies(api.backend, wanted)) return api;
  throw new Error(
    `blake3-kit: already initialised with ${api.backend}; cannot switch to ${wanted.wasm !== 'auto' && wanted.wasm !== 'none' ? `wasm-${wanted.wasm}` : wanted.choice}`,
  );
}

function loadNative(platform: BackendPlatform, options: InitOptions, wanted: Request): NativeBackend | undefined {
  if (wanted.native === 'no') return undefined;
  try {
    return platform.loadNative!(options);
  } catch (error) {
    // auto: kept for nativeStatus(); the wasm backend takes over.
    if (wanted.native === 'must') {
      throw new Error(`blake3-kit: the native backend was asked for (${BACKEND_VARIABLE} or init({ backend })), but the addon did not load`, {
        cause: error,
      });
    }
    return undefined;
  }
}

async function start(platform: BackendPlatform, options: InitOptions, wanted: Request): Promise<Blake3> {
  const native = loadNative(platform, options, wanted);
  if (native !== undefined && wanted.wasm === 'none') return finish(wanted, undefined, native);
  const wasm = await loadWasm(platform, wanted.wasm === 'none' ? 'auto' : wanted.wasm, options.source);
  return finish(wanted, { wasm, fallback: selfTestFallback() }, native);
}

/** Puts the loaded backend in use: the addon alone, wasm alone, or both routed. */
function finish(wanted: Request, loaded: { wasm: WasmBackend; fallback: string | undefined } | undefined, native: NativeBackend | undefined): Blake3 {
  if (loaded === undefined) {
    reason = `native, asked for with ${wanted.from}`;
    return use('native', native!.oneShots, native!.engine, native!.tree, native!.many);
  }
  const { wasm, fallback } = loaded;
  reason = reasonFor(wanted, wasm, native !== undefined, fallback);
  if (native === undefined) return use(wasm, wasmOneShots, wasmEngine);
  return use(`native+${wasm}`, native.routed.oneShots, native.routed.engine, native.routed.tree, native.routed.many);
}

function reasonFor(wanted: Request, wasm: WasmBackend, native: boolean, fallback: string | undefined): string {
  let why = simdSupported() ? 'this engine validates WebAssembly SIMD' : 'this engine has no WebAssembly SIMD';
  if (wanted.choice.startsWith('wasm-')) why = `asked for with ${wanted.from}`;
  else if (wanted.wasm === 'simd' || wanted.wasm === 'scalar') why = 'asked for with init({ flavour })';
  if (fallback !== undefined) why = fallback;
  if (native) return `${wanted.choice}, from ${wanted.from}: the native addon loaded and takes large inputs; ${wasm} takes small ones (${why})`;
  const addon = wanted.native === 'try' ? '; the native addon did not load (see nativeStatus())' : '';
  return `${wasm} (${why})${addon}`;
}

function use(chosen: Backend, oneShots: OneShots, engine: HasherEngine<unknown>, tree?: TreeOps, many?: ManyOps): Blake3 {
  hash = oneShots.hash;
  keyedHash = oneShots.keyedHash;
  deriveKey = oneShots.deriveKey;
  useBackend({ name: chosen, engine, nativeTree: tree, nativeMany: many });
  current = apiFor(chosen, oneShots);
  return current;
}
