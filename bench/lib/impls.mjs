// Every implementation behind one small interface, the same in Node and in
// the browser. A platform supplies `load(name)` (bench/lib/loaders-*.mjs),
// which imports the package; `setup` turns the module into:
//
//   oneshot(input)       -> digest (32 bytes)
//   stream(chunks)       -> digest after one update per chunk (views made
//                           before timing, so only hashing is timed)
//   keyed(key, input)    -> keyed digest
//   xof(input, n)        -> n bytes of extended output
//
// A missing function is a mode the package does not offer ("n/a"). Each row
// uses the package's documented fast path: hash-wasm reuses one instance
// (init/update/digest, as its README recommends) instead of its Promise-per-
// call `blake3()`; stateful hashers are disposed where the API asks for it.
//
// group: 'kit' = blake3-kit; 'reference' = the official crate built plainly
// (bench/reference); 'peer' = other BLAKE3 packages (ratios are against the
// best of these); 'context' = other algorithms, for scale only.

// The key is fixed (the official test vectors' key), so rows whose API binds
// the key at construction can build that once, outside the timing.
import { KEY as KEY_FOR_SETUP } from './data.mjs';
import { blockProbeEnd } from './timing.mjs';

export const IMPLS = [
  // Node's default: init() with the addon loaded is native+wasm-simd, which
  // sends inputs from nativeThreshold() bytes up to native, smaller ones to wasm.
  {
    name: 'blake3-kit',
    group: 'kit',
    algo: 'blake3',
    pkg: 'blake3-kit',
    platforms: ['node'],
    setup: (mod) => kitSetup(mod, 'auto'),
  },
  {
    name: 'blake3-kit native',
    group: 'kit',
    algo: 'blake3',
    pkg: 'blake3-kit',
    platforms: ['node'],
    setup: (mod) => kitSetup(mod, 'native'),
  },
  {
    name: 'blake3-kit simd',
    group: 'kit',
    algo: 'blake3',
    pkg: 'blake3-kit',
    setup: (mod) => kitSetup(mod, 'wasm-simd'),
  },
  {
    name: 'blake3-kit scalar',
    group: 'kit',
    algo: 'blake3',
    pkg: 'blake3-kit',
    setup: (mod) => kitSetup(mod, 'wasm-scalar'),
  },
  { name: 'reference simd', group: 'reference', algo: 'blake3', pkg: 'blake3 crate 1.8.7', setup: referenceSetup },
  { name: 'reference scalar', group: 'reference', algo: 'blake3', pkg: 'blake3 crate 1.8.7', setup: referenceSetup },
  {
    name: 'hash-wasm',
    group: 'peer',
    algo: 'blake3',
    pkg: 'hash-wasm',
    async setup({ createBLAKE3 }) {
      const h = await createBLAKE3();
      const k = await createBLAKE3(256, KEY_FOR_SETUP);
      return {
        oneshot: (input) => h.init().update(input).digest('binary'),
        stream(chunks) {
          h.init();
          for (let i = 0; i < chunks.length; i++) h.update(chunks[i]);
          return h.digest('binary');
        },
        keyed: (_key, input) => k.init().update(input).digest('binary'),
        // createBLAKE3(bits) with bits = 8 * n: the output length is fixed per
        // instance, so the instance is made once (outside the timing).
        xofSetup: async (n) => {
          const x = await createBLAKE3(8 * n);
          return (input) => x.init().update(input).digest('binary');
        },
      };
    },
  },
  {
    name: '@noble/hashes',
    group: 'peer',
    algo: 'blake3',
    pkg: '@noble/hashes',
    setup({ blake3 }) {
      return {
        oneshot: (input) => blake3(input),
        stream(chunks) {
          const h = blake3.create();
          for (let i = 0; i < chunks.length; i++) h.update(chunks[i]);
          return h.digest();
        },
        keyed: (key, input) => blake3(input, { key }),
        xof: (input, n) => blake3.create().update(input).xof(n),
      };
    },
  },
  {
    name: 'blake3-wasm',
    group: 'peer',
    algo: 'blake3',
    pkg: 'blake3-wasm',
    async setup(mod) {
      await mod.load();
      return {
        oneshot: (input) => mod.hash(input),
        stream(chunks) {
          const h = mod.createHash();
          for (let i = 0; i < chunks.length; i++) h.update(chunks[i]);
          const d = h.digest();
          h.dispose();
          return d;
        },
        keyed: (key, input) => mod.keyedHash(key, input),
        xof(input, n) {
          const h = mod.createHash().update(input);
          const out = h.reader().read(n);
          h.dispose();
          return out;
        },
      };
    },
  },
  {
    name: 'blake3-jit',
    group: 'peer',
    algo: 'blake3',
    pkg: 'blake3-jit',
    setup(mod) {
      return {
        oneshot: (input) => mod.hash(input),
        stream(chunks) {
          const h = mod.createHasher();
          for (let i = 0; i < chunks.length; i++) h.update(chunks[i]);
          return h.finalize();
        },
        keyed: (key, input) => mod.createKeyed(key).update(input).finalize(),
        xof: (input, n) => mod.createHasher().update(input).finalizeXof().read(n),
      };
    },
  },
  {
    name: '@webbuf/blake3',
    group: 'peer',
    algo: 'blake3',
    pkg: '@webbuf/blake3',
    // One-shot hash and MAC only. Its functions take a WebBuf (a Uint8Array
    // subclass); the input is wrapped once outside the timing (prepare).
    setup({ blake3Hash, blake3Mac, WebBuf, FixedBuf }) {
      const key = FixedBuf.fromBuf(32, WebBuf.fromUint8Array(KEY_FOR_SETUP));
      return {
        prepare: (input) => WebBuf.view(input),
        oneshot: (input) => blake3Hash(input).buf,
        keyed: (_key, input) => blake3Mac(key, input).buf,
      };
    },
  },
  {
    name: '@napi-rs/blake-hash',
    group: 'peer',
    algo: 'blake3',
    pkg: '@napi-rs/blake-hash',
    platforms: ['node'],
    native: true,
    // Native (Rust via napi-rs). No XOF in its API.
    setup({ blake3, Blake3Hasher }) {
      const key = Buffer.from(KEY_FOR_SETUP);
      return {
        oneshot: (input) => blake3(input),
        stream(chunks) {
          const h = new Blake3Hasher();
          for (let i = 0; i < chunks.length; i++) h.update(chunks[i]);
          return h.digestBuffer();
        },
        keyed: (_key, input) => Blake3Hasher.newKeyed(key).update(input).digestBuffer(),
      };
    },
  },
  {
    name: 'node:crypto sha256',
    group: 'context',
    algo: 'sha256',
    pkg: 'node:crypto',
    platforms: ['node'],
    setup: (crypto) => nodeCrypto(crypto, 'sha256'),
  },
  {
    name: 'node:crypto blake2b512',
    group: 'context',
    algo: 'blake2b512',
    pkg: 'node:crypto',
    platforms: ['node'],
    setup: (crypto) => nodeCrypto(crypto, 'blake2b512'),
  },
  {
    name: 'WebCrypto SHA-256',
    group: 'context',
    algo: 'sha256',
    pkg: 'crypto.subtle',
    platforms: ['browser'],
    // Asynchronous by design: each call is awaited (one Promise per hash).
    setup: (subtle) => ({
      async: true,
      oneshot: async (input) => new Uint8Array(await subtle.digest('SHA-256', input)),
    }),
  },
  {
    name: 'xxhash-wasm h64',
    group: 'context',
    algo: 'xxh64',
    pkg: 'xxhash-wasm',
    async setup(mod) {
      const { h64Raw, create64 } = await mod.default();
      return {
        oneshot: (input) => h64Raw(input),
        stream(chunks) {
          const h = create64();
          for (let i = 0; i < chunks.length; i++) h.update(chunks[i]);
          return h.digest();
        },
      };
    },
  },
];


// What init({ backend }) must give; a default row that quietly fell back to
// wasm (the addon did not load) fails instead of posing as native.
const KIT_BACKEND = { auto: 'native+wasm-simd', native: 'native', 'wasm-simd': 'wasm-simd', 'wasm-scalar': 'wasm-scalar' };

/** `backend`: Node's init({ backend }). The browser build has only wasm and
 * ignores it, so the wasm rows also pass the flavour. */
async function kitSetup(mod, backend) {
  const flavour = backend.startsWith('wasm-') ? backend.slice('wasm-'.length) : undefined;
  const b3 = await mod.init(flavour ? { backend, flavour } : { backend });
  if (b3.backend !== KIT_BACKEND[backend]) {
    const why = mod.nativeStatus?.().error;
    throw new Error(`blake3-kit loaded ${b3.backend}, not ${KIT_BACKEND[backend]}${why ? ` (${why.message}: ${why.cause?.message})` : ''}`);
  }
  await blockProbeEnd(mod);
  return {
    oneshot: (input) => b3.hash(input),
    stream(chunks) {
      const h = b3.createHasher();
      for (let i = 0; i < chunks.length; i++) h.update(chunks[i]);
      const d = h.digest();
      h.dispose();
      return d;
    },
    keyed: (key, input) => b3.hash(input, { key }),
    xof(input, n) {
      const h = b3.createHasher().update(input);
      const r = h.xof();
      const out = r.read(n);
      r.dispose();
      h.dispose();
      return out;
    },
  };
}

/** mod = { glue, source }: wasm-bindgen `--target web` glue and the .wasm
 * (bytes in Node, a URL in the browser). */
async function referenceSetup({ glue, source }) {
  await glue.default({ module_or_path: source });
  return {
    oneshot: (input) => glue.hash(input),
    stream(chunks) {
      const h = new glue.Hasher();
      for (let i = 0; i < chunks.length; i++) h.update(chunks[i]);
      const d = h.finalize();
      h.free();
      return d;
    },
    keyed: (key, input) => glue.keyed_hash(key, input),
    xof: (input, n) => glue.xof(input, n),
  };
}

function nodeCrypto(crypto, algo) {
  return {
    oneshot: (input) => crypto.createHash(algo).update(input).digest(),
    stream(chunks) {
      const h = crypto.createHash(algo);
      for (let i = 0; i < chunks.length; i++) h.update(chunks[i]);
      return h.digest();
    },
  };
}

export function implsFor(platform, only) {
  return IMPLS.filter(
    (impl) =>
      (impl.platforms ?? ['node', 'browser']).includes(platform) &&
      (only.length === 0 || only.some((o) => impl.name.toLowerCase().includes(o.toLowerCase()))),
  );
}

export const findImpl = (name) => IMPLS.find((impl) => impl.name === name);
