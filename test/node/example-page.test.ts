// The example page in a real headless Chromium (Debian's), served with and
// without COOP/COEP: pick a file, wait for the digest, compare it, and keep
// a screenshot in test-results/ (not committed).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { serve } from '../../examples/serve.mjs';
// @ts-expect-error: a plain .mjs module without types
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../scripts/chromium.mjs';
import { load, pattern } from '../shared/setup.js';

const b3 = await load();
const results = fileURLToPath(new URL('../../test-results/', import.meta.url));
mkdirSync(results, { recursive: true });
const dir = mkdtempSync(join(tmpdir(), 'blake3-kit-page-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each([true, false])('example page (cross-origin isolated: %s)', (isolated) => {
  it('hashes a picked 24 MiB file with workers, showing progress, digest and MB/s', async () => {
    const content = pattern(24 * 1024 * 1024 + 3, isolated ? 1 : 2);
    const path = join(dir, `upload-${isolated}.bin`);
    writeFileSync(path, content);
    const server = await serve({ isolated });
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage({ viewport: { width: 900, height: 640 } });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`http://127.0.0.1:${server.address().port}/examples/hash-a-file/`);
      await page.waitForFunction(() => document.getElementById('env')!.textContent !== '');
      expect(await page.evaluate(() => crossOriginIsolated)).toBe(isolated);
      await page.setInputFiles('#file', path);
      await page.waitForFunction(() => document.getElementById('digest')!.textContent!.length === 64, undefined, { timeout: 60_000 });
      expect(await page.textContent('#digest')).toBe(b3.toHex(b3.hash(content)));
      expect(await page.textContent('#status')).toMatch(/MB\/s, \d+ workers/);
      expect(await page.evaluate(() => (document.getElementById('progress') as HTMLProgressElement).value)).toBe(1);
      await page.screenshot({ path: join(results, `example-page-${isolated ? 'isolated' : 'plain'}.png`) });
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      server.close();
    }
  }, 120_000);
});
