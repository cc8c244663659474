// Node's modules that cost the package's import time, as the Node entries
// use them. node:fs and node:util are not `import … from 'node:fs'`: an ESM
// import of a builtin makes its module namespace, which runs every export's
// getter, and node:fs's `promises` getter loads the promise API with
// streams and readline. In a fresh process (Node 20.20 / 24.21, 2-core
// EPYC) that cost node:fs 1.20 / 2.31 ms and node:util 0.55 / 2.21 ms,
// against ~0.02 ms here, of a `node -e 0` of 50 / 22 ms (node:os, node:url,
// node:path and node:events have no such getters). The ones only some calls
// need are loaded at their first use: node:worker_threads (1.45 ms on Node
// 20), node:net (1.52 ms), node:fs/promises (0.83 ms), and node:os (0.12 ms
// on Node 24) and node:timers/promises (0.05 ms), which a command hashing
// one small file never needs.
// process.getBuiltinModule is in every Node the package supports (>= 20.19),
// Deno 2.9 and Bun 1.4.

const builtin = <T>(name: string): T => process.getBuiltinModule(name) as T;

export const fs = builtin<typeof import('node:fs')>('node:fs');
export const util = builtin<typeof import('node:util')>('node:util');

export const workerThreads = (): typeof import('node:worker_threads') => builtin('node:worker_threads');
export const net = (): typeof import('node:net') => builtin('node:net');
export const fsPromises = (): typeof import('node:fs/promises') => builtin('node:fs/promises');
export const os = (): typeof import('node:os') => builtin('node:os');
export const timersPromises = (): typeof import('node:timers/promises') => builtin('node:timers/promises');
