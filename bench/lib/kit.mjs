// blake3-kit instances for the in-process scripts: one per backend (and per
// checkout, for before/after runs), each checked to be the backend it asked for.
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoDir } from './build.mjs';
import { blockProbeEnd } from './timing.mjs';

/** What each init({ backend }) must end up as; anything else is an error
 * (an `auto` that silently fell back to wasm would measure the wrong thing). */
const EXPECTED_BACKEND = { native: 'native', auto: 'native+wasm-simd', 'wasm-simd': 'wasm-simd', 'wasm-scalar': 'wasm-scalar' };

/** The addon a checkout builds (npm run build:native). */
export const addonPath = (repo) => join(repo, 'native', `blake3-kit.${process.platform}-${process.arch}.node`);

/**
 * A blake3-kit instance of its own from checkout `repo`'s dist/node.js,
 * initialised with `backend`. Each instance loads its own copy of the
 * package files (dist/, wasm/, native/) from a temporary directory: dist's
 * entries share chunks, so a query string on dist/node.js alone would give
 * a new entry over the same state (own wasm memory and routing state are
 * what an instance needs). The addon is a CommonJS require; with `repo` it
 * is named explicitly (init({ nativePath })), so that BLAKE3_KIT_NATIVE_PATH
 * cannot make two checkouts share one.
 */
export async function loadKit(backend, { repo, tag = '' } = {}) {
  const dir = resolve(repo ?? repoDir);
  const copy = mkdtempSync(join(tmpdir(), `blake3-kit-${tag}${backend}-`));
  for (const part of ['dist', 'wasm', 'native', 'package.json']) {
    if (existsSync(join(dir, part))) cpSync(join(dir, part), join(copy, part), { recursive: true });
  }
  process.once('exit', () => rmSync(copy, { recursive: true, force: true }));
  const mod = await import(pathToFileURL(join(copy, 'dist', 'node.js')).href);
  const options = repo === undefined ? { backend } : { backend, nativePath: addonPath(dir) };
  let b3;
  try {
    b3 = await mod.init(options);
  } catch (error) {
    const cause = error?.cause?.cause ?? error?.cause;
    throw new Error(`blake3-kit: init({ backend: '${backend}' }) failed: ${error.message}${cause ? ` (${cause.message ?? cause})` : ''}`);
  }
  if (b3.backend !== EXPECTED_BACKEND[backend]) {
    const why = mod.nativeStatus?.().error;
    throw new Error(`blake3-kit: init({ backend: '${backend}' }) gave ${b3.backend}${why ? `: ${why.message} (${why.cause?.message})` : ''}`);
  }
  await blockProbeEnd(mod);
  return { mod, b3 };
}
