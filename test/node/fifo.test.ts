// FIFOs as `producer > p & blake3-kit p` makes them: the writer is already
// waiting in open() when hashing starts, so a small one has written and gone
// before a second open() of the path could see it, and a descriptor opened
// after its writer left never sees the end. hashFile and the CLI, on the
// project's backend (BLAKE3_KIT_BACKEND, which the children inherit), against
// b3sum. Everything runs in child processes with deadlines: a hang fails its
// case, not the run.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { pattern } from '../shared/setup.js';

const entry = fileURLToPath(new URL('../../dist/node.js', import.meta.url));
const cli = fileURLToPath(new URL('../../bin/blake3-kit.cjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'blake3-kit-fifo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sources = {
  small: join(dir, 'small'),
  // More than a pipe holds: the writer is still there when reading starts.
  large: join(dir, 'large'),
};
writeFileSync(sources.small, 'hello\n');
writeFileSync(sources.large, pattern(5 * 1024 * 1024 + 3, 8));
writeFileSync(join(dir, 'a'), 'a\n');

const DEADLINE = 30_000;
const b3sum = (path: string) => spawnSync('b3sum', ['--no-names', path], { encoding: 'utf8' }).stdout.trim();

/** Runs `code` (an async module body) with the package as `b3`, and
 * `fifo(source, write?)`: a new FIFO whose writer (`cat source`, or the
 * shell command `write` with $0 = source, $1 = the FIFO) is already
 * waiting in open(); resolves to its path, the writer and its exit. */
function child(code: string) {
  const script = join(dir, `child-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(
    script,
    `import { execFileSync, spawn } from 'node:child_process';
    import { once } from 'node:events';
    import { setTimeout as sleep } from 'node:timers/promises';
    const b3 = await import(${JSON.stringify(entry)});
    await b3.init();
    let fifos = 0;
    async function fifo(source, write = 'exec cat "$0" > "$1"') {
      const path = ${JSON.stringify(dir)} + '/p-' + process.pid + '-' + fifos++;
      execFileSync('mkfifo', [path]);
      const writer = spawn('sh', ['-c', write, source, path], { stdio: 'ignore' });
      const exited = once(writer, 'exit');
      await sleep(100); // the writer is blocked in open() by now
      return { path, exited, writer };
    }
    ${code}`,
  );
  return spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: DEADLINE, killSignal: 'SIGKILL' });
}

// The children pick the backend the same way in both wasm projects.
describe.skipIf(inject('backend') === 'wasm-scalar')('a FIFO whose writer waits before hashing starts', () => {
  const ways = [
    '{}',
    '{ mmap: false }',
    '{ onProgress: () => {} }',
    '{ signal: new AbortController().signal }',
    '{ mmap: false, onProgress: () => {} }',
  ];

  it.each(Object.entries(sources))('hashFile, %s content, on every path', (_, source) => {
    // Three rounds: the writer of small content left before a second open()
    // in most rounds, not all.
    const result = child(
      `for (let round = 0; round < 3; round++) {
        for (const options of [${ways.join(', ')}]) {
          const { path, exited } = await fifo(${JSON.stringify(source)});
          console.log(b3.toHex(await b3.hashFile(path, options)), (await exited)[0]);
        }
      }`,
    );
    expect(result.signal, 'the child hung').toBeNull();
    expect(result.stderr).toBe('');
    expect(result.stdout.trim().split('\n')).toEqual(Array(3 * ways.length).fill(`${b3sum(source)} 0`));
  });

  it.each(Object.entries(sources))('the CLI, %s content, as b3sum', (_, source) => {
    for (const command of [`${JSON.stringify(process.execPath)} ${JSON.stringify(cli)}`, 'b3sum']) {
      for (const flags of ['', '--no-mmap']) {
        // The writer starts first; the command opens the FIFO afterwards.
        const script = `rm -f p; mkfifo p; cat "$0" > p & sleep 0.1; ${command} ${flags} p a; status=$?; wait; exit $status`;
        const result = spawnSync('sh', ['-c', script, source], { cwd: dir, encoding: 'utf8', timeout: DEADLINE, killSignal: 'SIGKILL' });
        expect(result.signal, `${command} ${flags} hung`).toBeNull();
        expect(result.stderr).toBe('');
        expect(result.status).toBe(0);
        expect(result.stdout).toBe(`${b3sum(source)}  p\n${b3sum(join(dir, 'a'))}  a\n`);
      }
    }
  });

  it('hashFile with a signal settles when aborted while the writer sends nothing', () => {
    const result = child(
      `for (const options of [{}, { mmap: false }, { onProgress: () => {} }]) {
        // A writer that holds the FIFO open and never writes.
        const { path, writer } = await fifo('/dev/null', 'exec sleep 30 > "$1"');
        const began = performance.now();
        try {
          await b3.hashFile(path, { ...options, signal: AbortSignal.timeout(200) });
          console.log('resolved');
        } catch (e) {
          console.log(e.name, performance.now() - began < 2000);
        }
        writer.kill();
      }`,
    );
    expect(result.signal, 'the child hung').toBeNull();
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0); // exited by itself: nothing left waiting
    expect(result.stdout.trim().split('\n')).toEqual(Array(3).fill('TimeoutError true'));
  });
});
