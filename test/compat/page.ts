// Stands in for the puppeteer (2.x) or playwright (3.x) page that blake3's
// browser tests drive: the tests run in vitest's Chromium page already, so
// evaluate() runs the code here, with `blake3` and `inputs` set on window as
// their harness set them (ADAPTED.md).

import * as compat from 'blake3-kit/compat';

type Api = Awaited<ReturnType<typeof compat.load>>;

export interface Page {
  evaluate(code: string): Promise<unknown>;
}

// Indirect eval: global scope, as page.evaluate's code has.
// biome-ignore lint/security/noGlobalEval: their tests are code strings for page.evaluate
const globalEval = eval;

/** Loads the compat entry as their harness loaded theirs: `how` is
 * 'named' (3.x: `await load()` then the module) or 'default' (2.x
 * browser-async: the default export's promise resolves to the API). */
export async function openPage(how: 'named' | 'default', inputs: unknown): Promise<Page> {
  const blake3: Api = how === 'named' ? (await compat.load(), compat) : await compat.default();
  Object.assign(globalThis, { blake3, inputs: JSON.parse(JSON.stringify(inputs)) });
  return { evaluate: async (code) => globalEval(code) };
}
