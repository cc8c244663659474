// What src/entries/workerd.ts gets from `import m from '….wasm'`: the module that
// the Cloudflare and Vercel edge bundlers compile at deploy time.
declare module '*.wasm' {
  const compiled: WebAssembly.Module;
  export default compiled;
}
