// Imported before the real worker, so this listener runs first: the worker
// exits after receiving its third job and before answering it.
import { parentPort } from 'node:worker_threads';

let jobs = 0;
parentPort.on('message', (message) => {
  if (message.type === 'job' && ++jobs === 3) process.exit(7);
});
