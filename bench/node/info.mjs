// What a process runtime is, sent to the parent (bench/lib/node-runner.mjs):
// its name and version and the engine under it, so each results file names
// the engine its numbers come from.
const deno = globalThis.Deno?.version;
const bun = process.versions.bun;
const info = deno
  ? { name: 'Deno', version: deno.deno, engine: 'V8', engineVersion: deno.v8 }
  : bun
    ? { name: 'Bun', version: bun, engine: 'JavaScriptCore', engineVersion: `WebKit ${(process.versions.webkit ?? '?').slice(0, 10)}` }
    : { name: 'Node', version: process.versions.node, engine: 'V8', engineVersion: process.versions.v8 };
info.nodeCompat = process.versions.node;
info.openssl = process.versions.openssl ?? process.versions.boringssl;
process.send(info, () => process.exit(0));
