// A Cloudflare Worker that answers a POST with the BLAKE3 hash of its body.
// `import 'blake3-kit'` resolves to the package's workerd entry, which
// imports both .wasm files as modules: wrangler uploads them compiled, as
// Workers require (they refuse to compile wasm from bytes at run time).
import { init, toHex } from 'blake3-kit';

export default {
  async fetch(request) {
    if (request.method !== 'POST') return new Response('POST a body to get its BLAKE3 hash\n', { status: 405 });
    const b3 = await init(); // once; later calls return the same API
    const hasher = b3.createHasher();
    const reader = request.body?.getReader();
    for (let piece = await reader?.read(); piece && !piece.done; piece = await reader.read()) hasher.update(piece.value);
    return new Response(`${toHex(hasher.digest())}\n`, { headers: { 'content-type': 'text/plain' } });
  },
};
