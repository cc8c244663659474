// updateFromFile (a file into any hasher or byte sink) and the hasher's
// off-thread capabilities, the same API on every backend: where the backend
// lacks them they reject saying so, and the hasher is unharmed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { createHasher, FileTruncatedError, NativeHasher, toHex, updateFromFile } from 'blake3-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { backend, KEY, load, pattern } from '../shared/setup.js';

await load();
const dir = mkdtempSync(join(tmpdir(), 'blake3-kit-update-from-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const native = backend === 'native' || backend === 'auto';

describe('updateFromFile', () => {
  it.each([0, 1, 1025, 3 << 20])('feeds all of a %i-byte file to a hasher, after what it already had, with progress', async (size) => {
    const content = pattern(size);
    const path = join(dir, `file-${size}`);
    writeFileSync(path, content);
    const hasher = createHasher({ key: KEY }).update('prefix');
    const seen: number[] = [];
    await updateFromFile(hasher, path, { onProgress: (done, total) => (expect(total).toBe(size), seen.push(done)) });
    const expected = new Uint8Array([...new TextEncoder().encode('prefix'), ...content]);
    expect(toHex(hasher.digest())).toBe(bytesToHex(blake3(expected, { key: KEY })));
    if (size > 0) expect(seen.at(-1)).toBe(size);
    hasher.dispose();
  });

  it('feeds any update(bytes) sink, in order', async () => {
    const content = pattern(200_000);
    const path = join(dir, 'sink');
    writeFileSync(path, content);
    const pieces: Uint8Array[] = [];
    await updateFromFile({ update: (bytes: Uint8Array) => pieces.push(bytes.slice()) }, path);
    expect(Buffer.concat(pieces)).toEqual(Buffer.from(content));
  });

  it('rejects bad arguments before touching the file, and missing files with their system error', async () => {
    const hasher = createHasher();
    await expect(updateFromFile({} as never, join(dir, 'sink'))).rejects.toThrow(TypeError);
    await expect(updateFromFile(hasher, join(dir, 'sink'), { truncated: 'maybe' as never })).rejects.toThrow(
      /options.truncated must be 'reject' or 'hash'/,
    );
    await expect(updateFromFile(hasher, join(dir, 'sink'), { mmap: 1 as never })).rejects.toThrow(/options.mmap must be a boolean/);
    await expect(updateFromFile(hasher, join(dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
    // Nothing was fed: the hasher is as new.
    expect(toHex(hasher.digest())).toBe(bytesToHex(blake3(new Uint8Array(0))));
  });

  it('a file that shrinks while it is read: rejects by default, hashes what is there with truncated: hash', async () => {
    const path = join(dir, 'shrinks');
    const content = pattern(3 << 20);
    for (const truncated of ['reject', 'hash'] as const) {
      writeFileSync(path, content);
      const hasher = createHasher();
      const fed: number[] = [];
      const run = updateFromFile(
        { update: (bytes: Uint8Array) => (fed.push(bytes.length), writeFileSync(path, content.subarray(0, 1000)), hasher.update(bytes)) },
        path,
        {
          truncated,
        },
      );
      if (truncated === 'reject') await expect(run).rejects.toBeInstanceOf(FileTruncatedError);
      else await expect(run).resolves.toBeUndefined();
      expect(fed.length).toBeGreaterThan(0);
      hasher.dispose();
    }
  });
});

describe(`a hasher's off-thread capabilities on ${backend}`, () => {
  it('says whether it has them, and NativeHasher is the one Hasher', () => {
    const hasher = createHasher();
    expect(hasher.supports('updateAsync')).toBe(native);
    expect(hasher.supports('updateFromFd')).toBe(native);
    expect(NativeHasher).toBe(hasher.constructor);
    hasher.dispose();
  });

  it('hashes off the thread where it can; elsewhere rejects, saying so, and stays usable', async () => {
    const hasher = createHasher().update(pattern(100));
    const big = pattern(5 << 20, 100);
    if (native) {
      await hasher.updateAsync(big);
    } else {
      await expect(hasher.updateAsync(big)).rejects.toThrow(/updateAsync needs the native backend .* use update\(\)/);
      await expect(hasher.updateFromFd(0, 0, 10, false)).rejects.toThrow(/updateFromFd needs the native backend/);
      hasher.update(big);
    }
    expect(toHex(hasher.digest())).toBe(bytesToHex(blake3(pattern((5 << 20) + 100))));
    hasher.dispose();
  });
});
