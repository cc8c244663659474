// The whole app: Vite bundles blake3-kit's worker and .wasm files itself.
import { hashBlob, init, parallelStatus, startWorkers, toHex } from 'blake3-kit';

await init();
// The workers start while the user picks a file, so the first hash needn't wait.
startWorkers();
const $ = (id) => document.getElementById(id);
$('file').addEventListener('change', async () => {
  const file = $('file').files[0];
  if (!file) return;
  const digest = await hashBlob(file, { onProgress: (done, total) => ($('progress').value = total ? done / total : 1) });
  $('digest').textContent = toHex(digest);
  const { started, jobs, whileStarting } = parallelStatus();
  $('status').textContent = `${started} workers hashed ${jobs} pieces (${whileStarting} here while they started)`;
});
