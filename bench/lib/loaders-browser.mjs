// How the browser page imports each implementation. Bundled by esbuild with
// code splitting, so every dynamic import below becomes its own chunk and a
// page loads only the implementation it measures. blake3-kit and the
// reference glue are not bundled: they are served as built (/repo/dist,
// /repo/wasm, /reference/...) so their `new URL('x.wasm', import.meta.url)`
// resolves exactly as it would for a user.

async function reference(flavour) {
  const base = `/reference/${flavour}/`;
  const glue = await import(/* external */ `${base}reference.js`);
  return { glue, source: new URL(`${base}reference_bg.wasm`, location.href) };
}

async function webbuf() {
  const [b3, { WebBuf }, { FixedBuf }] = await Promise.all([
    import('@webbuf/blake3'),
    import('@webbuf/webbuf'),
    import('@webbuf/fixedbuf'),
  ]);
  return { ...b3, WebBuf, FixedBuf };
}

export const LOADERS = {
  'blake3-kit simd': () => import('/repo/dist/browser.js'),
  'blake3-kit scalar': () => import('/repo/dist/browser.js'),
  'reference simd': () => reference('simd'),
  'reference scalar': () => reference('scalar'),
  'hash-wasm': () => import('hash-wasm'),
  '@noble/hashes': () => import('@noble/hashes/blake3.js'),
  // Its browser ESM entry; the emscripten glue fetches blake3.wasm next to
  // the chunk (copied there by bench/lib/build.mjs).
  'blake3-wasm': () => import('blake3-wasm/esm/browser/index.js'),
  'blake3-jit': () => import('blake3-jit'),
  '@webbuf/blake3': webbuf,
  'WebCrypto SHA-256': async () => crypto.subtle,
  'xxhash-wasm h64': () => import('xxhash-wasm'),
};
