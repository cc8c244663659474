// Docs that cannot drift, for `npm test`'s lint step:
//   - every repository path in backticks in a Markdown file, and every one
//     in a comment under src/, exists (a `*` in it must match something);
//   - no prose quotes a test count, which a run would not reproduce;
//   - docs/layout.md names every folder of the code.
//
//   node scripts/doc-paths.mjs [--root DIR]   exit 1, listing what is wrong
//
// CHANGELOG.md is history: the paths it names were true when written.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isMain, main, root as repoRoot } from './lib.mjs';

/** Where a repository path starts: one of these, then '/'. */
const TOP = ['src', 'crate', 'test', 'scripts', 'bench', 'docs', 'examples', 'wasm', 'dist', 'native', 'npm', 'bin', 'compat', 'bao', 'node'];
const SKIP_DIRS = new Set(['node_modules', 'target', '.git', 'dist', 'wasm', 'native', 'pack', 'results']);
/** Build output and local state a fresh clone does not have until set-up. */
const BUILT = /^(dist|wasm|native|pack|crate\/target|bench\/node_modules)(\/|$)/;
/** A path of another repository, named as owner/name before it. */
const FOREIGN = /\b[\w.-]+\/[\w.-]+(?:'s)?\s*(?:\(|`)?\s*$/;
const PATH = new RegExp(`^(?:${TOP.join('|')})/[\\w.@*{},/-]*$`);

function walk(dir, keep, found = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (!SKIP_DIRS.has(name) && !name.startsWith('.')) walk(path, keep, found);
    } else if (keep(path)) found.push(path);
  }
  return found;
}

/** Whether `path` (relative to `root`, maybe with `*` or `{a,b}`) exists. */
function exists(root, path) {
  const clean = path.replace(/[.,:;]+$/, '').replace(/#.*$/, '');
  const alternatives = clean.includes('{') ? expandBraces(clean) : [clean];
  return alternatives.every((one) => (one.includes('*') ? globExists(root, one) : existsSync(join(root, one))));
}

function expandBraces(path) {
  const match = /\{([^}]*)\}/.exec(path);
  if (match === null) return [path];
  return match[1].split(',').flatMap((choice) => expandBraces(path.slice(0, match.index) + choice + path.slice(match.index + match[0].length)));
}

function globExists(root, pattern) {
  const parts = pattern.split('/');
  const step = (dir, i) => {
    if (i === parts.length) return true;
    const part = parts[i];
    if (part === '') return step(dir, i + 1);
    if (!part.includes('*')) return existsSync(join(dir, part)) && step(join(dir, part), i + 1);
    const regex = new RegExp(`^${part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) return false;
    return readdirSync(dir).some((name) => regex.test(name) && step(join(dir, name), i + 1));
  };
  return step(root, 0);
}

/** Where a path in `file` may be relative to: the repository, the file's
 * folder, src/ (comments there say node/x.ts), each crate (its src/lib.rs)
 * and bench/ (its README says node/x.mjs). */
function bases(root, file) {
  const crates = existsSync(join(root, 'crate')) ? readdirSync(join(root, 'crate')).map((name) => join(root, 'crate', name)) : [];
  return [root, join(file, '..'), join(root, 'src'), join(root, 'bench'), ...crates];
}

const existsFrom = (root, file, path) => bases(root, file).some((base) => exists(base, path));

/** Problems with the docs of the repository at `root`. */
export function docProblems(root) {
  const problems = [];
  const markdown = walk(root, (path) => path.endsWith('.md') && !path.endsWith('CHANGELOG.md'));
  for (const file of markdown) {
    const text = readFileSync(file, 'utf8');
    const name = relative(root, file);
    for (const [, quoted] of text.matchAll(/`([^`\n]+)`/g)) {
      const path = quoted.trim().replace(/^\.\//, '');
      if (PATH.test(path) && !BUILT.test(path) && !existsFrom(root, file, path)) problems.push(`${name}: \`${quoted}\` does not exist`);
    }
    for (const [count] of text.matchAll(/\b\d[\d,]* (?:tests? )?passed\b/g))
      problems.push(`${name}: quotes a test count ("${count}") that a run would not reproduce`);
  }
  const sources = walk(join(root, 'src'), (path) => path.endsWith('.ts'));
  for (const file of sources) {
    const text = readFileSync(file, 'utf8');
    const comments = [...text.matchAll(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g)].map((match) => match[0]).join('\n');
    for (const match of comments.matchAll(new RegExp(`\\b(?:${TOP.join('|')})/[\\w.@*{},/-]*[\\w*}]`, 'g'))) {
      const path = match[0];
      const before = comments.slice(Math.max(0, match.index - 80), match.index);
      if (BUILT.test(path) || FOREIGN.test(before) || existsFrom(root, file, path)) continue;
      problems.push(`${relative(root, file)}: a comment names ${path}, which does not exist`);
    }
  }
  const layout = join(root, 'docs', 'layout.md');
  if (existsSync(layout)) {
    const text = readFileSync(layout, 'utf8');
    const folders = [
      ...dirsUnder(root, 'src'),
      ...dirsUnder(root, 'test', 1),
      ...dirsUnder(root, 'bench', 1),
      ...dirsUnder(root, 'examples', 1),
      ...dirsUnder(root, 'crate', 1),
    ];
    const lines = text.split('\n');
    // Named whole, or by its own name in its parent's row.
    const named = (folder) => {
      if (text.includes(`\`${folder}/\``) || text.includes(`\`${folder}\``)) return true;
      const parent = folder.slice(0, folder.lastIndexOf('/'));
      const own = folder.slice(folder.lastIndexOf('/') + 1);
      return lines.some((line) => line.includes(`\`${parent}/\``) && (line.includes(`\`${own}/\``) || line.includes(`\`${own}/`)));
    };
    for (const folder of folders) if (!named(folder)) problems.push(`docs/layout.md does not name the folder ${folder}/`);
  }
  return problems;
}

/** Folders under `top` (relative to `root`), to `depth` levels (all if omitted). */
function dirsUnder(root, top, depth = Number.POSITIVE_INFINITY, prefix = top) {
  const dir = join(root, prefix);
  if (!existsSync(dir) || depth === 0) return [];
  return readdirSync(dir)
    .filter((name) => !SKIP_DIRS.has(name) && !name.startsWith('.') && statSync(join(dir, name)).isDirectory())
    .flatMap((name) => [`${prefix}/${name}`, ...dirsUnder(root, top, depth - 1, `${prefix}/${name}`)]);
}

if (isMain(import.meta.url)) {
  await main(async () => {
    const at = process.argv.indexOf('--root');
    const root = at > 0 ? process.argv[at + 1] : repoRoot;
    const problems = docProblems(root);
    for (const problem of problems) console.error(`doc-paths: ${problem}`);
    if (problems.length > 0) throw new Error(`${problems.length} place(s) where the docs do not match the repository`);
    console.log('doc-paths: every path the docs name exists, no test counts, docs/layout.md names every folder');
  });
}
