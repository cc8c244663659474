// Files whose size says nothing of their content: procfs (st_size 0; its
// sysctl files also refuse reads of 4 MiB with ENOMEM), sysfs (4096), and
// character devices. hashFile and the CLI on the project's backend
// (BLAKE3_KIT_BACKEND, which the children inherit), on every path, against
// b3sum; in child processes with deadlines.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, inject, it } from 'vitest';

const entry = fileURLToPath(new URL('../../dist/node.js', import.meta.url));
const cli = fileURLToPath(new URL('../../bin/blake3-kit.cjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'blake3-kit-odd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DEADLINE = 30_000;
const b3sum = (...args: string[]) => spawnSync('b3sum', ['--no-names', ...args], { encoding: 'utf8' }).stdout;

/** Every path hashFile takes for a file on a backend. */
const WAYS = [
  '{}',
  '{ mmap: false }',
  '{ onProgress: () => {} }',
  '{ signal: new AbortController().signal }',
  '{ mmap: false, onProgress: () => {} }',
  '{ mmap: false, signal: new AbortController().signal }',
];

/** A script that prints hashFile(path) each way, a line of hex (or the
 * error) per way. */
function hashFileScript(path: string): string {
  const script = join(dir, `child-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(
    script,
    `const b3 = await import(${JSON.stringify(entry)});
    await b3.init();
    for (const options of [${WAYS.join(', ')}]) {
      try {
        console.log(b3.toHex(await b3.hashFile(${JSON.stringify(path)}, options)));
      } catch (e) {
        console.log(e.code, e.message);
      }
    }`,
  );
  return script;
}

const hashFileEachWay = (path: string) =>
  spawnSync(process.execPath, [hashFileScript(path)], { encoding: 'utf8', timeout: DEADLINE, killSignal: 'SIGKILL' });

// The children pick the backend the same way in both wasm projects.
describe.skipIf(inject('backend') === 'wasm-scalar')('files that misreport their size', () => {
  const sysfs = ['/sys/kernel/mm/transparent_hugepage/enabled', '/sys/devices/system/cpu/online', '/sys/kernel/profiling'].find(
    (path) => existsSync(path) && statSync(path).size === 4096 && readFileSync(path).length < 4096,
  );
  const files = ['/proc/sys/kernel/osrelease', '/proc/version', '/proc/self/mountinfo', '/dev/null', ...(sysfs ? [sysfs] : [])];

  it.each(files)('hashFile(%s) on every path, as b3sum', (path) => {
    const result = hashFileEachWay(path);
    expect(result.signal, 'the child hung').toBeNull();
    expect(result.stderr).toBe('');
    expect(result.stdout.split('\n').slice(0, -1)).toEqual(Array(WAYS.length).fill(b3sum(path).trim()));
  });

  it('the CLI, with and without --no-mmap, as b3sum', () => {
    for (const flags of [[], ['--no-mmap']]) {
      const ours = spawnSync(process.execPath, [cli, '--no-names', ...flags, ...files], {
        encoding: 'utf8',
        timeout: DEADLINE,
        killSignal: 'SIGKILL',
      });
      expect(ours.stderr).toBe('');
      expect(ours.status).toBe(0);
      expect(ours.stdout, flags.join(' ')).toBe(b3sum(...flags, ...files));
    }
  });

  it.skipIf(!existsSync('/usr/bin/script'))('a terminal: read to its end-of-file, waiting while it has nothing', () => {
    // `script` gives the child a terminal. Its input arrives after a pause
    // (a non-blocking read answers EAGAIN meanwhile): a line and ^D per way.
    const input = `sleep 0.5; for way in ${WAYS.map((_, i) => i).join(' ')}; do printf 'abc\\n\\004'; sleep 0.1; done`;
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(hashFileScript('/dev/tty'))}`;
    const result = spawnSync('sh', ['-c', `(${input}) | script -qec '${command}' /dev/null`], {
      encoding: 'utf8',
      timeout: DEADLINE,
      killSignal: 'SIGKILL',
    });
    expect(result.signal, 'hung').toBeNull();
    const expected = spawnSync('b3sum', ['--no-names'], { input: 'abc\n', encoding: 'utf8' }).stdout.trim();
    // The terminal echoes each line of input.
    const digests = result.stdout.split(/\r?\n/).filter((line) => line !== '' && line !== 'abc');
    expect(digests).toEqual(Array(WAYS.length).fill(expected));
  });

  it("another process's /proc/<pid>/status (larger, and the same for both readers)", async () => {
    // A sleeping process's status holds still; /proc/self's would differ per reader.
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const path = `/proc/${sleeper.pid}/status`;
      // Mostly still: on a loaded machine its counters can move now and then
      // (seen once in a full run), so a run during which it changed is redone.
      let before = '';
      let result!: ReturnType<typeof hashFileEachWay>;
      for (let attempt = 0; attempt < 5; attempt++) {
        before = b3sum(path).trim();
        result = hashFileEachWay(path);
        if (b3sum(path).trim() === before) break;
      }
      expect(b3sum(path).trim(), 'the status kept changing').toBe(before);
      expect(result.stderr).toBe('');
      expect(result.stdout.split('\n').slice(0, -1)).toEqual(Array(WAYS.length).fill(before));
    } finally {
      sleeper.kill();
    }
  });
});
