// A hashing worker that loads, then answers every job wrongly, in the way
// named by BLAKE3_KIT_TEST_REPLY (read when the worker starts).
import { parentPort } from 'node:worker_threads';

const kind = process.env.BLAKE3_KIT_TEST_REPLY;
parentPort.on('message', (message) => {
  if (message.type === 'init') return parentPort.postMessage({ type: 'ready' });
  const { id, returnBytes } = message;
  const bytes = returnBytes ? message.bytes : undefined;
  const cv = new Uint8Array(32);
  const replies = {
    'short cv': { type: 'done', id, cv: new Uint8Array(16), bytes },
    'no cv': { type: 'done', id, cv: undefined, bytes },
    'string cv': { type: 'done', id, cv: 'x'.repeat(32), bytes },
    'wrong job id': { type: 'done', id: id + 1000, cv, bytes },
    'piece kept': { type: 'done', id, cv, bytes: undefined },
    'unknown type': { type: 'result', id, cv, bytes },
    'not an object': 42,
  };
  parentPort.postMessage(replies[kind], bytes ? [bytes.buffer] : []);
});
