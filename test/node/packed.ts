// The tarballs a user installs: what scripts/pack.mjs makes for publishing
// (the main package lists the platform packages as optionalDependencies;
// a plain `npm pack` of the repository does not).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: a plain .mjs module without types
import { PLATFORMS, packMain, packPlatform } from '../../scripts/pack.mjs';

export const root = fileURLToPath(new URL('../..', import.meta.url));

export interface Packed {
  main: string;
  /** Per triple: the tarball, or why there is none (its addon is not built). */
  platforms: Record<string, { tarball?: string; missing?: string }>;
}

/** Packs every package into `dir`. */
export function packAll(dir: string): Packed {
  const triples = Object.keys(PLATFORMS as Record<string, unknown>);
  return { main: packMain(dir), platforms: Object.fromEntries(triples.map((triple) => [triple, packPlatform(triple, dir)])) };
}

/** A fresh project in `dir`/`name` with `tarballs` installed as a user would
 * (offline: the tests' npm cache is all there is). `force` installs a
 * platform package on another platform. */
export function consumerProject(dir: string, name: string, tarballs: string[], { force = false } = {}): string {
  const project = join(dir, name);
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: `consumer-${name}`, private: true, type: 'module' }));
  const flags = ['--offline', '--no-audit', '--no-fund', '--ignore-scripts', ...(force ? ['--force'] : [])];
  execFileSync('npm', ['install', ...flags, ...tarballs], { cwd: project, stdio: 'ignore' });
  return project;
}
