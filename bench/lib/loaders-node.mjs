// How Node imports each implementation. blake3-kit comes from the repo's
// build (dist/node.js + wasm/, made by `node scripts/setup.mjs`), the
// reference rows from bench/reference/pkg (bench/lib/build.mjs).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const repo = new URL('../../', import.meta.url);
const bench = new URL('../', import.meta.url);

async function reference(flavour) {
  const dir = new URL(`reference/pkg/${flavour}/`, bench);
  const glue = await import(new URL('reference.js', dir).href);
  return { glue, source: await readFile(new URL('reference_bg.wasm', dir)) };
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
  // Each row runs in its own process (node-runner.mjs), so one import each.
  'blake3-kit': () => import(new URL('dist/node.js', repo).href),
  'blake3-kit native': () => import(new URL('dist/node.js', repo).href),
  'blake3-kit simd': () => import(new URL('dist/node.js', repo).href),
  'blake3-kit scalar': () => import(new URL('dist/node.js', repo).href),
  'reference simd': () => reference('simd'),
  'reference scalar': () => reference('scalar'),
  'hash-wasm': () => import('hash-wasm'),
  '@noble/hashes': () => import('@noble/hashes/blake3.js'),
  // CommonJS main (dist/node); its "module" field is for bundlers only.
  'blake3-wasm': async () => require('blake3-wasm'),
  'blake3-jit': () => import('blake3-jit'),
  '@webbuf/blake3': webbuf,
  '@napi-rs/blake-hash': async () => require('@napi-rs/blake-hash'),
  'node:crypto sha256': () => import('node:crypto'),
  'node:crypto blake2b512': () => import('node:crypto'),
  'xxhash-wasm h64': () => import('xxhash-wasm'),
};
