// The page: it registers the Service Worker (sw.js) and then uses content
// by CID as if nothing were special, <audio src="/verified/<cid>">. The
// worker reports what failed verification, which the player itself sees
// only as a network error. Below, the write side: a picked file's root,
// CID and bao-tree outboard, hashed on Web Workers, published to the server.
import { baoTreeOutboardParallel, cid, init, startWorkers, toHex } from 'blake3-kit/bao';

const $ = (id) => document.getElementById(id);
const player = $('player');

// The worker answers only once it controls the page: until then the first
// load would go to the network unverified.
await navigator.serviceWorker.register('/sw.js', { type: 'module', scope: '/' });
if (!navigator.serviceWorker.controller)
  await new Promise((done) => navigator.serviceWorker.addEventListener('controllerchange', done, { once: true }));
navigator.serviceWorker.addEventListener('message', ({ data }) => {
  if (data?.type !== 'verify-error') return;
  window.verifyErrors.push(data);
  $('error').textContent = data.offset === undefined ? `${data.name}: ${data.message}` : `Not verified at byte ${data.offset}: ${data.message}`;
});
window.verifyErrors = [];

/** The URL the page uses for a content: the worker answers it. */
const verifiedUrl = (entry, mirror = $('mirror').value) =>
  `/verified/${entry.cid}?${new URLSearchParams({ type: entry.type, ...(mirror === 'honest' ? {} : { mirror }) })}`;

let catalog = [];
async function loadCatalog(select) {
  catalog = await (await fetch('/catalog.json')).json();
  $('catalog').replaceChildren(...catalog.map((entry, i) => new Option(`${entry.name} (${entry.size} bytes)`, String(i))));
  if (select !== undefined) $('catalog').value = String(catalog.findIndex((entry) => entry.cid === select));
  play();
}

function play() {
  const entry = catalog[Number($('catalog').value)];
  if (entry === undefined) return;
  $('error').textContent = '';
  player.src = verifiedUrl(entry);
  $('status').textContent = `${entry.name}: ${entry.cid}`;
}
player.addEventListener('error', () => {
  const codes = { 1: 'aborted', 2: 'network error', 3: 'decode error', 4: 'not supported' };
  $('status').textContent = `The player stopped: ${codes[player.error?.code] ?? 'error'} at ${player.currentTime.toFixed(2)} s`;
});
$('catalog').addEventListener('change', play);
$('mirror').addEventListener('change', play);

// The write side.
await init();
startWorkers(); // while the user picks a file
let picked;
$('file').addEventListener('change', async () => {
  const file = $('file').files[0];
  if (!file) return;
  const controller = new AbortController();
  $('cancel').disabled = false;
  $('cancel').onclick = () => controller.abort(new Error('cancelled'));
  $('publish').disabled = true;
  $('progress').value = 0;
  const started = performance.now();
  try {
    const { outboard, hash } = await baoTreeOutboardParallel(file, {
      chunkLog: 4,
      signal: controller.signal,
      onProgress: (done, total) => ($('progress').value = total ? done / total : 1),
    });
    const seconds = (performance.now() - started) / 1000;
    picked = { file, outboard, cid: cid(hash) };
    $('written').textContent =
      `root ${toHex(hash)}\nCID ${picked.cid}\noutboard ${outboard.length} bytes (${file.size} bytes hashed in ${seconds.toFixed(2)} s)`;
    $('publish').disabled = false;
  } catch (error) {
    $('written').textContent = `Stopped: ${error.message}`;
  } finally {
    $('cancel').disabled = true;
  }
});
$('publish').addEventListener('click', async () => {
  const { file, outboard, cid: id } = picked;
  await fetch(`/blobs/${id}`, { method: 'PUT', body: file, headers: { 'Content-Type': file.type || 'application/octet-stream' } });
  await fetch(`/blobs/${id}.obao4`, { method: 'PUT', body: outboard });
  await loadCatalog(id);
});

await loadCatalog();
// For the test (test/node/verified-media.test.ts) and the curious.
window.demo = { catalog: () => catalog, verifiedUrl };
window.demoReady = true;
