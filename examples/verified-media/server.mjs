#!/usr/bin/env node
// The untrusted server of examples/verified-media: it serves the built app
// (dist/, from `vite build`), blobs by BDASL CID with their bao-tree
// outboards (chunkLog 4), and "mirrors" of them that lie, each in one way a
// server can. The page names content by CID only; its Service Worker
// (sw.js) verifies every byte against the CID, whichever mirror sends it.
//
//   node server.mjs [--port 8080] [--media FILE --type audio/wav]... [--corrupt N]
//
// Mirrors: /blobs/<cid> is honest; /mirror/<lie>/blobs/<cid> lies as <lie>
// says: corrupt (byte N of every blob flipped, N from --corrupt, 70% of the
// way in by default), ignore-range (200 with everything), short, long,
// endless, wrong-range (a Content-Range for other bytes), stall (headers,
// then nothing), gzip-bomb, bad-outboard (the outboard's root node changed).
// PUT /blobs/<cid> and /blobs/<cid>.obao4 store an upload (the page's
// "publish"); GET /catalog.json lists the blobs; GET /log.json returns the
// requests for blobs since the last call (for counting what a seek costs).
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { baoTreeOutboard, cid, init } from 'blake3-kit/bao';

const here = fileURLToPath(new URL('.', import.meta.url));
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };
const LIES = ['corrupt', 'ignore-range', 'short', 'long', 'endless', 'wrong-range', 'stall', 'gzip-bomb', 'bad-outboard'];
/** Uploads larger than this are refused: the blobs live in this process's memory. */
const MAX_UPLOAD = 512 << 20;

/** Starts the server; resolves to it once it listens. */
export async function serve({ port = 0, media = [], corrupt, site = join(here, 'dist') } = {}) {
  await init();
  /** cid -> { bytes, outboard, type, name } */
  const blobs = new Map();
  const publish = (bytes, type, name) => {
    const { outboard, hash } = baoTreeOutboard(bytes, { chunkLog: 4 });
    const id = cid(hash);
    blobs.set(id, { bytes, outboard, type, name });
    return id;
  };
  for (const { bytes, type, name } of media) publish(bytes, type, name);
  const uploads = new Map();
  let log = [];

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    const path = decodeURIComponent(url.pathname);
    const blob = /^(?:\/mirror\/([\w-]+))?\/blobs\/(b[a-z2-7]+)(\.obao4)?$/.exec(path);
    if (blob !== null) {
      const [, lie = 'honest', id, isOutboard] = blob;
      if (request.method === 'PUT') return receive(request, response, id, isOutboard !== undefined);
      log.push({ mirror: lie, what: isOutboard ? 'outboard' : 'content', range: request.headers.range ?? null });
      const found = blobs.get(id);
      if (found === undefined || (lie !== 'honest' && !LIES.includes(lie))) return response.writeHead(404).end('no such blob');
      if (isOutboard) return sendOutboard(response, found.outboard, lie);
      const at = corrupt ?? Math.floor(found.bytes.length * 0.7);
      return sendContent(request, response, found.bytes, lie, at);
    }
    if (path === '/catalog.json') {
      const list = [...blobs].map(([id, { bytes, type, name }]) => ({ cid: id, size: bytes.length, type, name }));
      return response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(list));
    }
    if (path === '/log.json') {
      const body = JSON.stringify(log);
      log = [];
      return response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end(body);
    }
    // The built app.
    const file = normalize(join(site, path === '/' ? 'index.html' : path));
    if (!file.startsWith(site)) return response.writeHead(403).end();
    let body;
    try {
      body = readFileSync(file);
    } catch {
      return response.writeHead(404).end('not found');
    }
    response.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-cache' }).end(body);
  });

  /** An upload: the content (its type in Content-Type) or its outboard,
   * stored once both have come; the server checks nothing, as a mirror would not. */
  function receive(request, response, id, isOutboard) {
    const parts = [];
    let size = 0;
    request.on('data', (part) => {
      size += part.length;
      if (size > MAX_UPLOAD) request.destroy();
      else parts.push(part);
    });
    request.on('end', () => {
      const upload = uploads.get(id) ?? {};
      upload[isOutboard ? 'outboard' : 'bytes'] = new Uint8Array(Buffer.concat(parts));
      if (!isOutboard) upload.type = request.headers['content-type'] ?? 'application/octet-stream';
      uploads.set(id, upload);
      if (upload.bytes && upload.outboard) {
        blobs.set(id, { ...upload, name: `upload ${id.slice(0, 12)}…` });
        uploads.delete(id);
      }
      response.writeHead(201).end();
    });
  }

  await new Promise((done) => server.listen(port, '127.0.0.1', done));
  return server;
}

function sendOutboard(response, outboard, lie) {
  if (lie === 'bad-outboard') {
    outboard = outboard.slice();
    if (outboard.length > 0) outboard[0] ^= 1;
  }
  response.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': outboard.length }).end(outboard);
}

/** The content, Range honoured (206, 416) unless the lie says otherwise. */
function sendContent(request, response, bytes, lie, corruptAt) {
  const asked = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
  const headers = { 'Content-Type': 'application/octet-stream', 'Accept-Ranges': 'bytes' };
  if (lie === 'corrupt' && corruptAt < bytes.length) {
    bytes = bytes.slice();
    bytes[corruptAt] ^= 1;
  }
  if (asked === null || lie === 'ignore-range') return response.writeHead(200, { ...headers, 'Content-Length': bytes.length }).end(bytes);
  const first = Number(asked[1]);
  const end = asked[2] === '' ? bytes.length : Math.min(bytes.length, Number(asked[2]) + 1);
  if (first >= bytes.length) return response.writeHead(416, { 'Content-Range': `bytes */${bytes.length}` }).end();
  // The last group is how a client proves the size: lies spare it, so
  // that each lie shows where it is told, in the range asked for.
  const proof = asked[2] === '' && bytes.length - first <= 16384;
  const said = lie === 'wrong-range' && !proof ? `bytes 0-${end - first - 1}/${bytes.length}` : `bytes ${first}-${end - 1}/${bytes.length}`;
  const part = bytes.subarray(first, end);
  if (proof || ['honest', 'corrupt', 'bad-outboard', 'wrong-range'].includes(lie))
    return response.writeHead(206, { ...headers, 'Content-Range': said }).end(part);
  if (lie === 'short') return response.writeHead(206, { ...headers, 'Content-Range': said }).end(part.subarray(0, part.length - 1));
  if (lie === 'long') return response.writeHead(206, { ...headers, 'Content-Range': said }).end(bytes.subarray(first, end + 1));
  if (lie === 'stall') {
    response.writeHead(206, { ...headers, 'Content-Range': said });
    return void response.flushHeaders();
  }
  if (lie === 'gzip-bomb') return pour(response.writeHead(206, { ...headers, 'Content-Encoding': 'gzip' }), gzipSync(part), BOMB, 2 << 20);
  // endless: the range, then zeros until the client goes (1 GiB at most).
  return pour(response.writeHead(206, { ...headers, 'Content-Range': said }), part, new Uint8Array(65536), 1 << 30);
}

/** 16 MiB of zeros as one gzip member (16 KiB): members back to back inflate to 16 MiB each. */
const BOMB = gzipSync(new Uint8Array(16 << 20));

/** Writes `head`, then `piece` again and again (as backpressure allows)
 * until the client goes or `limit` bytes are written. */
function pour(response, head, piece, limit) {
  let closed = false;
  response.on('close', () => (closed = true));
  let count = head.length;
  response.write(head);
  const more = () => {
    while (!closed && count < limit) {
      count += piece.length;
      if (!response.write(piece)) return void response.once('drain', more);
    }
    if (!closed) response.end();
  };
  more();
}

/** A WAV of `seconds` of a rising tone: 8 kHz, 16-bit mono (16,000 bytes a second). */
export function toneWav(seconds) {
  const rate = 8000;
  const samples = rate * seconds;
  const wav = new Uint8Array(44 + samples * 2);
  const view = new DataView(wav.buffer);
  const ascii = (at, text) => {
    for (let i = 0; i < text.length; i++) view.setUint8(at + i, text.charCodeAt(i));
  };
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + samples * 2, true);
  ascii(8, 'WAVEfmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, rate, true);
  view.setUint32(28, rate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  ascii(36, 'data');
  view.setUint32(40, samples * 2, true);
  for (let i = 0; i < samples; i++) {
    const t = i / rate;
    view.setInt16(44 + i * 2, Math.round(8000 * Math.sin(2 * Math.PI * (220 + 10 * t) * t)), true);
  }
  return wav;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const value = (name) => args[args.indexOf(name) + 1];
  const media = [];
  args.forEach((arg, i) => {
    if (arg !== '--media') return;
    const path = args[i + 1];
    const type = args[i + 2] === '--type' ? args[i + 3] : 'application/octet-stream';
    media.push({ bytes: new Uint8Array(readFileSync(path)), type, name: path.split('/').pop(), size: statSync(path).size });
  });
  if (media.length === 0) media.push({ bytes: toneWav(120), type: 'audio/wav', name: 'tone.wav (2 minutes)' });
  const server = await serve({
    port: args.includes('--port') ? Number(value('--port')) : 8080,
    media,
    corrupt: args.includes('--corrupt') ? Number(value('--corrupt')) : undefined,
  });
  console.log(`http://127.0.0.1:${server.address().port}/`);
}
