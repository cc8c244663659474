// Entry of a worker_threads hashing worker (dist/worker-node.js).
import { parentPort } from 'node:worker_threads';
import { serve } from '../parallel/serve.js';
import type { ToWorker } from '../parallel/protocol.js';

const port = parentPort!;
const handle = serve((message, transfer) => port.postMessage(message, transfer as never));
port.on('message', (message: ToWorker) => handle(message));
