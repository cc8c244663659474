// Types for both entry points. node.ts exports everything browser.ts does,
// plus the Node-only parts (hashFile, HashSink, HashTransform, the native
// backend's NativeHasher, nativeStatus and NodeInitOptions' `backend`).
export * from './node.js';
