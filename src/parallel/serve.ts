// The worker side: instantiate the module the calling thread sent, then
// answer each job with the chaining value of its subtree.

import { attach } from '../wasm/core.js';
import { instantiate } from '../wasm/load.js';
import { subtreeChainingValue } from '../wasm/subtree.js';
import type { FromWorker, ToWorker } from './protocol.js';

export function serve(post: (message: FromWorker, transfer?: ArrayBuffer[]) => void): (message: ToWorker) => void {
  return (message) => {
    if (message.type === 'init') {
      try {
        attach(instantiate(message.module));
        post({ type: 'ready' });
      } catch (error) {
        post({ type: 'init-failed', message: String((error as Error)?.message ?? error) });
      }
      return;
    }
    const { id, mode, key, offset, bytes, returnBytes } = message;
    try {
      const cv = subtreeChainingValue(mode, key, offset, bytes);
      if (returnBytes) post({ type: 'done', id, cv, bytes }, [bytes.buffer as ArrayBuffer]);
      else post({ type: 'done', id, cv, bytes: undefined });
    } catch (error) {
      post({ type: 'failed', id, message: String((error as Error)?.message ?? error) });
    }
  };
}
