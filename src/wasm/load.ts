// Loading the wasm core: choosing a flavour, compiling and instantiating it.
// Platform specifics (reading files in Node, fetching in browsers) come in
// through a `Platform` from the entry point, so this file runs anywhere.
// When and which: backend.ts.

import type { WasmModule } from './types.js';
import { probeBlocks } from './blocks.js';
import { selfTestFailure } from './self-test.js';
import { ABI_VERSION, attach, type CoreExports } from './core.js';

import type { Flavour, WasmBackend } from '../engine.js';

export type { Backend, Flavour, WasmBackend } from '../engine.js';

/** Where a wasm module comes from: a compiled module, its bytes, a URL or
 * path to it, or a fetch Response. */
export type WasmSource = WasmModule | ArrayBufferView | ArrayBufferLike | URL | string | Response | PromiseLike<Response>;

export interface Platform {
  /** The module init() loads unless options.source names one. */
  defaultSource(flavour: Flavour): WasmSource;
  /** Loads a URL or path: a Response (for compileStreaming) or bytes. */
  load(location: URL | string): Promise<Response | Uint8Array>;
}

// The smallest module with a v128 result and an instruction from the final
// SIMD spec (i8x16.popcnt), so engines with pre-standard SIMD fail it too.
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);

let simdSupport: boolean | undefined;

/** Whether this engine runs WebAssembly SIMD (checked once, then cached). */
export function simdSupported(): boolean {
  return (simdSupport ??= WebAssembly.validate(SIMD_PROBE));
}

let compiled: WasmModule | undefined;

/** The module init() loaded, for workers to instantiate the same flavour. */
export function loadedModule(): WasmModule | undefined {
  return compiled;
}

type Source = WasmSource | ((flavour: Flavour) => WasmSource | PromiseLike<WasmSource>);

let selfTestNote: string | undefined;

/** Why init() did not use the module it first loaded, if it did not. */
export function selfTestFallback(): string | undefined {
  return selfTestNote;
}

/** Compiles, instantiates and attaches a flavour (`auto`: SIMD where the
 * engine validates it), after its known-answer test (self-test.ts): with
 * `auto`, a module that fails it is replaced by the other flavour.
 * Resolves to the flavour the module really is. */
export async function loadWasm(platform: Platform, requestedFlavour: Flavour | 'auto', source: Source | undefined): Promise<WasmBackend> {
  const first = await instantiateFlavour(platform, firstFlavour(requestedFlavour), source);
  const other = fallbackFlavour(first, requestedFlavour, 'at init()', () => {
    if (source !== undefined && typeof source !== 'function') return 'options.source gives no other build (pass a function from flavour to source)';
    return undefined;
  });
  return adopt(other === undefined ? first : await instantiateFlavour(platform, other, source), first);
}

/** loadWasm without a promise, for a module at hand synchronously (Node
 * reads and compiles the file, workerd imports it): what the compat entry
 * loads at import. */
export function loadWasmSync(compileSync: (flavour: Flavour) => WasmModule, requestedFlavour: Flavour | 'auto'): WasmBackend {
  const instantiateSync = (flavour: Flavour): Loaded => {
    const module = compileSync(flavour);
    return { module, exports: instantiate(module) };
  };
  const first = instantiateSync(firstFlavour(requestedFlavour));
  const other = fallbackFlavour(first, requestedFlavour, 'at import', () => undefined);
  return adopt(other === undefined ? first : instantiateSync(other), first);
}

interface Loaded {
  module: WasmModule;
  exports: CoreExports;
}

function firstFlavour(requested: Flavour | 'auto'): Flavour {
  const flavour: Flavour = requested === 'auto' ? (simdSupported() ? 'simd' : 'scalar') : requested;
  if (flavour === 'simd' && !simdSupported()) {
    throw new Error('blake3-kit: flavour "simd" was forced, but this engine does not support WebAssembly SIMD');
  }
  return flavour;
}

/** The flavour to load instead of `first`, if its self-test failed and
 * `auto` allows another; throws where none can be used. `noOther` says why
 * the caller cannot load another, if it cannot. */
function fallbackFlavour(first: Loaded, requested: Flavour | 'auto', when: string, noOther: () => string | undefined): Flavour | undefined {
  selfTestNote = undefined;
  const failure = selfTestFailure(first.exports);
  if (failure === undefined) return undefined;
  const built = first.exports.is_simd() === 1 ? 'simd' : 'scalar';
  const other: Flavour = built === 'simd' ? 'scalar' : 'simd';
  const why = `the wasm-${built} module gave a wrong answer in its self-test ${when} (${failure})`;
  if (requested !== 'auto' || (other === 'simd' && !simdSupported())) throw new Error(`blake3-kit: ${why}; no other build to use`);
  const blocked = noOther();
  if (blocked !== undefined) throw new Error(`blake3-kit: ${why}; ${blocked}`);
  selfTestNote = why;
  return other;
}

/** Attaches the module to use (and records it for workers); checks the
 * replacement's self-test when `first` failed its own. */
function adopt(loaded: Loaded, first: Loaded): WasmBackend {
  if (loaded !== first) {
    const second = selfTestFailure(loaded.exports);
    const built = loaded.exports.is_simd() === 1 ? 'simd' : 'scalar';
    if (second !== undefined) throw new Error(`blake3-kit: ${selfTestNote}, and so did wasm-${built} (${second})`);
    selfTestNote = `${selfTestNote}, so wasm-${built} is used`;
    console.warn(`blake3-kit: ${selfTestNote}`);
  }
  attach(loaded.exports);
  probeBlocks(loaded.exports);
  compiled = loaded.module;
  return loaded.exports.is_simd() === 1 ? 'wasm-simd' : 'wasm-scalar';
}

async function instantiateFlavour(platform: Platform, flavour: Flavour, source: Source | undefined): Promise<Loaded> {
  const chosen = typeof source === 'function' ? await source(flavour) : (source ?? platform.defaultSource(flavour));
  const module = await compile(platform, await chosen);
  return { module, exports: instantiate(module) };
}

async function compile(platform: Platform, source: WasmSource): Promise<WebAssembly.Module> {
  if (source instanceof WebAssembly.Module) return source;
  if (typeof source === 'string' || source instanceof URL) {
    return compile(platform, await platform.load(source));
  }
  if (ArrayBuffer.isView(source) || source instanceof ArrayBuffer || isSharedBuffer(source)) {
    return WebAssembly.compile(source as BufferSource);
  }
  const response = await (source as PromiseLike<Response>);
  if (!isResponse(response)) {
    throw new TypeError(
      `blake3-kit: options.source must be a WebAssembly.Module, the module's bytes, a URL or path, or a Response (or a promise of one); got ${
        response === null ? 'null' : typeof response
      }`,
    );
  }
  if (!response.ok) {
    throw new Error(`blake3-kit: fetching ${response.url} failed: ${response.status} ${response.statusText}`);
  }
  // compileStreaming needs the application/wasm type; otherwise use bytes.
  const type = response.headers.get('Content-Type') ?? '';
  if (typeof WebAssembly.compileStreaming === 'function' && type.startsWith('application/wasm')) {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

function isResponse(value: unknown): value is Response {
  const response = value as Partial<Response> | null;
  return typeof response === 'object' && response !== null && typeof response.arrayBuffer === 'function' && 'ok' in response;
}

function isSharedBuffer(value: unknown): boolean {
  return typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer;
}

export function instantiate(module: WasmModule): CoreExports {
  const imports: Record<string, Record<string, () => void>> = {};
  for (const { module: from, name } of WebAssembly.Module.imports(module)) {
    // wasm-bindgen's start function seeds the externref table its glue would
    // use. Our exports pass integers only, so nothing reads that table.
    if (name !== '__wbindgen_init_externref_table') {
      throw new Error(`blake3-kit: the wasm module imports ${from}.${name}; it is not a blake3-kit module of this version`);
    }
    (imports[from] ??= {})[name] = () => {};
  }
  const instance = new WebAssembly.Instance(module, imports);
  const wasmExports = instance.exports as unknown as CoreExports & { __wbindgen_start?: () => void };
  if (typeof wasmExports.abi_version !== 'function' || wasmExports.abi_version() !== ABI_VERSION) {
    throw new Error(`blake3-kit: the wasm module's ABI is not version ${ABI_VERSION}; rebuild it or pass the packaged file`);
  }
  wasmExports.__wbindgen_start?.();
  return wasmExports;
}
