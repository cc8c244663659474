// The CLI against the real b3sum (installed by `setup --test`): same
// arguments, same files, same stdin; stdout must match byte for byte, and the
// exit code and error messages too (b3sum's name swapped for ours).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const cli = fileURLToPath(new URL('../../bin/blake3-kit.cjs', import.meta.url));
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

/** stderr with b3sum's name swapped for ours, and without clap's Usage line,
 * the one line allowed to differ (clap builds it from the arguments given). */
const normalise = (stderr: string) => stderr.replaceAll('b3sum:', 'blake3-kit:').replace(/^Usage: .*\n/gm, '');

/** Runs both; stdout, stderr and status must be identical. */
function same(args: string[], input?: Buffer): Run {
  const theirs = run(['b3sum'], args, input);
  const ours = run([process.execPath, cli], args, input);
  expect(ours.stdout.toString('latin1')).toBe(theirs.stdout.toString('latin1'));
  expect(ours.status, `exit status for ${args.join(' ')}`).toBe(theirs.status);
  expect(normalise(ours.stderr)).toBe(normalise(theirs.stderr));
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
    // Past the last of BLAKE3's 2^64 - 1 output bytes, b3sum counts blocks on.
    [['--seek', '18446744073709551615', '--length', '1']],
    [['--seek', '18446744073709551600', '--length', '32']],
    [['--seek', '18446744073709551615']],
    [['--derive-key', 'blake3-kit 2026-11-21 cli test context', '--seek', '18446744073709551553', '-l', '130']],
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
      same(args);
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

// Arguments that are not UTF-8 can't go through spawn's strings: each one is
// passed to bash as $'\xHH…', which hands exec the exact bytes.
const bashQuote = (arg: string | Buffer) => `$'${[...Buffer.from(arg)].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('')}'`;

interface RawCase {
  args: (string | Buffer)[];
  input?: Buffer;
  /** Shell run before each command, e.g. to start a FIFO's writer. */
  before?: string;
}

function runRaw(command: string[], { args, input, before = '' }: RawCase): Run {
  const script = `${before}\nexec ${[...command, ...args].map(bashQuote).join(' ')}`;
  const result = spawnSync('bash', ['-c', script], {
    cwd: dir,
    input: input ?? Buffer.alloc(0),
    env: { ...process.env, RUST_BACKTRACE: '0' },
    maxBuffer: 1 << 28,
    // A hang (a FIFO nobody writes) fails the case instead of the run.
    timeout: 60_000,
    killSignal: 'SIGKILL',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr.toString() };
}

/** Like same(), for raw-byte arguments; --help output is compared with our name. */
function sameRaw(raw: RawCase): Run {
  const theirs = runRaw(['b3sum'], raw);
  const ours = runRaw([process.execPath, cli], raw);
  const label = raw.args.map((arg) => JSON.stringify(Buffer.from(arg).toString('latin1'))).join(' ');
  expect(ours.stdout.toString('latin1'), `stdout for ${label}`).toBe(theirs.stdout.toString('latin1').replaceAll('b3sum', 'blake3-kit'));
  expect(ours.status, `exit status for ${label}`).toBe(theirs.status);
  expect(normalise(ours.stderr), `stderr for ${label}`).toBe(normalise(theirs.stderr));
  return ours;
}

const bytesOf = (...parts: (string | number[])[]) => Buffer.concat(parts.map((part) => Buffer.from(part as string)));
const oddNames = {
  invalid: bytesOf('bad', [0xff], 'name'),
  carriageReturn: Buffer.from('cr\rname'),
  everything: bytesOf('mix', [0xc3], '\n\\\r', [0xe2, 0x82], 'end'),
  bom: Buffer.from('\ufeffbom'),
  missing: bytesOf('missing', [0xfe]),
};
for (const [i, name] of Object.values(oddNames).slice(0, 4).entries()) {
  writeFileSync(Buffer.concat([Buffer.from(`${dir}/`), name]), `odd name ${i}\n`);
}
const odd = Object.values(oddNames);

describe('blake3-kit CLI against b3sum: adversarial cases', () => {
  // Each case runs through both commands: same stdout, stderr and status.
  it.each<[string, RawCase]>([
    ['names that are not UTF-8, or hold \\r', { args: odd }],
    ['the same names in --tag form', { args: ['--tag', ...odd] }],
    ['a name that is not UTF-8 in --raw mode', { args: ['--raw', oddNames.invalid] }],
    ['--derive-key with a context that is not UTF-8', { args: ['--derive-key', bytesOf('ctx', [0xff]), 'a'] }],
    ['--derive-key= with an empty context', { args: ['--derive-key=', 'a'] }],
    ['--length +5', { args: ['--length', '+5', 'a'] }],
    ['--length -1', { args: ['--length', '-1', 'a'] }],
    ['--length with no value', { args: ['--length'] }],
    ['--length followed by a flag', { args: ['--length', '--tag', 'a'] }],
    ['--length followed by --', { args: ['--length', '--', 'a'] }],
    ['--length= (empty)', { args: ['--length=', 'a'] }],
    ['-l "" (empty)', { args: ['-l', '', 'a'] }],
    ['-l5 (attached value)', { args: ['-l5', 'a'] }],
    ['-l=5', { args: ['-l=5', 'a'] }],
    ['-cl 5', { args: ['-cl', '5', 'a'] }],
    ['-l past u64', { args: ['-l', '18446744073709551616', 'a'] }],
    ['-l overflowing before a bad digit', { args: ['-l', '99999999999999999999x', 'a'] }],
    ['-l with a value that is not UTF-8', { args: [bytesOf('-l', [0xff]), 'a'] }],
    ['--seek -1', { args: ['--seek', '-1', 'a'] }],
    ['--seek 2^64', { args: ['--seek', '18446744073709551616', 'a'] }],
    ['--num-threads 1025', { args: ['--num-threads', '1025', 'a'] }],
    ['--num-threads=', { args: ['--num-threads=', 'a'] }],
    ['--tag --raw', { args: ['--tag', '--raw', 'a'] }],
    ['--raw with two files', { args: ['--raw', 'a', 'a'] }],
    ['--keyed with no files', { args: ['--keyed'], input: KEY }],
    ['--keyed --quiet with no files', { args: ['--keyed', '--quiet'] }],
    ['--quiet without --check', { args: ['--quiet', 'a'] }],
    ['--quiet excused by a conflict with --check', { args: ['--quiet', '--tag', 'a'] }],
    ['--keyed -', { args: ['--keyed', '-'], input: KEY }],
    ['three conflicting arguments', { args: ['--check', '--keyed', '--tag', 'a'] }],
    ['a conflict named from the first argument', { args: ['--derive-key', 'x', '--keyed', 'a'] }],
    ['--seek with --check (no conflict)', { args: ['--seek', '5', '-c', 'a'] }],
    ['a repeated flag', { args: ['--tag', '--tag', 'a'] }],
    ['a repeated option', { args: ['-l', '5', '--length', '6', 'a'] }],
    ['an unknown long option', { args: ['--bogus', 'a'] }],
    ['an unknown option with a suggestion', { args: ['--lenght', '5', 'a'] }],
    ['an unknown long option that is not UTF-8', { args: [bytesOf('--', [0xff]), 'a'] }],
    ['an unknown short option in a cluster', { args: ['-cx', 'a'] }],
    ['a short cluster with bytes that are not UTF-8', { args: [bytesOf('-c', [0xff]), 'a'] }],
    ['a flag given a value', { args: ['--tag=1', 'a'] }],
    ['an unknown option after a bad value', { args: ['-l', 'x', '--bogus'] }],
    ['-- then options as files', { args: ['--', '--tag'] }],
    ['an empty file name', { args: ['a', '', 'a'] }],
    ['an empty file name, then -V', { args: ['', '-V'] }],
    ['-h', { args: ['-h'] }],
    ['--help', { args: ['--help', '--bogus'] }],
    ['a name that is not UTF-8 and missing', { args: [oddNames.missing, 'a'] }],
    ['stdin that is a directory', { args: ['-', 'a'], before: 'exec < a-directory' }],
    ['a checkfile on stdin that is a directory', { args: ['-c'], before: 'exec < a-directory' }],
    ['a key on stdin that is a directory', { args: ['--keyed', 'a'], before: 'exec < a-directory' }],
    ['stdin closed', { args: ['-'], before: 'exec <&-' }],
  ])('%s', (_label, raw) => {
    sameRaw(raw);
  });

  it('checks its own escapes: \\r in names, \\r escapes in checkfiles', () => {
    const sums = runRaw(['b3sum'], { args: odd.slice(0, 4) }).stdout;
    const tags = runRaw(['b3sum'], { args: ['--tag', ...odd.slice(0, 4)] }).stdout;
    expect(sums.toString()).toContain('\\r');
    writeFileSync(join(dir, 'odd-sums'), Buffer.concat([sums, tags]));
    sameRaw({ args: ['-c', 'odd-sums'] });
    sameRaw({ args: ['-c', '-'], input: Buffer.concat([sums, tags]) });
  });

  it('rejects a checkfile that starts with a BOM, as b3sum does', () => {
    const line = run(['b3sum'], ['a']).stdout;
    writeFileSync(join(dir, 'bom-sums'), Buffer.concat([Buffer.from('\ufeff'), line, line]));
    sameRaw({ args: ['-c', 'bom-sums'] });
  });

  it('checks the lines before one that is not UTF-8, then fails', () => {
    const line = run(['b3sum'], ['a']).stdout;
    const bad = bytesOf('0b8b', [0xff], '  a\n');
    writeFileSync(join(dir, 'bad-utf8'), Buffer.concat([line, line, bad, line]));
    writeFileSync(join(dir, 'bad-utf8-last'), Buffer.concat([line, bytesOf([0xc3])]));
    writeFileSync(join(dir, 'a-sums'), line);
    sameRaw({ args: ['-c', 'bad-utf8', 'a-sums'] });
    sameRaw({ args: ['-c', 'bad-utf8-last'] });
  });

  it('hashes content, not st_size: procfs, sysfs, FIFOs and pipes', () => {
    // st_size 0 with content; a sysfs file reports 4096 bytes and has fewer.
    const sysfs = ['/sys/devices/system/cpu/online', '/sys/devices/system/cpu/possible', '/sys/kernel/mm/transparent_hugepage/enabled'];
    const files = ['/proc/version', ...sysfs.filter((path) => existsSync(path))];
    expect(statSync('/proc/version').size).toBe(0);
    sameRaw({ args: files });
    sameRaw({ args: ['--no-mmap', ...files] });
    // A FIFO, made afresh for each command and fed by its own writer.
    const fifo = 'rm -f fifo; mkfifo fifo; cat five-mib > fifo &';
    sameRaw({ args: ['fifo', 'a'], before: fifo });
    sameRaw({ args: ['--no-mmap', 'fifo'], before: fifo });
    sameRaw({ args: ['-', 'exactly-64-chunks'], input: bytes(100_000, 11) });
    sameRaw({ args: ['--no-mmap', 'exactly-64-chunks', 'five-mib', 'sixteen-k-minus-one'] });
  });

  it('exits as b3sum does when stdout is closed (| head)', () => {
    const piped = (command: string, args: string) =>
      spawnSync('bash', ['-o', 'pipefail', '-c', `${command} ${args} | head -c 10 > /dev/null`], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, RUST_BACKTRACE: '0' },
      });
    const ours = `${bashQuote(process.execPath)} ${bashQuote(cli)}`;
    // Each writes far more than a pipe holds, so the write after head exits fails.
    writeFileSync(join(dir, 'many-sums'), run(['b3sum'], ['a']).stdout.toString().repeat(30_000));
    for (const args of ['-l 10000000 a', 'a '.repeat(3000), '-c many-sums']) {
      const theirs = piped('b3sum', args);
      const mine = piped(ours, args);
      expect(mine.status, args.slice(0, 40)).toBe(theirs.status);
      // b3sum panics there (status 101); we print the panic's message alone.
      expect(theirs.stderr).toContain('failed printing to stdout: Broken pipe (os error 32)');
      expect(mine.stderr).toBe('blake3-kit: failed printing to stdout: Broken pipe (os error 32)\n');
    }
    const raw = '--raw -l 10000000 a';
    const theirs = piped('b3sum', raw);
    const mine = piped(ours, raw);
    expect(mine.status).toBe(theirs.status);
    expect(mine.stderr).toBe(normalise(theirs.stderr));
  });

  it('streams output longer than a string can hold (--length 3e8, 6e8 hex digits)', () => {
    // Both outputs are hashed on the way, so neither passes through the test.
    const digestOf = (command: string) =>
      spawnSync('bash', ['-o', 'pipefail', '-c', `${command} --no-names -l 300000000 a | b3sum`], { cwd: dir, encoding: 'utf8' });
    const theirs = digestOf('b3sum');
    const ours = digestOf(`${bashQuote(process.execPath)} ${bashQuote(cli)}`);
    expect(ours.status).toBe(0);
    expect(ours.stdout).toBe(theirs.stdout);
  }, 120_000);

  it('reads at most 33 key bytes from an endless stdin, as b3sum does', () => {
    const endless = (command: string) =>
      spawnSync('bash', ['-c', `yes | ${command} --keyed a`], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, RUST_BACKTRACE: '0' },
        timeout: 30_000,
        killSignal: 'SIGKILL',
      });
    const theirs = endless('b3sum');
    const ours = endless(`${bashQuote(process.execPath)} ${bashQuote(cli)}`);
    expect(ours.status).toBe(theirs.status);
    expect(ours.stderr).toBe(theirs.stderr);
  });

  it('prints output past 2^64 - 1 bytes as b3sum does: raw, keyed, long contexts, stdin', () => {
    same(['--raw', '--seek', '18446744073709551615', '--length', '1', 'a']);
    same(['--raw', '--seek', '18446744073709551600', '--length', '32', 'five-mib']);
    same(['--raw', '--seek', '18446744073709551615', '--length', '100000', 'exactly-64-chunks']);
    same(['--keyed', '--seek', '18446744073709551600', '-l', '64', 'a', 'empty', 'chunk-plus-one', 'five-mib'], KEY);
    same(['--derive-key', 'c'.repeat(3000), '--seek', '18446744073709551610', 'one-chunk', 'sixteen-k-minus-one']);
    same(['--seek', '18446744073709551615', '-'], bytes(3 * 1024 * 1024 + 5, 12));
    same(['--no-mmap', '--tag', '--seek', '18446744073709551614', '-l', '3', ...names]);
  });
});

// --check on a checkfile of many small files, as a backup manifest is: the
// same bytes as b3sum, and the shape of the work that makes it as fast
// (src/cli/check.ts): a small regular file is checked without a turn of the
// event loop, and the answers reach stdout in a few large writes, not one
// per line. Both are counted in the child by a preload, not timed: with a
// promise per file (feed() for every line) it took a turn or more per line,
// and with a write per line as many writes as lines.
describe('blake3-kit --check on many small files', () => {
  const SMALL = 2000;
  mkdirSync(join(dir, 'many'));
  // 0 to 16 KiB - 1 bytes (the CLI reads those itself), the edges first.
  const small = Array.from({ length: SMALL }, (_, i) => {
    const size = i < 8 ? [0, 1, 63, 64, 1023, 1024, 1025, 16 * 1024 - 1][i]! : Math.floor(2 ** (((i * 7919) % 1400) / 100));
    const name = `many/${i}.bin`;
    writeFileSync(join(dir, name), bytes(size, i + 100));
    return name;
  });
  // The other path: 16 KiB and more, and links.
  writeFileSync(join(dir, 'many/sixteen-k'), bytes(16 * 1024, 20));
  writeFileSync(join(dir, 'many/sixty-four-k-plus-one'), bytes(64 * 1024 + 1, 21));
  symlinkSync('5.bin', join(dir, 'many/link'));
  symlinkSync('nowhere', join(dir, 'many/dangling'));
  symlinkSync('loop', join(dir, 'many/loop'));
  symlinkSync('../a-directory', join(dir, 'many/dir-link'));

  /** b3sum's checkfile of `paths`, in batches (ARG_MAX). */
  const sumsOf = (paths: string[]) => {
    const parts: Buffer[] = [];
    for (let i = 0; i < paths.length; i += 500) parts.push(run(['b3sum'], paths.slice(i, i + 500)).stdout);
    return Buffer.concat(parts);
  };
  const smallSums = sumsOf(small);
  writeFileSync(join(dir, 'small-sums'), smallSums);
  /** Lines [from, to) of the small files' checkfile, each with its newline. */
  const smallLines = (from: number, to: number) => smallSums.toString('latin1').split('\n').slice(from, to).join('\n').concat('\n');

  // In the child: turns of the event loop (an unref'd immediate that re-arms
  // itself runs once a turn and keeps nothing alive) and writes to fd 1,
  // saved to CHECK_COUNTS at exit. fs.writeSync is replaced before the CLI's
  // `import { writeSync }` binds it (syncBuiltinESMExports).
  const preload = join(dir, 'count-turns.mjs');
  writeFileSync(
    preload,
    `import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const counts = { turns: 0, stdoutWrites: 0 };
const turn = () => { counts.turns++; setImmediate(turn).unref(); };
setImmediate(turn).unref();
const writeSync = fs.writeSync;
fs.writeSync = function (fd, ...rest) {
  if (fd === 1) counts.stdoutWrites++;
  return writeSync.call(this, fd, ...rest);
};
syncBuiltinESMExports();
process.on('exit', () => fs.writeFileSync(process.env.CHECK_COUNTS, JSON.stringify(counts)));
`,
  );
  /** Our command under the preload: its run, and what it counted. */
  const counted = (args: string[]) => {
    const file = join(dir, 'counts.json');
    rmSync(file, { force: true });
    const result = spawnSync(process.execPath, ['--import', preload, cli, ...args], {
      cwd: dir,
      env: { ...process.env, CHECK_COUNTS: file },
      maxBuffer: 1 << 28,
    });
    const counts: { turns: number; stdoutWrites: number } = JSON.parse(readFileSync(file, 'utf8'));
    return { status: result.status, stdout: result.stdout, stderr: result.stderr.toString(), ...counts };
  };

  it('answers as b3sum does, without a turn of the event loop or a write per line', () => {
    const theirs = run(['b3sum'], ['--check', 'small-sums']);
    expect(theirs.status).toBe(0);
    const ours = counted(['--check', 'small-sums']);
    expect(ours.stdout.toString('latin1')).toBe(theirs.stdout.toString('latin1'));
    expect(ours.stderr).toBe('');
    expect(ours.status).toBe(0);
    // Start-up (compiling the wasm, loading the addon) takes a few dozen
    // turns; a turn per file would be 2000 or more.
    expect(ours.turns).toBeLessThan(SMALL / 10);
    // ~80 KB of answers: a handful of writes, not one per line.
    expect(ours.stdoutWrites).toBeLessThan(SMALL / 100);
    const quiet = counted(['--check', '--quiet', 'small-sums']);
    expect(quiet.stdout.length).toBe(0);
    expect(quiet.status).toBe(0);
    expect(quiet.turns).toBeLessThan(SMALL / 10);
  });

  it('checks every other kind of line as b3sum does, in order, with --quiet too', () => {
    const good = sumsOf([
      'many/sixteen-k',
      'many/sixty-four-k-plus-one',
      'five-mib',
      'many/link',
      'with space',
      'new\nline',
      'back\\slash',
      'many/3.bin',
    ]);
    const hash = run(['b3sum'], ['--no-names', 'many/3.bin']).stdout.toString().trim();
    const wrong = `${hash.slice(0, 63)}${hash[63] === '0' ? '1' : '0'}`;
    const lines = [
      smallLines(0, 300),
      good.toString('latin1'),
      ...[
        `${wrong}  many/4.bin`,
        `${hash}  missing`,
        `${hash}  many/missing`,
        `${hash}  many/3.bin/below-a-file`,
        `${hash}  a-directory`,
        `${hash}  many/dir-link`,
        `${hash}  many/dangling`,
        `${hash}  many/loop`,
        `${hash}  /proc/version`,
        'garbage line',
        '',
        `${hash}  many/3.bin`,
        `BLAKE3 (many/3.bin) = ${hash}`,
        `BLAKE3 (many/4.bin) = ${wrong}`,
        `${hash.toUpperCase()}  many/3.bin`,
      ].map((line) => `${line}\n`),
      smallLines(300, 600),
    ].join('');
    writeFileSync(join(dir, 'small-mixed'), lines, 'latin1');
    expect(same(['--check', 'small-mixed']).status).toBe(1);
    same(['--check', '--quiet', 'small-mixed']);
    same(['-c', 'small-sums', 'small-mixed', 'no-such-checkfile', 'small-sums']);
    // A checkfile on stdin, and a line that names stdin.
    same(['-c', '-'], Buffer.from(lines, 'latin1'));
    const input = bytes(100_000, 7);
    writeFileSync(join(dir, 'small-stdin'), smallLines(0, 10) + run(['b3sum'], ['-'], input).stdout.toString() + smallLines(10, 20));
    same(['-c', 'small-stdin'], input);
  });

  it('checks the 32 output bytes from --seek on, as b3sum does, past 2^64 - 1 too', () => {
    const files = [...names, 'many/0.bin', 'many/7.bin', 'many/sixteen-k'];
    for (const seek of ['5', '18446744073709551600', '18446744073709551615']) {
      writeFileSync(join(dir, 'seek-sums'), run(['b3sum'], ['--seek', seek, ...files]).stdout);
      expect(same(['--seek', seek, '-c', 'seek-sums']).status).toBe(0);
      expect(same(['-c', 'seek-sums']).status).toBe(1);
    }
    same(['--seek', '64', '-c', 'small-sums']);
  });

  it('reads procfs to its end past its read buffer, and FIFOs as they flow', () => {
    // /proc/kallsyms reports 0 bytes and holds megabytes (many of the CLI's
    // 64 KiB buffers); used where it reads the same twice.
    const kallsyms = run(['b3sum'], ['/proc/kallsyms']);
    if (kallsyms.status === 0 && kallsyms.stdout.equals(run(['b3sum'], ['/proc/kallsyms']).stdout)) {
      writeFileSync(join(dir, 'small-proc'), kallsyms.stdout.toString() + smallLines(0, 30));
      same(['-c', 'small-proc']);
    }
    writeFileSync(join(dir, 'fifo-content'), bytes(200_000, 9));
    const fifoLine = run(['b3sum'], ['fifo-content']).stdout.toString().replace('fifo-content', 'fifo');
    writeFileSync(join(dir, 'small-fifo'), smallLines(0, 20) + fifoLine + smallLines(20, 40));
    // A FIFO made afresh for each command; its writer gives up after a
    // minute and never holds the run's pipes.
    sameRaw({ args: ['-c', 'small-fifo'], before: "rm -f fifo; mkfifo fifo; timeout 60 sh -c 'cat fifo-content > fifo' > /dev/null 2>&1 &" });
  });
});
