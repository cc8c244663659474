// Entry of a Web Worker for hashing (dist/worker.js, a module worker).
import { serve } from '../parallel/serve.js';
import type { ToWorker } from '../parallel/protocol.js';

const scope = globalThis as unknown as {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
};
const handle = serve((message, transfer) => scope.postMessage(message, transfer ?? []));
scope.onmessage = (event) => handle(event.data);
