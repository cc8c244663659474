// The Service Worker: every request for /verified/<cid> is answered with
// bytes verified against that BDASL CID, Range requests included, so the
// page's <audio>, <video>, <img> and fetch() see nothing else. The content
// comes from /blobs/<cid> (or a mirror of it: ?mirror=<name>, see
// server.mjs), its bao-tree outboard from /blobs/<cid>.obao4. Built by Vite
// as its own entry (vite.config.js) and registered as a module worker.
import { BaoVerifyError, createVerifiedFetchHandler, init } from 'blake3-kit/bao';

// A Service Worker may not await at its top level: the handler waits for this.
const ready = init();

const handler = createVerifiedFetchHandler({
  ready,
  resolve(request) {
    const url = new URL(request.url);
    const match = /^\/verified\/(b[a-z2-7]+)$/.exec(url.pathname);
    if (url.origin !== self.location.origin || match === null) return undefined; // not ours: the browser fetches it
    const cid = match[1];
    const mirror = url.searchParams.get('mirror');
    const from = mirror === null || mirror === 'honest' ? '/blobs' : `/mirror/${encodeURIComponent(mirror)}/blobs`;
    return {
      hash: cid,
      content: `${from}/${cid}`,
      outboard: `${from}/${cid}.obao4`,
      chunkLog: 4,
      contentType: url.searchParams.get('type') ?? undefined,
    };
  },
  // A media element sees only "network error": tell the page what and where.
  async onError(error, request) {
    const message = {
      type: 'verify-error',
      url: request.url,
      name: error?.name,
      message: String(error?.message ?? error),
      offset: error instanceof BaoVerifyError ? error.offset : undefined,
    };
    for (const client of await self.clients.matchAll()) client.postMessage(message);
  },
});

self.addEventListener('fetch', handler);
// Take over at once, and the open pages too, so the page's first media load goes through here.
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
