#!/usr/bin/env node
// A static server for the examples: the repository root on localhost, with
// COOP/COEP headers when started with --isolated (SharedArrayBuffer then
// exists in the page).
//
//   node examples/serve.mjs [--isolated] [--port 8080]
//   then open http://localhost:8080/examples/hash-a-file/
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.map': 'application/json',
  '.css': 'text/css',
};

export function serve({ isolated = false, port = 0 } = {}) {
  const server = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url, 'http://x').pathname));
    let file = join(root, path);
    if (!file.startsWith(root)) return response.writeHead(403).end();
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      statSync(file);
    } catch {
      return response.writeHead(404).end('not found');
    }
    const headers = { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' };
    if (isolated) Object.assign(headers, { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' });
    response.writeHead(200, headers);
    createReadStream(file).pipe(response);
  });
  return new Promise((done) => server.listen(port, '127.0.0.1', () => done(server)));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const isolated = process.argv.includes('--isolated');
  const portArg = process.argv.indexOf('--port');
  const server = await serve({ isolated, port: portArg > 0 ? Number(process.argv[portArg + 1]) : 8080 });
  console.log(`http://localhost:${server.address().port}/examples/hash-a-file/ (${isolated ? 'cross-origin isolated' : 'not isolated'})`);
}
