// examples/verified-download in Debian's Chromium, against examples/serve.mjs:
// a file fetched in ranges, each verified with its Bao outboard before it is
// shown; with a byte corrupted by the server, the page stops at that range
// having shown only verified bytes.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { chromium } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { serve } from '../../examples/serve.mjs';
// @ts-expect-error: a plain .mjs module without types
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../scripts/chromium.mjs';
import { flavour, random, seed } from '../shared/setup.js';

const results = fileURLToPath(new URL('../../test-results/', import.meta.url));
type Result = { verified: number; digest?: string; error?: string };

describe.runIf(flavour === 'simd')(`examples/verified-download (seed ${seed})`, () => {
  const name = `verified-download-${process.pid}.bin`;
  const content = random(seed).bytes((5 << 20) + 123);
  let server: { address(): { port: number }; close(): void };
  beforeAll(async () => {
    mkdirSync(results, { recursive: true });
    writeFileSync(join(results, name), content);
    server = await serve();
  });
  afterAll(() => {
    server?.close();
    rmSync(join(results, name), { force: true });
  });

  async function run(query: string): Promise<{ result: Result; progress: number; errors: string[] }> {
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`http://127.0.0.1:${server.address().port}/examples/verified-download/?file=/test-results/${name}${query}`);
      await page.waitForFunction(() => 'result' in window, undefined, { timeout: 60_000 });
      const result = (await page.evaluate(() => (window as unknown as { result: Result }).result)) as Result;
      const progress = await page.evaluate(() => (document.getElementById('progress') as HTMLProgressElement).value);
      return { result, progress, errors };
    } finally {
      await browser.close();
    }
  }

  it('verifies and shows every range of an intact file', async () => {
    const { result, progress, errors } = await run('');
    expect(errors).toEqual([]);
    expect(result).toEqual({ verified: content.length, digest: bytesToHex(blake3(content)) });
    expect(progress).toBe(1);
  }, 90_000);

  it('stops at the range holding a corrupted byte, having shown only the ranges before it', async () => {
    const at = (3 << 20) + 5;
    const { result, progress } = await run(`&corrupt=${at}`);
    expect(result.error).toMatch(/BaoVerifyError: .*does not match the hash/);
    expect(result.verified).toBe(3 << 20);
    expect(progress).toBeLessThan(1);
  }, 90_000);
});
