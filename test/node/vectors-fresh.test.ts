import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { generateVectors, vectorsPath } from '../../scripts/vectors.mjs';

it('test/vectors.json is what the official crate generates today', async () => {
  const fresh: string = await generateVectors();
  expect(JSON.parse(fresh).cases).toHaveLength(35);
  // Stale or hand-edited vectors fail here: regenerate with `npm run vectors`.
  expect(readFileSync(vectorsPath, 'utf8')).toBe(fresh);
}, 300_000);
