// node:fs for the command, got as src/node/builtins.ts gets it (not an ESM
// import, whose namespace getters load node:fs/promises with streams and
// readline: 1.2-2.3 ms of a run on a small file). Its own handle, as the
// command imports nothing of the package but its public entries.
export const fs = process.getBuiltinModule('node:fs') as typeof import('node:fs');
