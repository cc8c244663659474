// Served next to the repository's dist/ by examples/serve.mjs, which gives
// any file's outboard at <file>.obao and hash at <file>.b3, answers Range
// requests, and with ?corrupt=N flips byte N. In your own app:
// import { baoFetchRange, ... } from 'blake3-kit/bao'.
import { baoFetchRange, createHasher, init, toHex } from '/dist/bao-browser.js';

const RANGE = 1 << 20;
const $ = (id) => document.getElementById(id);
await init();

const params = new URLSearchParams(location.search);
$('file').value = params.get('file') ?? '/wasm/blake3-kit-simd.wasm';
$('form').addEventListener('submit', (event) => {
  event.preventDefault();
  void download($('file').value, params.get('corrupt'));
});
if (params.has('file')) void download(params.get('file'), params.get('corrupt'));

function log(line, className) {
  const entry = document.createElement('div');
  entry.textContent = line;
  if (className) entry.className = className;
  $('log').append(entry);
}

async function download(file, corrupt) {
  $('log').textContent = '';
  $('progress').value = 0;
  let verified = 0;
  try {
    // In a real app the hash comes from somewhere trusted (a link, a signed
    // manifest); the outboard and content may come from anywhere.
    const hash = Uint8Array.from((await (await fetch(`${file}.b3`)).text()).match(/../g), (byte) => Number.parseInt(byte, 16));
    const outboard = new Uint8Array(await (await fetch(`${file}.obao`)).arrayBuffer());
    const size = Number(new DataView(outboard.buffer).getBigUint64(0, true));
    const content = corrupt === null ? file : `${file}?corrupt=${corrupt}`;
    const whole = createHasher();
    $('status').textContent = `Downloading ${file}: ${size} bytes, hash ${toHex(hash)}`;
    for (let start = 0; start < size || start === 0; start += RANGE) {
      const bytes = await baoFetchRange(content, hash, { outboard, start, length: RANGE });
      whole.update(bytes);
      verified += bytes.length;
      $('progress').value = size === 0 ? 1 : verified / size;
      log(`${start}+${bytes.length} verified: ${toHex(bytes.subarray(0, 12))}…`);
      if (size === 0) break;
    }
    $('status').textContent = `Verified all ${verified} bytes; BLAKE3 ${toHex(whole.digest())}`;
    window.result = { verified, digest: toHex(whole.digest()) };
  } catch (error) {
    $('status').textContent = `Stopped after ${verified} verified bytes: ${error.message}`;
    $('status').className = 'error';
    log(`${error.name}: ${error.message}`, 'error');
    window.result = { verified, error: `${error.name}: ${error.message}` };
  }
}
