// node:fs for the command, got as src/node/builtins.ts gets it (not an ESM
// import, whose namespace getters load node:fs/promises with streams and
// readline: 1.2-2.3 ms of a run on a small file). Its own handle, as the
// command imports nothing of the package but its public entries.
export const fs = process.getBuiltinModule('node:fs') as typeof import('node:fs');
/** node:os, loaded when an error is described: 0.12 ms that a run with no
 * error (Node 24) does not spend. */
export const os = (): typeof import('node:os') => process.getBuiltinModule('node:os') as typeof import('node:os');
