// Served next to the repository's dist/ by examples/serve.mjs. In your own
// app: import { init, hashBlob, toHex } from 'blake3-kit'.
import { init, hashBlob, parallelStatus, startWorkers, toHex } from '/dist/browser.js';

const $ = (id) => document.getElementById(id);
const b3 = await init();
// A first call below 256 MiB would hash on this thread while the pool
// starts: start the workers now, while the user picks a file.
startWorkers();
$('env').textContent =
  `${b3.backend}, ${navigator.hardwareConcurrency} logical cores, ` +
  (crossOriginIsolated
    ? 'cross-origin isolated: pieces are shared with the workers'
    : 'not cross-origin isolated: pieces are transferred to the workers');

let running;
async function hashFile(file) {
  running?.abort();
  const controller = (running = new AbortController());
  $('digest').textContent = '';
  $('progress').value = 0;
  $('status').textContent = `Hashing ${file.name} (${(file.size / 1e6).toFixed(1)} MB)…`;
  const started = performance.now();
  try {
    const digest = await hashBlob(file, {
      signal: controller.signal,
      onProgress: (done, total) => ($('progress').value = total ? done / total : 1),
    });
    const seconds = (performance.now() - started) / 1000;
    $('progress').value = 1;
    $('digest').textContent = toHex(digest);
    const workers = parallelStatus().started;
    $('status').textContent =
      `${file.name}: ${(file.size / 1e6).toFixed(1)} MB in ${seconds.toFixed(2)} s, ${(file.size / 1e6 / seconds).toFixed(0)} MB/s, ${workers ? `${workers} workers` : 'on the page thread (small file)'}`;
  } catch (error) {
    if (!controller.signal.aborted) $('status').textContent = `Failed: ${error.message}`;
  }
}

$('file').addEventListener('change', (event) => event.target.files[0] && hashFile(event.target.files[0]));
const drop = $('drop');
drop.addEventListener('dragover', (event) => {
  event.preventDefault();
  drop.classList.add('over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (event) => {
  event.preventDefault();
  drop.classList.remove('over');
  const file = event.dataTransfer.files[0];
  if (file) void hashFile(file); // it shows its own failures
});
