// A resumable upload's hashing in a real headless Chromium (Debian's): page 1
// hashes the first part of a served file, keeps `save()` in IndexedDB and is
// closed; page 2, a new page of the same origin, loads the state, hashes the
// rest and must give the one-pass digest. Across wasm flavours too.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { serve } from '../../examples/serve.mjs';
// @ts-expect-error: a plain .mjs module without types
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../scripts/chromium.mjs';
import { flavour, KEY, load, pattern } from '../shared/setup.js';

const b3 = await load();
// Served by examples/serve.mjs, which serves the repository.
const results = fileURLToPath(new URL('../../test-results/', import.meta.url));
mkdirSync(results, { recursive: true });
const file = join(results, 'resume-page-input.bin');
afterAll(() => rmSync(file, { force: true }));

interface Step {
  from: number;
  to: number;
  resume: boolean;
  finish: boolean;
  backend: string;
  key: readonly number[] | null;
}

/** The page's module, as text (vitest would rewrite a function's imports):
 * `step` hashes the part [from, to) of the file into a hasher that starts
 * from IndexedDB's saved state (if `resume`), then saves it there again or
 * finishes it. */
const PAGE_MODULE = `
import { init, createHasher, toHex } from '/dist/browser.js';
const db = await new Promise((done, fail) => {
  const open = indexedDB.open('resume-test', 1);
  open.onupgradeneeded = () => open.result.createObjectStore('states');
  open.onsuccess = () => done(open.result);
  open.onerror = () => fail(open.error);
});
const request = (run, mode) => new Promise((done, fail) => {
  const r = run(db.transaction('states', mode).objectStore('states'));
  r.onsuccess = () => done(r.result);
  r.onerror = () => fail(r.error);
});
window.step = async ({ from, to, resume, finish, backend, key }) => {
  const b3 = await init({ backend });
  const hasher = createHasher(key ? { key: Uint8Array.from(key) } : undefined);
  if (resume) hasher.load(await request((store) => store.get('upload'), 'readonly'));
  const response = await fetch('/test-results/resume-page-input.bin', { headers: { Range: 'bytes=' + from + '-' + (to - 1) } });
  hasher.update(new Uint8Array(await response.arrayBuffer()));
  if (finish) return { backend: b3.backend, digest: toHex(hasher.digest()) };
  await request((store) => store.put(hasher.save(), 'upload'), 'readwrite');
  return { backend: b3.backend, digest: '' };
};
`;

describe.runIf(flavour === 'simd')('resuming in a new Chromium page', () => {
  it.each([
    ['hash, saved on wasm-simd, finished on wasm-scalar', 'wasm-simd', 'wasm-scalar', null],
    ['keyed, saved on wasm-scalar, finished on wasm-simd', 'wasm-scalar', 'wasm-simd', [...KEY]],
  ] as const)(
    '%s',
    async (_, first, second, key) => {
      const content = pattern(5 * 1024 * 1024 + 3, key ? 7 : 0);
      writeFileSync(file, content);
      const split = 3 * 1024 * 1024 + 1001;
      const server = await serve({});
      const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
      try {
        const context = await browser.newContext();
        const origin = `http://127.0.0.1:${server.address().port}`;
        const errors: string[] = [];
        const run = async (args: Step) => {
          const page = await context.newPage();
          page.on('pageerror', (error) => errors.push(error.message));
          // A blank page of the server's origin (IndexedDB is per origin).
          await page.route(`${origin}/resume.html`, (route) =>
            route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>resume</title>' }),
          );
          await page.goto(`${origin}/resume.html`);
          await page.addScriptTag({ type: 'module', content: PAGE_MODULE });
          await page.waitForFunction(() => 'step' in window);
          const result = await page.evaluate(
            (args) => (window as unknown as { step(args: Step): Promise<{ backend: string; digest: string }> }).step(args),
            args,
          );
          await page.close();
          return result;
        };
        const saved = await run({ from: 0, to: split, resume: false, finish: false, backend: first, key });
        expect(saved.backend).toBe(first);
        const finished = await run({ from: split, to: content.length, resume: true, finish: true, backend: second, key });
        expect(finished.backend).toBe(second);
        const expected = b3.toHex(key ? b3.hash(content, { key: Uint8Array.from(key) }) : b3.hash(content));
        expect(finished.digest).toBe(expected);
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
        server.close();
      }
    },
    120_000,
  );
});
