// 'fs' in the Chromium page, for blake3's test helpers (ADAPTED.md): their
// one readFileSync, of the fixture, served from the bundle.
// @ts-expect-error: vite's ?raw import (the tests' tsconfig has no vite/client types)
import fixture from './test-input.txt?raw';

export function readFileSync(path: string): string {
  if (!path.endsWith('/test-input.txt')) throw new Error(`page-fs: only test-input.txt is here, not ${path}`);
  return fixture;
}
