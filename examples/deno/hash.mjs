// Prints `<BLAKE3 hex>  <name>` for each file, as b3sum does, streaming it
// through a hasher. In a project with blake3-kit installed (npm install):
//
//   deno run --allow-read=. hash.mjs FILE...
//
// No other permission: blake3-kit reads no environment it must have, and
// without --allow-ffi it hashes on WebAssembly.
import { init, toHex } from 'blake3-kit';

const b3 = await init();
for (const name of Deno.args) {
  const hasher = b3.createHasher();
  const file = await Deno.open(name);
  for await (const piece of file.readable) hasher.update(piece);
  console.log(`${toHex(hasher.digest())}  ${name}`);
}
