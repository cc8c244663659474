// hashFile, hashStream and the stream classes, against one-shot hashing.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, createReadStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FileTruncatedError, HashSink, HashTransform, hashFile, hashStream } from 'blake3-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { KEY, load, pattern } from '../shared/setup.js';

const b3 = await load();
const dir = mkdtempSync(join(tmpdir(), 'blake3-kit-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const hex = b3.toHex;

function file(name: string, content: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('hashFile', () => {
  it.each([
    ['empty', 0],
    ['under 16 KiB', 16 * 1024 - 1],
    ['exactly 2^10 chunks', 1024 * 1024],
    ['2^11 chunks + 1 byte', 2 * 1024 * 1024 + 1],
    ['several read pieces', 3 * 1024 * 1024 + 12_345],
  ])('%s (%i bytes), in every mode and with extended output', async (_, size) => {
    const content = pattern(size, 5);
    const path = file(`f-${size}`, content);
    expect(hex(await hashFile(path))).toBe(hex(b3.hash(content)));
    expect(hex(await hashFile(pathToFileURL(path), { key: KEY, length: 100 }))).toBe(hex(b3.hash(content, { key: KEY, length: 100 })));
    expect(hex(await hashFile(path, { context: 'ctx' }))).toBe(hex(b3.deriveKey('ctx', content)));
  });

  it('reports progress up to the total exactly once', async () => {
    const path = file('progress', pattern(5 * 1024 * 1024 + 3));
    const seen: [number, number | undefined][] = [];
    await hashFile(path, { onProgress: (done, total) => seen.push([done, total]) });
    expect(seen.at(-1)).toEqual([5 * 1024 * 1024 + 3, 5 * 1024 * 1024 + 3]);
    expect(seen.filter(([done]) => done === 5 * 1024 * 1024 + 3)).toHaveLength(1);
    expect(seen.map(([done]) => done)).toEqual([...seen.map(([done]) => done)].sort((a, b) => a - b));
  });

  it('rejects missing files, directories and unreadable files with their code', async () => {
    await expect(hashFile(join(dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(hashFile(dir)).rejects.toMatchObject({ code: 'EISDIR' });
    const locked = file('locked', pattern(10));
    chmodSync(locked, 0o000);
    if (process.getuid?.() === 0) {
      // root reads anything; the code path is the same as for ENOENT.
      expect(hex(await hashFile(locked))).toBe(hex(b3.hash(pattern(10))));
    } else {
      await expect(hashFile(locked)).rejects.toMatchObject({ code: 'EACCES' });
    }
  });

  it('rejects a file truncated while it is hashed, never returning a digest', async () => {
    // Large enough for several progress reports on every path (the native
    // one steps 16 MiB at a time); cut short at the first.
    const size = 40 * 1024 * 1024;
    const path = file('shrinking', pattern(size));
    let cut = false;
    const hashing = hashFile(path, {
      onProgress: (done) => {
        if (!cut && done < size) truncateSync(path, 2 * 1024 * 1024 + 100);
        cut = true;
      },
    });
    await expect(hashing).rejects.toBeInstanceOf(FileTruncatedError);
    await expect(hashFile(path).then(() => 'ok')).resolves.toBe('ok');
    try {
      await hashing;
    } catch (error) {
      expect(error).toMatchObject({ code: 'ERR_FILE_TRUNCATED', expected: size, read: 2 * 1024 * 1024 + 100 });
    }
  });

  it('hashes a sparse file over 4 GiB', async () => {
    const path = file('sparse', new TextEncoder().encode('head'));
    truncateSync(path, 4 * 1024 ** 3 + 1);
    try {
      // The official b3sum (installed by setup --test) is the oracle here.
      const expected = execFileSync('b3sum', ['--no-names', path], { encoding: 'utf8' }).trim();
      expect(hex(await hashFile(path))).toBe(expected);
    } finally {
      rmSync(path);
    }
  }, 300_000);

  it('stops on abort and rejects with the reason', async () => {
    const path = file('abort', pattern(20 * 1024 * 1024));
    const controller = new AbortController();
    const hashing = hashFile(path, {
      signal: controller.signal,
      onProgress: (done) => done >= 2 * 1024 * 1024 && controller.abort(new Error('enough')),
    });
    await expect(hashing).rejects.toThrow('enough');
    await expect(hashFile(path, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('takes a Buffer path, even one that is not UTF-8, and nothing else', async () => {
    const content = pattern(100_000, 4);
    const name = Buffer.concat([Buffer.from(join(dir, 'raw-')), Buffer.from([0xff, 0xfe])]);
    writeFileSync(name, content);
    for (const options of [{}, { mmap: false }, { onProgress: () => {} }]) {
      expect(hex(await hashFile(name, options)), JSON.stringify(options)).toBe(hex(b3.hash(content)));
    }
    await expect(hashFile(42 as never)).rejects.toThrow(/^blake3-kit: path must be a string, URL or Buffer; got number$/);
  });

  it('validates its options before touching the file', async () => {
    await expect(hashFile(join(dir, 'missing'), { key: new Uint8Array(3) })).rejects.toBeInstanceOf(RangeError);
    await expect(hashFile(join(dir, 'missing'), { signal: 'no' as never })).rejects.toBeInstanceOf(TypeError);
    await expect(hashFile(join(dir, 'missing'), { length: -1 })).rejects.toBeInstanceOf(RangeError);
  });
});

describe('files are hashed by their content, not their reported size', () => {
  // The official b3sum (installed by setup --test) is the oracle.
  const b3sum = (path: string) => execFileSync('b3sum', ['--no-names', path], { encoding: 'utf8' }).trim();
  /** Every path hashFile takes for a regular file on this backend. */
  const ways = () => [{}, { mmap: false }, { signal: new AbortController().signal }, { onProgress: () => {} }, { mmap: false, onProgress: () => {} }];
  const sysfs = ['/sys/kernel/mm/transparent_hugepage/enabled', '/sys/devices/system/cpu/online', '/sys/kernel/profiling'].find(
    (path) => existsSync(path) && statSync(path).size === 4096 && readFileSync(path).length < 4096,
  );

  it('/proc/version, whose st_size is 0, on every path', async () => {
    expect(statSync('/proc/version').size).toBe(0);
    const expected = b3sum('/proc/version');
    for (const options of ways()) expect(hex(await hashFile('/proc/version', options)), JSON.stringify(options)).toBe(expected);
  });

  it.skipIf(sysfs === undefined)('a sysfs file whose st_size is 4096, holding fewer bytes, on every path', async () => {
    const expected = b3sum(sysfs!);
    for (const options of ways()) expect(hex(await hashFile(sysfs!, options)), JSON.stringify(options)).toBe(expected);
  });

  // Over the parallel threshold, had its size been known.
  const content = pattern(5 * 1024 * 1024 + 3, 2);
  const source = file('fifo-source', content);

  it('a FIFO is read as it flows, with a writer arriving after the call', async () => {
    const expected = b3sum(source);
    for (const options of [...ways(), { length: 40 }]) {
      const fifo = join(dir, `fifo-${Math.random().toString(36).slice(2)}`);
      execFileSync('mkfifo', [fifo]);
      const hashing = hashFile(fifo, options);
      const writer = spawn('sh', ['-c', 'sleep 0.1; cat "$0" > "$1"', source, fifo], { stdio: 'ignore' });
      const written = once(writer, 'exit');
      const digest = hex(await hashing);
      expect(await written).toEqual([0, null]);
      if ('length' in options) expect(digest).toBe(hex(b3.hash(content, { length: 40 })));
      else expect(digest, JSON.stringify(options)).toBe(expected);
    }
  });

  // Children: a thread stuck in open() or read() would outlive the test.
  const entry = JSON.stringify(fileURLToPath(new URL('../../dist/node.js', import.meta.url)));
  /** Runs `code` with the package as `b3`; `input`: a file piped to its stdin. */
  const child = (code: string, input?: string) => {
    const script = join(dir, `child-${Math.random().toString(36).slice(2)}.mjs`);
    writeFileSync(script, `const b3 = await import(${entry}); await b3.init();\n${code}`);
    // The backend comes from BLAKE3_KIT_BACKEND, which each project sets.
    return input === undefined
      ? spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 20_000, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawnSync('sh', ['-c', `cat "$0" | "$1" "$2"`, input, process.execPath, script], { encoding: 'utf8', timeout: 20_000 });
  };

  it('/dev/stdin when it is a pipe, on every path', () => {
    for (const options of ['{}', '{ mmap: false }', '{ signal: new AbortController().signal }']) {
      const result = child(`console.log(b3.toHex(await b3.hashFile('/dev/stdin', ${options})));`, source);
      expect(result.stderr).toBe('');
      expect(result.stdout.trim(), options).toBe(b3sum(source));
    }
  });

  it('a FIFO that no writer opens: an abort rejects at once and nothing is left waiting', () => {
    const fifo = join(dir, 'no-writer');
    execFileSync('mkfifo', [fifo]);
    const started = performance.now();
    const result = child(
      `for (const options of [{}, { mmap: false }]) {
        const began = performance.now();
        try {
          await b3.hashFile(${JSON.stringify(fifo)}, { ...options, signal: AbortSignal.timeout(200) });
          console.log('resolved');
        } catch (e) {
          console.log(e.name, performance.now() - began < 2000);
        }
      }`,
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0); // exited by itself
    expect(result.stdout.trim().split('\n')).toEqual(['TimeoutError true', 'TimeoutError true']);
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe('streams', () => {
  const content = pattern(3 * 1024 * 1024 + 17, 9);
  const path = file('stream', content);

  it('hashStream takes a Node Readable, a web ReadableStream and async iterables', async () => {
    const expected = hex(b3.hash(content));
    expect(hex(await hashStream(createReadStream(path, { highWaterMark: 7777 })))).toBe(expected);
    expect(hex(await hashStream(Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>))).toBe(expected);
    async function* pieces() {
      for (let i = 0; i < content.length; i += 100_000) yield content.subarray(i, i + 100_000);
    }
    expect(hex(await hashStream(pieces(), { context: 'c', length: 64 }))).toBe(hex(b3.deriveKey('c', content, { length: 64 })));
    expect(hex(await hashStream(Readable.from(['abc', 'def'])))).toBe(hex(b3.hash('abcdef')));
  });

  it('hashStream reports progress, stops on abort and releases the stream', async () => {
    let last = 0;
    await hashStream(createReadStream(path), { onProgress: (done) => (last = done) });
    expect(last).toBe(content.length);
    const controller = new AbortController();
    const stream = createReadStream(path, { highWaterMark: 64 * 1024 });
    const hashing = hashStream(stream, { signal: controller.signal, onProgress: (done) => done > 500_000 && controller.abort() });
    await expect(hashing).rejects.toMatchObject({ name: 'AbortError' });
    // Released, though not necessarily before the rejection: an abort does
    // not wait for a read in flight (a source may never answer one).
    if (!stream.destroyed) {
      await new Promise<void>((resolve) => {
        stream.once('close', () => resolve());
        setTimeout(resolve, 2000);
      });
    }
    expect(stream.destroyed).toBe(true);
    await expect(hashStream(42 as never)).rejects.toBeInstanceOf(TypeError);
  });

  it('HashSink hashes a pipeline; HashTransform passes bytes through and hashes them', async () => {
    const sink = new HashSink({ key: KEY });
    await pipeline(createReadStream(path), sink);
    expect(hex(sink.digest())).toBe(hex(b3.keyedHash(KEY, content)));

    const transform = new HashTransform();
    const seen: Uint8Array[] = [];
    let emitted: Uint8Array | undefined;
    transform.on('digest', (digest: Uint8Array) => (emitted = digest));
    const collector = new HashSink();
    await pipeline(
      createReadStream(path),
      transform,
      async function* (source) {
        for await (const chunk of source) {
          seen.push(chunk);
          yield chunk;
        }
      },
      collector,
    );
    expect(hex(transform.digest())).toBe(hex(b3.hash(content)));
    expect(hex(emitted!)).toBe(hex(b3.hash(content)));
    expect(hex(collector.digest())).toBe(hex(b3.hash(content)));
    expect(seen.reduce((n, c) => n + c.length, 0)).toBe(content.length);
    expect(() => new HashSink().digest()).toThrow(/not finished/);
  });
});
