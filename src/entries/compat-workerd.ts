// Entry point `blake3-kit/compat` for Cloudflare Workers (`workerd`) and
// Vercel Edge (`edge-light`, built from this file with the `?module`
// suffix): blake3-wasm's browser API, ready at import as theirs is in
// workerd: the imported, deploy-time compiled module is instantiated
// synchronously. load() resolves at once.

import scalarModule from '../wasm/blake3-kit-scalar.wasm';
import simdModule from '../wasm/blake3-kit-simd.wasm';
import { load, loadAtImport } from '../compat/entry-core.js';

export {
  BaseHash,
  BaseHashReader,
  BrowserHasher,
  BrowserHashReader,
  createDeriveKey,
  createHash,
  createKeyed,
  defaultHashLength,
  deriveKey,
  getWasm,
  Hash,
  hash,
  HashRaw,
  hashOneShot,
  inputToArray,
  keyedHash,
  load,
  MAX_SCRATCH_SIZE,
  maxHashBytes,
  scratch,
  setWasm,
  using,
  WasmHasher,
  type BaseHashInput,
  type BrowserEncoding,
  type HashInput,
  type IBaseHashOptions,
  type IDisposable,
  type IHasher,
  type IHasherDigestOptions,
  type IHashReader,
  type IInternalHash,
  type IInternalReader,
  type WasmModule,
} from '../compat/entry-core.js';

loadAtImport((flavour) => (flavour === 'simd' ? simdModule : scalarModule));

export default load;
