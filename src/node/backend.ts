// Node's init(): which backend to use (native addon, wasm, or both routed by
// size), chosen by init({ backend }) or the BLAKE3_KIT_BACKEND variable.
// The named exports (hash, createHasher, ...) are live bindings that follow
// the choice, so `import { hash }` routes like `b3.hash` does.

import { apiFor, wasmOneShots, type Blake3, type OneShots } from '../api.js';
import { useEngine, type HasherEngine } from '../engine.js';
import { loadAddon } from '../native/addon.js';
import { nativeEngine } from '../native/engine.js';
import { nativeDeriveKey, nativeHash, nativeKeyedHash } from '../native/hash.js';
import { wasmEngine } from '../wasm/engine.js';
import { deriveKey as wasmDeriveKey, hash as wasmHash, keyedHash as wasmKeyedHash } from '../wasm/hash.js';
import { initWith, type Backend, type Flavour, type InitOptions, type Platform, type WasmBackend } from '../wasm/load.js';
import { routedEngine, routedOneShots } from './routing.js';

/** `auto` (default): native for large inputs and wasm for small ones where
 * the addon loads, else wasm. `wasm`: wasm only, the flavour as `flavour`
 * says. The others force one backend. */
export type BackendChoice = 'auto' | 'native' | 'wasm' | WasmBackend;

export interface NodeInitOptions extends InitOptions {
  /** Overrides BLAKE3_KIT_BACKEND; see BackendChoice. */
  backend?: BackendChoice;
  /** The addon file to load instead of the packaged one (also
   * BLAKE3_KIT_NATIVE_PATH). */
  nativePath?: string | URL;
}

export const BACKEND_VARIABLE = 'BLAKE3_KIT_BACKEND';
const CHOICES: readonly BackendChoice[] = ['auto', 'native', 'wasm', 'wasm-simd', 'wasm-scalar'];

export let hash = wasmHash;
export let keyedHash = wasmKeyedHash;
export let deriveKey = wasmDeriveKey;

const nativeOneShots: OneShots = { hash: nativeHash, keyedHash: nativeKeyedHash, deriveKey: nativeDeriveKey };

let active: Backend | undefined;
let started: Promise<Blake3> | undefined;

/** The backend in use, or undefined before init() resolves. */
export function backend(): Backend | undefined {
  return active;
}

function requestedChoice(options: NodeInitOptions): BackendChoice {
  if (options.backend !== undefined) {
    if (!CHOICES.includes(options.backend)) {
      throw new TypeError(`blake3-kit: options.backend must be one of ${CHOICES.join(', ')}; got ${String(options.backend)}`);
    }
    return options.backend;
  }
  const variable = process.env[BACKEND_VARIABLE];
  if (variable === undefined || variable === '') return 'auto';
  if (!CHOICES.includes(variable as BackendChoice)) {
    throw new Error(`blake3-kit: ${BACKEND_VARIABLE} must be one of ${CHOICES.join(', ')}; got ${JSON.stringify(variable)}`);
  }
  return variable as BackendChoice;
}

/** Whether a backend already in use satisfies a later init() call. */
function satisfies(current: Backend, choice: BackendChoice, flavour: Flavour | 'auto' | undefined): boolean {
  const flavourOk = flavour === undefined || flavour === 'auto' || current.endsWith(`wasm-${flavour}`);
  if (choice === 'auto') return flavourOk;
  if (choice === 'native') return current === 'native';
  if (choice === 'wasm') return current.startsWith('wasm') && flavourOk;
  return current === choice && flavourOk;
}

export function initNode(platform: Platform, packagedAddon: URL, options: NodeInitOptions = {}): Promise<Blake3> {
  if (typeof options !== 'object' || options === null) {
    return Promise.reject(new TypeError('blake3-kit: init options must be an object'));
  }
  let choice: BackendChoice;
  try {
    choice = requestedChoice(options);
    const flavourChoice = choice === 'auto' || choice === 'wasm';
    if (!flavourChoice && options.flavour !== undefined && options.flavour !== 'auto' && choice !== `wasm-${options.flavour}`) {
      throw new TypeError(`blake3-kit: flavour ${options.flavour} does not go with backend ${choice}`);
    }
  } catch (error) {
    return Promise.reject(error);
  }
  if (started !== undefined) {
    return started.then((api) => {
      if (satisfies(api.backend, choice, options.flavour)) return api;
      throw new Error(`blake3-kit: already initialised with ${api.backend}; cannot switch to ${choice}`);
    });
  }
  started = start(platform, options.nativePath ?? process.env.BLAKE3_KIT_NATIVE_PATH ?? packagedAddon, choice, options).catch(
    (error: unknown) => {
      started = undefined; // a failed init may be retried
      throw error;
    },
  );
  return started;
}

async function start(platform: Platform, addonPath: string | URL, choice: BackendChoice, options: NodeInitOptions): Promise<Blake3> {
  let nativeLoaded = false;
  if (choice === 'native' || choice === 'auto') {
    try {
      loadAddon(addonPath);
      nativeLoaded = true;
    } catch (error) {
      // auto: kept for nativeStatus(); the wasm backend takes over.
      if (choice === 'native') {
        throw new Error(`blake3-kit: the native backend was asked for (${BACKEND_VARIABLE} or init({ backend })), but the addon did not load`, {
          cause: error,
        });
      }
    }
  }
  if (choice === 'native') return use('native', nativeOneShots, nativeEngine);
  const flavour = choice === 'auto' || choice === 'wasm' ? options.flavour : (choice.slice('wasm-'.length) as Flavour);
  const wasm = await initWith(platform, { flavour, source: options.source });
  if (!nativeLoaded) return use(wasm, wasmOneShots, wasmEngine);
  return use(`native+${wasm}`, routedOneShots, routedEngine);
}

function use(chosen: Backend, oneShots: OneShots, engine: HasherEngine<unknown>): Blake3 {
  hash = oneShots.hash;
  keyedHash = oneShots.keyedHash;
  deriveKey = oneShots.deriveKey;
  useEngine(engine);
  active = chosen;
  return apiFor(chosen, oneShots);
}

/** Whether the addon serves large inputs (the native and routed backends). */
export function nativeInUse(): boolean {
  return active !== undefined && active.startsWith('native');
}
