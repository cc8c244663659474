// Helpers shared by the scripts in this folder. Node built-ins only: setup.mjs
// runs from npm hooks before node_modules exists.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = resolve(fileURLToPath(new URL('..', import.meta.url)));

// rustup installs cargo, rustup and `cargo install`ed tools here, but a fresh
// shell may not have sourced ~/.cargo/env yet; every child process inherits this.
export const cargoBin = join(process.env.CARGO_HOME ?? join(homedir(), '.cargo'), 'bin');
if (!process.env.PATH?.split(delimiter).includes(cargoBin)) {
  process.env.PATH = [process.env.PATH, cargoBin].filter(Boolean).join(delimiter);
}

/** True when the module at `url` is the script Node was started with. */
export const isMain = (url) => process.argv[1] && url === pathToFileURL(resolve(process.argv[1])).href;

/** process.env with `overrides` applied; an `undefined` value removes the variable. */
export function withEnv(overrides) {
  if (!overrides) return undefined;
  const env = { ...process.env, ...overrides };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return env;
}

/**
 * Run a build or install step, its output visible on stderr. Not on stdout:
 * set-up runs before `npm run hash`, whose stdout must be the CLI's alone
 * (a checkfile, raw bytes). Throws on failure.
 */
export function run(cmd, args = [], { cwd = root, env } = {}) {
  const r = spawnSync(cmd, args, { cwd, stdio: ['inherit', 2, 'inherit'], env: withEnv(env) });
  if (r.error) {
    throw new Error(r.error.code === 'ENOENT' ? `${cmd}: command not found` : `${cmd}: ${r.error.message}`);
  }
  if (r.status !== 0) {
    throw new Error(`\`${[cmd, ...args].join(' ')}\` failed (${r.signal ?? `exit ${r.status}`})`);
  }
}

/** Run a command and capture its output; `null` if the command does not exist. */
export function capture(cmd, args = [], { cwd = root } = {}) {
  // Large outputs (wasm-opt --print of a module runs past 1 MiB) need more than spawnSync's default buffer.
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.error?.code === 'ENOENT') return null;
  return { ok: r.status === 0, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/**
 * Run a command asynchronously with stdio inherited except stdout, which is
 * collected (unless `collect` is false) and passed through live (when `tee`).
 * Resolves, never rejects.
 */
export function spawnCollect(cmd, args, { cwd = root, env, tee = true, collect = true } = {}) {
  return new Promise((done) => {
    const child = spawn(cmd, args, {
      cwd,
      env: withEnv(env),
      stdio: ['inherit', collect ? 'pipe' : 'inherit', 'inherit'],
    });
    let stdout = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      if (tee) process.stdout.write(chunk);
    });
    child.on('error', (error) => done({ code: null, stdout, error }));
    child.on('close', (code, signal) => done({ code: signal ? null : code, signal, stdout }));
  });
}

/** Newest mtime (ms) of the given files and of every file below the given directories; 0 if none exist. */
export function newestMtime(paths) {
  let newest = 0;
  for (const p of paths) {
    let st;
    try {
      st = statSync(p);
    } catch {
      continue;
    }
    if (st.isDirectory()) {
      const children = readdirSync(p).map((name) => join(p, name));
      newest = Math.max(newest, newestMtime(children));
    } else {
      newest = Math.max(newest, st.mtimeMs);
    }
  }
  return newest;
}

/** Oldest mtime (ms) of the given files; 0 if any is missing, so "missing" reads as "stale". */
export function oldestMtime(files) {
  let oldest = Infinity;
  for (const f of files) {
    if (!existsSync(f)) return 0;
    oldest = Math.min(oldest, statSync(f).mtimeMs);
  }
  return oldest;
}

/** Format rows (the first is the header) as aligned columns; numeric columns are right-aligned. */
export function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  const numeric = rows[0].map((_, i) => rows.slice(1).some((r) => typeof r[i] === 'number'));
  return rows
    .map((r) =>
      r
        .map((c, i) => String(c)[numeric[i] ? 'padStart' : 'padEnd'](widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Run a script's main function, turning a thrown error into a message and exit code 1. */
export async function main(fn) {
  try {
    await fn();
  } catch (err) {
    console.error(`\nerror: ${err.message}`);
    process.exit(1);
  }
}
