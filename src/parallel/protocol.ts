// Messages between the calling thread and hashing workers.

import type { WasmModule } from '../wasm/workers.js';
import type { Mode } from '../modes.js';

export type ToWorker =
  | { type: 'init'; module: WasmModule }
  | {
      type: 'job';
      id: number;
      /** The calling thread's measured code for this module (blocks.ts
       * `kernelCode`): same engine and host, so the same choice. */
      code: number;
      mode: Mode;
      /** The key, or derive_key's context key; absent in hash mode. */
      key: Uint8Array | undefined;
      offset: number;
      /** The piece, or a slice of a Blob for the worker to read itself. */
      bytes: Uint8Array | Blob;
      /** Answer with the chaining value of every chunk (32 bytes each)
       * instead of the piece's (Bao encoding needs the whole tree). */
      chunks: boolean;
      /** Send `bytes` back (transferred) with the result, for reuse. */
      returnBytes: boolean;
    };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'init-failed'; message: string }
  /** `cv`: the piece's chaining value, or its chunks' (a job with `chunks`);
   * `stalled`: a Blob slice's stream stalled and was read another way. */
  | { type: 'done'; id: number; cv: Uint8Array; bytes: Uint8Array | undefined; stalled?: boolean }
  | { type: 'failed'; id: number; message: string };
