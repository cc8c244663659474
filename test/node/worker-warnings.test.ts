// When workers can't start, hashing goes on right, on this thread, and it is
// never silent: one console warning per pool that gives up, whatever the
// number of calls, and parallelStatus().broken keeps the reason.
import { configureParallel, hash, hashParallel, parallelStatus, toHex } from 'blake3-kit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parallelApi } from '../../src/parallel/api.js';
import { load, pattern } from '../shared/setup.js';

await load();
const input = pattern(3 << 20);
const GAVE_UP = /^blake3-kit: workers keep failing to start; hashing on this thread instead \(.+\)$/;

afterEach(() => {
  vi.restoreAllMocks();
  configureParallel({ workers: 0, threshold: 4 << 20, workerUrl: undefined, helpWhileStarting: true });
});

describe.each([
  ['a worker file that does not exist', new URL('./workers/no-such-worker.mjs', import.meta.url), /no-such-worker\.mjs/],
  // Node's Worker throws in its constructor for this one: it must count as a
  // failed start, not throw out of the middle of dispatching jobs.
  ['a URL the Worker constructor refuses', 'http://127.0.0.1:9/worker.mjs', /absolute path/],
])('%s', (_, workerUrl, reason) => {
  it('hashes right on this thread and warns once for all calls, and parallelStatus() says why', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    // Every piece waits for the workers: with this thread's help while they
    // start, the calls could all end before the pool gives up.
    configureParallel({ workers: 2, threshold: 0, workerUrl, helpWhileStarting: false });
    const digests = await Promise.all([0, 1, 2].map(() => hashParallel(input)));
    digests.push(await hashParallel(input));
    for (const digest of digests) expect(toHex(digest)).toBe(toHex(hash(input)));
    const { broken, jobs } = parallelStatus();
    expect(jobs).toBe(0);
    expect(broken).toMatch(GAVE_UP);
    expect(broken).toMatch(reason);
    expect(warn.mock.calls).toEqual([[broken]]);
  });
});

it('warns once where no Worker exists, and parallelStatus() says so', async () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  const noWorkers = parallelApi({ spawn: undefined, concurrency: () => 4, sharedMemory: () => false, workersReadBlobs: false });
  noWorkers.configureParallel({ threshold: 0 });
  for (let i = 0; i < 3; i++) expect(toHex(await noWorkers.hashParallel(input))).toBe(toHex(hash(input)));
  expect(noWorkers.parallelStatus().broken).toBe('blake3-kit: Worker is not available here; hashing on this thread instead');
  expect(warn.mock.calls).toEqual([[noWorkers.parallelStatus().broken]]);
});
