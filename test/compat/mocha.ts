// mocha's test functions over vitest's, for blake3's own test files (copied
// from its repository; only their imports changed, see ADAPTED.md).
// vitest 4 has no done callbacks: a test taking one becomes a promise. Tests
// whose expectation the compat entry deliberately does not meet are
// expected to fail (as vitest's it.fails), each with its reason in
// KNOWN_DIFFERENCES.

import { afterAll, afterEach, beforeAll, beforeEach, describe, it as vitestIt } from 'vitest';

type Done = (error?: unknown) => void;
type TestFunction = (() => unknown) | ((done: Done) => void);

/** Full test names (the file's last two path parts, the describe titles
 * and the test's, joined by ' > ') that
 * fail on purpose, with why; docs/migrating.md has each. */
const KNOWN_DIFFERENCES: Record<string, string> = {
  'blake3/node.test.ts > node.js wasm > reader > throws if set out of range':
    '3.x reads short at the end of output (read(2) at 2^64 - 2 gives 1 byte); 2.x, and we, throw a RangeError, which 2.x tests',
  'blake3/node.test.ts > node.js native > reader > throws if set out of range': 'as in node.js wasm',
};

interface TaskLike {
  name: string;
  suite?: TaskLike;
  file?: TaskLike;
  filepath?: string;
}

/** The test's name with its describe titles, as KNOWN_DIFFERENCES has it. */
function fullName(task: TaskLike): string {
  const names = [task.name];
  let suite = task.suite;
  for (; suite !== undefined && suite.filepath === undefined; suite = suite.suite) names.unshift(suite.name);
  names.unshift((suite?.filepath ?? task.file?.filepath ?? '').split(/[\\/]/).slice(-2).join('/'));
  return names.join(' > ');
}

function run(fn: TestFunction): Promise<unknown> {
  if (fn.length === 0) return Promise.resolve().then(fn as () => unknown);
  return new Promise<void>((resolve, reject) =>
    (fn as (done: Done) => void)((error) => (error === undefined || error === null ? resolve() : reject(error))),
  );
}

function mochaIt(title: string, fn: TestFunction) {
  return vitestIt(title, async ({ task }) => {
    const reason = KNOWN_DIFFERENCES[fullName(task as TaskLike)];
    if (reason === undefined) return run(fn);
    // Must fail, as vitest's it.fails: if it passes, the difference is gone.
    let failed = false;
    await run(fn).catch(() => {
      failed = true;
    });
    if (!failed) throw new Error(`expected to fail (a known difference: ${reason}), but it passed`);
  });
}

export { afterAll as after, afterEach, beforeAll as before, beforeEach, describe, mochaIt as it };
