// verifiedFetch in Deno and Bun, from the tarball as published, over a
// node:http server in the same process that honours Range or lies: the
// whole content, a range, a flipped byte, a short body, an abort. Deno runs
// with only --allow-read=. and --allow-net=127.0.0.1.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { consumerProject, packAll, root } from './packed.js';

const SCRIPT = `import { createServer } from 'node:http';
import { init, baoTreeOutboard, verifiedFetch, BaoVerifyError, cid, toHex, hash } from 'blake3-kit/bao';
await init();
const content = new Uint8Array(400_000).map((_, i) => (i * 7 + (i >> 9)) % 251);
const { outboard, hash: root } = baoTreeOutboard(content, { chunkLog: 4 });
const last = Math.floor((content.length - 1) / 16384) * 16384;
const server = createServer((req, res) => {
  const lie = new URL(req.url, 'http://x').pathname.slice(1);
  const asked = /^bytes=(\\d+)-(\\d*)$/.exec(req.headers.range ?? '');
  if (asked === null) return res.writeHead(200).end(content);
  const first = Number(asked[1]);
  const end = asked[2] === '' ? content.length : Math.min(content.length, Number(asked[2]) + 1);
  let part = content.slice(first, end);
  const proof = first === last && asked[2] === '';
  if (!proof && lie === 'flip' && first <= 200_000 && 200_000 < end) part[200_000 - first] ^= 1;
  if (!proof && lie === 'short') part = part.subarray(0, part.length - 1);
  if (!proof && lie === 'stall') return res.writeHead(206, { 'Content-Range': \`bytes \${first}-\${end - 1}/\${content.length}\` }).flushHeaders();
  res.writeHead(206, { 'Content-Range': \`bytes \${first}-\${end - 1}/\${content.length}\` }).end(part);
});
await new Promise((done) => server.listen(0, '127.0.0.1', done));
const base = \`http://127.0.0.1:\${server.address().port}/\`;
async function read(path, init = {}) {
  try {
    const response = await verifiedFetch(base + path, { hash: cid(root), outboard, chunkLog: 4, ...init });
    const reader = response.body.getReader();
    const parts = [];
    let error;
    try {
      for (let step = await reader.read(); !step.done; step = await reader.read()) parts.push(step.value);
    } catch (e) {
      error = { name: e.name, offset: e.offset };
    }
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) { bytes.set(p, at); at += p.length; }
    return { status: response.status, range: response.headers.get('Content-Range'), length: bytes.length, digest: toHex(hash(bytes)), error };
  } catch (e) {
    return { rejected: e.name };
  }
}
const results = {
  whole: await read('honest'),
  range: await read('honest', { headers: { Range: 'bytes=100000-150000' } }),
  flip: await read('flip', { headers: { Range: 'bytes=190000-230000' } }),
  short: await read('short', { headers: { Range: 'bytes=0-999' } }),
  stall: await read('stall', { headers: { Range: 'bytes=0-999' }, signal: AbortSignal.timeout(300) }),
};
server.close();
console.log(JSON.stringify(results));
`;

describe.runIf(inject('flavour') === 'simd')('verifiedFetch in Deno and Bun, from the tarball', () => {
  let dir: string;
  let project: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'blake3-kit-verified-runtimes-'));
    project = consumerProject(dir, 'runtimes', [packAll(dir).main]);
    writeFileSync(join(project, 'verified.mjs'), SCRIPT);
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const content = new Uint8Array(400_000).map((_, i) => (i * 7 + (i >> 9)) % 251);
  it.each([
    ['deno', ['run', '--allow-read=.', '--allow-net=127.0.0.1', 'verified.mjs']],
    ['bun', ['verified.mjs']],
  ])(
    '%s: whole, ranged, a flipped byte, a short body, a stall',
    async (runtime, args) => {
      const { bytesToHex } = await import('@noble/hashes/utils.js');
      const { blake3 } = await import('@noble/hashes/blake3.js');
      const digest = (from: number, to: number) => bytesToHex(blake3(content.subarray(from, to)));
      const env = { ...process.env, NO_COLOR: '1', BLAKE3_KIT_BACKEND: undefined } as NodeJS.ProcessEnv;
      const run = spawnSync(join(root, 'node_modules', '.bin', runtime), args, { cwd: project, encoding: 'utf8', env, timeout: 60_000 });
      expect(run.stderr).toBe('');
      const results = JSON.parse(run.stdout);
      expect(results.whole).toEqual({ status: 200, range: null, length: content.length, digest: digest(0, content.length) });
      expect(results.range).toEqual({
        status: 206,
        range: `bytes 100000-150000/${content.length}`,
        length: 50_001,
        digest: digest(100_000, 150_001),
      });
      // Byte 200,000 is in the group from 196,608: the bytes before it, then the error naming it.
      expect(results.flip).toEqual({
        status: 206,
        range: `bytes 190000-230000/${content.length}`,
        length: 6608,
        digest: digest(190_000, 196_608),
        error: { name: 'BaoVerifyError', offset: 196_608 },
      });
      expect(results.short).toMatchObject({ status: 206, length: 0, error: { name: 'BaoVerifyError', offset: 0 } });
      expect(results.stall).toMatchObject({ status: 206, length: 0, error: { name: 'TimeoutError' } });
    },
    90_000,
  );
});
