// Module cycles in the Rust crates (crate/*/src), for `npm test`'s lint step:
// the counterpart of dependency-cruiser's no-circular rule for src/.
//
//   node scripts/rust-cycles.mjs [crate dir...]   exit 1 and name each cycle
//
// A unit is a top-level module: src/x.rs with any src/x/*.rs, or src/x/.
// Unit A depends on B when a file of A names `crate::B` (directly, in a
// `use crate::{...}` group, or through a name the crate root re-exports
// from B with `pub use B::...`). The root (lib.rs, main.rs) composes the
// units and is not one; modules declared under #[cfg(test)] are left out,
// as tests see everything by design. Written here rather than installed:
// cargo-modules, which has an --acyclic check, builds rust-analyzer's
// crates, minutes of CI on 2 cores for what these few regular expressions
// do on crates of this size.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { isMain, main, root } from './lib.mjs';

/** The units of the crate at `dir`: name -> its .rs files. */
function units(src, rootFile) {
  const rootText = readFileSync(join(src, rootFile), 'utf8');
  const testOnly = new Set([...rootText.matchAll(/#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;/g)].map((m) => m[1]));
  const declared = [...rootText.matchAll(/^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;/gm)].map((m) => m[1]).filter((name) => !testOnly.has(name));
  const found = new Map();
  for (const name of declared) {
    const files = [];
    if (existsSync(join(src, `${name}.rs`))) files.push(join(src, `${name}.rs`));
    const folder = join(src, name);
    if (existsSync(folder) && statSync(folder).isDirectory()) files.push(...rustFiles(folder));
    found.set(name, files);
  }
  return { units: found, rootText };
}

function rustFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return rustFiles(path);
    return name.endsWith('.rs') && !/(^|_)tests?\.rs$/.test(name) ? [path] : [];
  });
}

/** The first path segment of every `crate::` reference in `text`. */
function crateReferences(text) {
  const code = text.replace(/\/\/.*$/gm, '');
  const names = [];
  for (const match of code.matchAll(/crate::(\{[^}]*\}|\w+)/g)) {
    const target = match[1];
    if (!target.startsWith('{')) names.push(target);
    else
      for (const item of target.slice(1, -1).split(','))
        names.push(
          item
            .trim()
            .split('::')[0]
            .replace(/\s+as\s+\w+$/, ''),
        );
  }
  return names.filter(Boolean);
}

/** Names the root re-exports from a unit (`pub use unit::{A, b::C}`). */
function reexports(rootText, unitNames) {
  const owner = new Map();
  for (const match of rootText.matchAll(/pub\s+use\s+(\w+)::(\{[^}]*\}|[\w:]+)\s*;/g)) {
    if (!unitNames.has(match[1])) continue;
    const items = match[2].startsWith('{') ? match[2].slice(1, -1).split(',') : [match[2]];
    for (const item of items) {
      const name = item
        .trim()
        .split('::')
        .pop()
        .replace(/^.*\s+as\s+/, '');
      if (name) owner.set(name, match[1]);
    }
  }
  return owner;
}

/** The crate's unit graph and its cycles (strongly connected components). */
export function crateCycles(crateDir) {
  const src = join(crateDir, 'src');
  const rootFile = existsSync(join(src, 'lib.rs')) ? 'lib.rs' : 'main.rs';
  const { units: found, rootText } = units(src, rootFile);
  const names = new Set(found.keys());
  const owner = reexports(rootText, names);
  const edges = new Map([...names].map((name) => [name, new Set()]));
  for (const [name, files] of found) {
    for (const file of files) {
      for (const target of crateReferences(readFileSync(file, 'utf8'))) {
        const unit = names.has(target) ? target : owner.get(target);
        if (unit !== undefined && unit !== name) edges.get(name).add(unit);
      }
    }
  }
  return { edges, cycles: stronglyConnected(edges).filter((component) => component.length > 1 || edges.get(component[0]).has(component[0])) };
}

/** Tarjan's algorithm. */
function stronglyConnected(edges) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  const visit = (node) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node)) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node), low.get(to)));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node), index.get(to)));
    }
    if (low.get(node) === index.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      components.push(component.reverse());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return components;
}

/** Every crate of the workspace (crate/*, those with a src/). */
export function workspaceCrates() {
  const dir = join(root, 'crate');
  return readdirSync(dir)
    .map((name) => join(dir, name))
    .filter((path) => existsSync(join(path, 'src')) && existsSync(join(path, 'Cargo.toml')));
}

if (isMain(import.meta.url)) {
  await main(async () => {
    const dirs = process.argv.slice(2);
    let failed = false;
    for (const crateDir of dirs.length > 0 ? dirs : workspaceCrates()) {
      const { edges, cycles } = crateCycles(crateDir);
      const label = relative(root, crateDir) || basename(crateDir);
      for (const cycle of cycles) {
        failed = true;
        console.error(`rust-cycles: ${label}: modules that need each other: ${cycle.join(' <-> ')}`);
      }
      if (cycles.length === 0) console.log(`rust-cycles: ${label}: ${edges.size} modules, no cycle`);
    }
    if (failed) throw new Error('module cycles in crate/ (each pair belongs in one module, or one of them depends on the wrong layer)');
  });
}
