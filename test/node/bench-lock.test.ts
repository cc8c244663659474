// `npm run bench` starts with `npm --prefix bench ci`, which refuses a lock
// file out of step with bench/package.json (a peer's platform package
// missing from it, say). npm ci --dry-run makes that check offline.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';

const bench = fileURLToPath(new URL('../../bench/', import.meta.url));

describe.runIf(inject('flavour') === 'simd' && inject('backend') === 'wasm-simd')('the bench project', () => {
  it('has a lock file npm ci accepts', () => {
    const run = () =>
      execFileSync('npm', ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: bench, encoding: 'utf8', stdio: 'pipe' });
    expect(run).not.toThrow();
  });
});
