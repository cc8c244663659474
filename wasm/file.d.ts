// Types for the package's `./wasm/*.wasm` subpaths. They are files, not
// JavaScript modules: what importing one gives depends on who loads it (a
// WebAssembly.Module in workerd and with esbuild's or wrangler's wasm loader,
// a URL string with Vite's `?url` or webpack's asset modules, an instance's
// exports with Node's wasm module integration). We can't promise one type, so
// the value is `unknown`: narrow it where you know your loader. Without a
// types file, TypeScript (and attw) could not resolve the subpaths at all.
declare const wasmFile: unknown;
export default wasmFile;
