import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { generateVectors, vectorFiles } from '../../scripts/vectors.mjs';

it.each(vectorFiles as { path: string; args: string[] }[])(
  '$path is what the official crate generates today',
  async ({ path, args }) => {
    const fresh: string = await generateVectors(args);
    expect(JSON.parse(fresh).cases.length).toBeGreaterThanOrEqual(6);
    // Stale or hand-edited vectors fail here: regenerate with `npm run vectors`.
    expect(readFileSync(path, 'utf8')).toBe(fresh);
  },
  300_000,
);
