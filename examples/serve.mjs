#!/usr/bin/env node
// A static server for the examples: the repository root on localhost, with
// COOP/COEP headers when started with --isolated (SharedArrayBuffer then
// exists in the page). It answers Range requests, serves any file's Bao
// outboard at <path>.obao and root hash at <path>.b3 (computed here, as the
// publisher of the file would), and with ?corrupt=N flips byte N of what it
// sends, to show a verifying client catching it.
//
//   node examples/serve.mjs [--isolated] [--port 8080]
//   then open http://localhost:8080/examples/hash-a-file/
//   or http://localhost:8080/examples/verified-download/
import { createReadStream, openSync, readFileSync, readSync, closeSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { baoEncode, init, toHex } from 'blake3-kit/bao';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.map': 'application/json',
  '.css': 'text/css',
};

export async function serve({ isolated = false, port = 0 } = {}) {
  await init();
  const server = createServer((request, response) => {
    const url = new URL(request.url, 'http://x');
    const path = normalize(decodeURIComponent(url.pathname));
    const tree = /\.(obao|b3)$/.exec(path)?.[1];
    let file = join(root, tree ? path.slice(0, -tree.length - 1) : path);
    if (!file.startsWith(root)) return response.writeHead(403).end();
    let size;
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      size = statSync(file).size;
    } catch {
      return response.writeHead(404).end('not found');
    }
    const headers = { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Accept-Ranges': 'bytes' };
    if (isolated) Object.assign(headers, { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' });
    if (tree) {
      const { encoding, hash } = outboardOf(file);
      headers['Content-Type'] = tree === 'b3' ? 'text/plain' : 'application/octet-stream';
      return response.writeHead(200, headers).end(tree === 'b3' ? toHex(hash) : encoding);
    }
    const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
    const corrupt = url.searchParams.has('corrupt') ? Number(url.searchParams.get('corrupt')) : undefined;
    if (!range && corrupt === undefined) {
      response.writeHead(200, headers);
      return void createReadStream(file).pipe(response);
    }
    const first = range ? Number(range[1]) : 0;
    const last = range && range[2] !== '' ? Math.min(Number(range[2]), size - 1) : size - 1;
    if (first > last) return response.writeHead(416, { 'Content-Range': `bytes */${size}` }).end();
    const bytes = readRange(file, first, last + 1 - first);
    if (corrupt >= first && corrupt <= last) bytes[corrupt - first] ^= 1;
    if (range) headers['Content-Range'] = `bytes ${first}-${last}/${size}`;
    response.writeHead(range ? 206 : 200, headers).end(bytes);
  });
  return new Promise((done) => server.listen(port, '127.0.0.1', () => done(server)));
}

/** The Bao outboard and hash of `file`, kept until the file changes. */
const outboards = new Map();
function outboardOf(file) {
  const { mtimeMs, size } = statSync(file);
  const key = `${file}:${mtimeMs}:${size}`;
  if (!outboards.has(key)) outboards.set(key, baoEncode(readFileSync(file), { outboard: true }));
  return outboards.get(key);
}

function readRange(file, position, length) {
  const bytes = new Uint8Array(length);
  const fd = openSync(file, 'r');
  try {
    for (let done = 0; done < length; ) {
      const read = readSync(fd, bytes, done, length - done, position + done);
      if (read === 0) break;
      done += read;
    }
  } finally {
    closeSync(fd);
  }
  return bytes;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const isolated = process.argv.includes('--isolated');
  const portArg = process.argv.indexOf('--port');
  const server = await serve({ isolated, port: portArg > 0 ? Number(process.argv[portArg + 1]) : 8080 });
  console.log(`http://localhost:${server.address().port}/examples/hash-a-file/ (${isolated ? 'cross-origin isolated' : 'not isolated'})`);
}
