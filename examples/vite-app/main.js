// The whole app: Vite bundles blake3-kit's worker and .wasm files itself.
import { hashBlob, init, parallelStatus, toHex } from 'blake3-kit';

await init();
const $ = (id) => document.getElementById(id);
$('file').addEventListener('change', async () => {
  const file = $('file').files[0];
  if (!file) return;
  const digest = await hashBlob(file, { onProgress: (done, total) => ($('progress').value = total ? done / total : 1) });
  $('digest').textContent = toHex(digest);
  const { started, jobs } = parallelStatus();
  $('status').textContent = `${started} workers hashed ${jobs} pieces`;
});
