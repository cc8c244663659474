// The CLI against the real b3sum (installed by `setup --test`): same
// arguments, same files, same stdin; stdout must match byte for byte, and the
// exit code and error messages too (b3sum's name swapped for ours).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const cli = fileURLToPath(new URL('../../bin/blake3-kit.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'blake3-kit-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function bytes(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed;
  for (let i = 0; i < length; i++) out[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
  return out;
}

const files: Record<string, Buffer> = {
  a: Buffer.from('hi\n'),
  empty: Buffer.alloc(0),
  'one-chunk': bytes(1024, 1),
  'chunk-plus-one': bytes(1025, 2),
  'sixteen-k-minus-one': bytes(16 * 1024 - 1, 3),
  'exactly-64-chunks': bytes(64 * 1024, 4),
  'five-mib': bytes(5 * 1024 * 1024 + 7, 5),
  'with space': Buffer.from('space'),
  'new\nline': Buffer.from('newline'),
  'back\\slash': Buffer.from('backslash'),
  'ünïcødé ✓': Buffer.from('unicode'),
};
for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
mkdirSync(join(dir, 'a-directory'));
const names = Object.keys(files);
const KEY = Buffer.from('whats the Elvish word for friend');

interface Run {
  status: number | null;
  stdout: Buffer;
  stderr: string;
}

function run(command: string[], args: string[], input?: Buffer): Run {
  const result = spawnSync(command[0]!, [...command.slice(1), ...args], {
    cwd: dir,
    input: input ?? Buffer.alloc(0),
    env: { ...process.env, RUST_BACKTRACE: '0' },
    maxBuffer: 1 << 28,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr.toString() };
}

/** Runs both; stdout and status must be identical, stderr too unless it is a usage message. */
function same(args: string[], input?: Buffer, { stderr = true } = {}): Run {
  const theirs = run(['b3sum'], args, input);
  const ours = run([process.execPath, cli], args, input);
  expect(ours.stdout.toString('latin1')).toBe(theirs.stdout.toString('latin1'));
  expect(ours.status, `exit status for ${args.join(' ')}`).toBe(theirs.status);
  if (stderr) expect(ours.stderr).toBe(theirs.stderr.replaceAll('b3sum:', 'blake3-kit:'));
  return ours;
}

describe('blake3-kit CLI against b3sum', () => {
  it('is running the b3sum it is compared with', () => {
    expect(run(['b3sum'], ['--version']).stdout.toString()).toBe('b3sum 1.8.7\n');
  });

  it.each([
    [[]],
    [['--tag']],
    [['--no-names']],
    [['-l', '0']],
    [['--length', '1']],
    [['-l', '100']],
    [['--length', '1000', '--seek', '70']],
    [['--seek', '18446744073709551000', '-l', '64']],
    [['--derive-key', 'blake3-kit 2026-11-21 cli test context']],
    [['--num-threads', '1']],
    [['--no-mmap', '--tag', '-l', '40']],
  ])('hashes files with %j, escaping names and reporting missing files and directories', (args) => {
    const result = same([...args, ...names, 'missing', 'a-directory']);
    expect(result.status).toBe(1);
  });

  it('reads standard input for - or no file, in every output form', () => {
    const input = bytes(100_000, 9);
    same([], input);
    same(['-'], input);
    same(['--tag', '-', 'a'], input);
    same(['--no-names', '-l', '77'], input);
  });

  it('writes raw bytes, and only for a single input', () => {
    same(['--raw', 'a']);
    same(['--raw', '-l', '1000', '--seek', '3', 'five-mib']);
    same(['--raw', '-l', '70'], Buffer.from('stdin'));
    same(['--raw', 'a', 'empty']);
  });

  it('keyed mode reads exactly 32 key bytes from stdin', () => {
    same(['--keyed', 'a', 'five-mib', 'back\\slash'], KEY);
    same(['--keyed', '--tag', '-l', '50', 'a'], KEY);
    same(['--keyed', 'a'], KEY.subarray(0, 31));
    same(['--keyed', 'a'], Buffer.concat([KEY, Buffer.from('!')]));
    same(['--keyed', '-'], KEY);
  });

  it('checks checkfiles: OK, FAILED, missing files, --quiet, tags, escapes', () => {
    writeFileSync(join(dir, 'sums'), run(['b3sum'], names).stdout);
    writeFileSync(join(dir, 'tags'), run(['b3sum'], ['--tag', ...names]).stdout);
    same(['-c', 'sums']);
    same(['--check', 'tags', 'sums']);
    writeFileSync(join(dir, 'a'), 'changed\n');
    unlinkSync(join(dir, 'with space'));
    try {
      same(['-c', 'sums']);
      same(['-c', '--quiet', 'sums', 'tags']);
      same(['-c'], run(['b3sum'], ['--tag', 'empty']).stdout);
    } finally {
      writeFileSync(join(dir, 'a'), files.a!);
      writeFileSync(join(dir, 'with space'), files['with space']!);
    }
  });

  it('reports malformed check lines the way b3sum does', () => {
    const hash = run(['b3sum'], ['--no-names', 'a']).stdout.toString().trim();
    const lines = [
      'garbage line',
      '',
      `${hash} a`,
      `${hash.toUpperCase()}  a`,
      `${hash}x  a`,
      '0b8b  a',
      `${hash}  `,
      `${hash}   a`,
      `${hash}  a\r`,
      `\\${hash}  a\\q`,
      `\\${hash}  a\\`,
      `BLAKE3 (a) = ${hash}`,
      `BLAKE3 (a) = ${hash.slice(2)}`,
      `BLAKE3 (a)  = ${hash}`,
      `BLAKE3(a) = ${hash}`,
      `BLAKE3 () = ${hash}`,
      `BLAKE3 (a) = ${hash}  a`,
      `\\BLAKE3 (back\\\\slash) = ${hash}`,
      `${hash}  a\ufffd`,
      `${hash}  a-directory`,
    ];
    writeFileSync(join(dir, 'bad'), `${lines.join('\n')}\n`);
    same(['-c', 'bad']);
    same(['-c', '--quiet', 'bad']);
  });

  it('stops at a missing checkfile with an error', () => {
    writeFileSync(join(dir, 'sums-ok'), run(['b3sum'], ['a']).stdout);
    same(['-c', 'sums-ok', 'no-such-checkfile', 'sums-ok']);
  });

  it('rejects bad usage with exit status 2', () => {
    for (const args of [['--quiet', 'a'], ['--keyed', '--derive-key', 'x', 'a'], ['-l', 'abc', 'a'], ['-c', '-l', '5', 'sums'], ['--bogus']]) {
      same(args, undefined, { stderr: false });
    }
  });

  it('hashes a file over 4 GiB (sparse)', () => {
    const sparse = join(dir, 'sparse-4g');
    writeFileSync(sparse, 'head');
    truncateSync(sparse, 4 * 1024 ** 3 + 5);
    try {
      same(['sparse-4g']);
    } finally {
      unlinkSync(sparse);
    }
  }, 300_000);

  it('draws a progress line only when stderr is a terminal', () => {
    // The line is redrawn at most every 100 ms, so hashing must last longer
    // than that: 2 GiB on one thread takes ~0.3 s natively (a 300 MiB file
    // was sometimes done before the first redraw).
    const big = join(dir, 'big');
    writeFileSync(big, 'x');
    truncateSync(big, 2 * 1024 ** 3);
    try {
      const piped = same(['--num-threads', '1', 'big']);
      expect(piped.stderr).toBe('');
      // `script` gives the command a pseudo-terminal.
      const tty = spawnSync('script', ['-qec', `${process.execPath} ${cli} --num-threads 1 big`, '/dev/null'], { cwd: dir, encoding: 'latin1' });
      expect(tty.stdout).toContain(' MB/s');
      expect(tty.stdout).toContain(`${piped.stdout.toString().trim()}`);
    } finally {
      unlinkSync(big);
    }
  }, 120_000);
});
