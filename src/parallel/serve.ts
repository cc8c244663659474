// The worker side: instantiate the module the calling thread sent, then
// answer each job with the chaining value of its subtree.

import { applyKernelCode, attach, type CoreExports, instantiate, chunkChainingValuesAt, chainingValueAtOffset } from '../wasm/workers.js';
import type { FromWorker, ToWorker } from './protocol.js';
import { blobSubtreeValue } from './read-blob.js';

export function serve(post: (message: FromWorker, transfer?: ArrayBuffer[]) => void): (message: ToWorker) => void {
  let core: CoreExports | undefined;
  let code = 0;
  return (message) => {
    if (message.type === 'init') {
      try {
        core = instantiate(message.module);
        attach(core);
        post({ type: 'ready' });
      } catch (error) {
        post({ type: 'init-failed', message: String((error as Error)?.message ?? error) });
      }
      return;
    }
    const { id, mode, key, offset, bytes, chunks, returnBytes } = message;
    if (message.code !== code && core !== undefined) {
      code = message.code;
      applyKernelCode(core, code);
    }
    const failed = (error: unknown) => post({ type: 'failed', id, message: String((error as Error)?.message ?? error) });
    const answer = (piece: Uint8Array) => {
      try {
        const cv = chunks ? chunkChainingValuesAt(mode, key, offset, piece) : chainingValueAtOffset(mode, key, offset, piece);
        if (returnBytes) post({ type: 'done', id, cv, bytes: piece }, [piece.buffer as ArrayBuffer]);
        else post({ type: 'done', id, cv, bytes: undefined });
      } catch (error) {
        failed(error);
      }
    };
    if (bytes instanceof Uint8Array) answer(bytes);
    // A Blob slice is read here, off the calling thread, and hashed as it
    // streams in (read-blob.ts); the next job's read runs meanwhile. Bao's
    // chunk values need the whole slice.
    else if (chunks) bytes.arrayBuffer().then((buffer) => answer(new Uint8Array(buffer)), failed);
    else blobSubtreeValue(mode, key, offset, bytes).then(({ cv, stalled }) => post({ type: 'done', id, cv, bytes: undefined, stalled }), failed);
  };
}
