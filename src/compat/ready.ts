// Whether a backend is in use, checked by every compat function before it
// hashes: blake3-wasm's browser builds need `await load()` first, and our
// message should say so rather than the main entry's "call init()".

import { backendInUse } from '../engine.js';

let importFailure: unknown;

/** Keeps why the load at import failed, for the first call to report
 * (an import that throws would take the whole app down with it). */
export function failedAtImport(error: unknown): void {
  importFailure = error;
}

export function importError(): unknown {
  return importFailure;
}

export function ensureReady(): void {
  if (backendInUse() !== undefined) return;
  if (importFailure !== undefined) {
    // The reason in the message too: it says what to do (bundled without
    // the wasm, say), and not every report prints a cause.
    const reason = importFailure instanceof Error ? importFailure.message : String(importFailure);
    throw new Error(`blake3-kit/compat: the backend failed to load at import: ${reason}`, { cause: importFailure });
  }
  throw new Error(
    "blake3-kit/compat: call `await load()` before hashing (as blake3-wasm's browser build needs); `load` is a named and the default export",
  );
}
