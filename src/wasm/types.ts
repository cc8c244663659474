// WebAssembly's types where the consumer's lib has them (DOM, or a runtime's
// own), opaque stand-ins where it doesn't, so that a Node project type-checks
// our .d.ts files without lib "DOM" (@types/node declares no WebAssembly).

type Global = typeof globalThis;

/** A compiled module: WebAssembly.Module. */
export type WasmModule = Global extends { WebAssembly: { Module: { prototype: infer M } } } ? M : object;

/** A linear memory: WebAssembly.Memory. */
export type WasmMemory = Global extends { WebAssembly: { Memory: { prototype: infer M } } } ? M : { readonly buffer: ArrayBuffer };
