// entry-core.ts with content addressing and batch hashing: what the
// blake3-kit/bao entries that bring their own wasm (bao-workerd.ts, and
// inline.ts, which carries everything) share. One file in dist/, beside
// dist/entry-core.js and on the same chunks, so both entries of an app
// reach one wasm state.

export * from './entry-core.js';
export * from '../addressing/index.js';
