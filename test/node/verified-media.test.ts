// examples/verified-media from the packed tarball, in a fresh project built
// by Vite (the page and its Service Worker), served by its own node:http
// server that lies, in Chromium, Firefox ESR and WebKitGTK:
//   - the Service Worker answers /verified/<cid> with verified bytes, Range
//     and all, and every lie the server's mirrors tell fails on the page
//     (a network error), never passing an unverified byte;
//   - an <audio> element plays a WAV built here: a seek on the honest part
//     costs one aligned range request (the outboard and the size's proof
//     are kept); at the corrupted group it gets MEDIA_ERR_NETWORK and the
//     page shows the offset;
//   - the write side: a picked file's root and CID, published and read
//     back through the worker.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { cid } from 'blake3-kit/bao';
import { chromium } from 'playwright';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { remote } from 'webdriverio';
// @ts-expect-error: a plain .mjs module without types
import { CAPABILITIES, missingFor, startDriver } from '../../scripts/browsers.mjs';
// @ts-expect-error: a plain .mjs module without types
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../scripts/chromium.mjs';
import { consumerProject, packAll, root } from './packed.js';

const example = (name: string) => join(root, 'examples', 'verified-media', name);
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** 20 minutes of a tone as a WAV (8 kHz, 16-bit mono: 16,000 bytes a second). */
function toneWav(seconds: number): Uint8Array {
  const samples = 8000 * seconds;
  const wav = new Uint8Array(44 + samples * 2);
  const view = new DataView(wav.buffer);
  const ascii = (at: number, text: string) => {
    for (let i = 0; i < text.length; i++) view.setUint8(at + i, text.charCodeAt(i));
  };
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + samples * 2, true);
  ascii(8, 'WAVEfmt ');
  for (const [at, value, bytes] of [
    [16, 16, 4],
    [20, 1, 2],
    [22, 1, 2],
    [24, 8000, 4],
    [28, 16000, 4],
    [32, 2, 2],
    [34, 16, 2],
  ] as const)
    bytes === 4 ? view.setUint32(at, value, true) : view.setUint16(at, value, true);
  ascii(36, 'data');
  view.setUint32(40, samples * 2, true);
  for (let i = 0; i < samples; i++) view.setInt16(44 + i * 2, Math.round(6000 * Math.sin((2 * Math.PI * 330 * i) / 8000)), true);
  return wav;
}

const wav = toneWav(1200);
const BYTES_PER_SECOND = 16_000;
/** The byte the lying mirror flips, and the 16 KiB group it spoils (at 842.75 s). */
const CORRUPT = 13_500_000;
const BAD_GROUP = Math.floor(CORRUPT / 16_384) * 16_384;
const picked = new Uint8Array(3 * 1024 * 1024 + 777).map((_, i) => (i * 2654435761) >>> 24);

/** What runs in the page, as text: installed once the page is ready. */
const HELPERS = `window.t = {
  async fetchVia({ cid, mirror, range, timeout = 30000 }) {
    const entry = window.demo.catalog().find((e) => e.cid === cid) ?? window.demo.catalog()[0];
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DOMException('gave up', 'TimeoutError')), timeout);
    try {
      const response = await fetch(window.demo.verifiedUrl(entry, mirror), { headers: range ? { Range: range } : {}, signal: controller.signal });
      const out = { status: response.status, contentRange: response.headers.get('Content-Range'), contentLength: response.headers.get('Content-Length') };
      const parts = [];
      let length = 0;
      try {
        const reader = response.body.getReader();
        for (let step = await reader.read(); !step.done; step = await reader.read()) { parts.push(step.value); length += step.value.length; }
      } catch (error) { out.bodyError = error.name; }
      const all = new Uint8Array(length);
      let at = 0;
      for (const part of parts) { all.set(part, at); at += part.length; }
      out.length = length;
      out.sha256 = [...new Uint8Array(await crypto.subtle.digest('SHA-256', all))].map((b) => b.toString(16).padStart(2, '0')).join('');
      return out;
    } catch (error) {
      return { fetchError: error.name };
    } finally {
      clearTimeout(timer);
    }
  },
  async seek({ time, play }) {
    const player = document.getElementById('player');
    const state = (event) => ({ event, code: player.error?.code ?? null, currentTime: player.currentTime, duration: player.duration, shown: document.getElementById('error').textContent });
    if (player.error !== null) return state('failed before');
    if (player.readyState < 1) await new Promise((done) => player.addEventListener('loadedmetadata', done, { once: true }));
    const seen = new Promise((done) => {
      player.addEventListener('seeked', () => done('seeked'), { once: true });
      player.addEventListener('error', () => done('error'), { once: true });
    });
    player.currentTime = time;
    let event = await Promise.race([seen, new Promise((done) => setTimeout(() => done('timeout'), 30000))]);
    // Played on until the player fails: reading ahead, it may fail before it plays there.
    if (play && event === 'seeked') {
      player.muted = true;
      player.play().catch(() => {});
      for (let i = 0; i < 600 && player.error === null; i++) await new Promise((done) => setTimeout(done, 100));
      event = player.error === null ? 'timeout' : 'error';
    }
    return state(event);
  },
  async playFor(ms) {
    const player = document.getElementById('player');
    const from = player.currentTime;
    player.muted = true;
    await player.play().catch(() => {});
    await new Promise((done) => setTimeout(done, ms));
    player.pause();
    return { from, to: player.currentTime, code: player.error?.code ?? null };
  },
  async select(mirror) {
    const select = document.getElementById('mirror');
    select.value = mirror;
    select.dispatchEvent(new Event('change'));
    return mirror;
  },
  // Until the player has stopped loading for 300 ms (at most 15 s): what it
  // reads ahead after a load, slow on a busy machine, is not the seek's.
  async settle() {
    const player = document.getElementById('player');
    let quiet = 0;
    for (let i = 0; i < 150 && quiet < 3; i++) {
      await new Promise((done) => setTimeout(done, 100));
      quiet = player.readyState >= 1 && player.networkState !== HTMLMediaElement.NETWORK_LOADING ? quiet + 1 : 0;
    }
    return quiet >= 3;
  },
  async written() {
    for (let i = 0; i < 600 && !/CID/.test(document.getElementById('written').textContent); i++) await new Promise((done) => setTimeout(done, 100));
    return document.getElementById('written').textContent;
  },
  async publish(cid) {
    document.getElementById('publish').click();
    for (let i = 0; i < 300 && !window.demo.catalog().some((e) => e.cid === cid); i++) await new Promise((done) => setTimeout(done, 100));
    return window.demo.catalog().map((e) => e.cid);
  },
};`;

/** One engine's page, driven the same way whatever the driver. */
interface Driven {
  run<T>(helper: string, arg?: unknown): Promise<T>;
  setFile(selector: string, path: string): Promise<void>;
  close(): Promise<void>;
}

async function chromiumPage(url: string): Promise<Driven> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, '--autoplay-policy=no-user-gesture-required'] });
  try {
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitForFunction(() => (window as unknown as { demoReady?: boolean }).demoReady === true, undefined, { timeout: 60_000 });
    await page.evaluate(HELPERS);
    return {
      run: (helper, arg) =>
        page.evaluate(([h, a]) => (window as never as { t: Record<string, (x: unknown) => unknown> }).t[h as string]!(a), [helper, arg]) as never,
      setFile: (selector, path) => page.setInputFiles(selector, path),
      close: () => browser.close(),
    };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

async function webdriverPage(engine: 'firefox' | 'webkit', url: string): Promise<Driven> {
  const driver = await startDriver(engine);
  let browser: WebdriverIO.Browser | undefined;
  try {
    browser = await remote({ hostname: driver.hostname, port: driver.port, capabilities: CAPABILITIES[engine], logLevel: 'error' });
    const session = browser;
    await session.setTimeout({ script: 120_000, pageLoad: 60_000 });
    await session.url(url);
    await session.waitUntil(() => session.execute(() => (window as unknown as { demoReady?: boolean }).demoReady === true), { timeout: 60_000 });
    await session.execute(HELPERS);
    return {
      async run(helper, arg) {
        const out = await session.executeAsync(
          (h: string, a: unknown, done: (x: unknown) => void) =>
            (window as never as { t: Record<string, (x: unknown) => Promise<unknown>> }).t[h]!(a).then(done, (e) => done({ thrown: String(e) })),
          helper,
          arg ?? null,
        );
        return out as never;
      },
      async setFile(selector, path) {
        await (await session.$(selector)).addValue(path);
      },
      async close() {
        await session.deleteSession().catch(() => {});
        driver.stop();
      },
    };
  } catch (error) {
    await browser?.deleteSession().catch(() => {});
    driver.stop();
    throw error;
  }
}

type Engine = 'chromium' | 'firefox' | 'webkit';
const engines: Engine[] = ['chromium', 'firefox', 'webkit'];
/** What a seek cost, per engine: for the closing note's table. */
const seekCosts: Record<string, unknown>[] = [];

describe.runIf(inject('flavour') === 'simd')('examples/verified-media: a Service Worker, from the tarball, built by Vite, in three engines', () => {
  let dir: string;
  let server: ChildProcess | undefined;
  let base = '';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'blake3-kit-verified-media-'));
    const packed = packAll(dir);
    const project = consumerProject(dir, 'verified-media', [packed.main]);
    for (const file of ['index.html', 'main.js', 'sw.js', 'vite.config.js', 'server.mjs']) copyFileSync(example(file), join(project, file));
    const built = spawnSync(join(root, 'node_modules', '.bin', 'vite'), ['build', '--logLevel', 'warn'], {
      cwd: project,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(built.status, built.stderr).toBe(0);
    writeFileSync(join(dir, 'tone.wav'), wav);
    writeFileSync(join(dir, 'picked.bin'), picked);
    server = spawn(
      process.execPath,
      ['server.mjs', '--port', '0', '--media', join(dir, 'tone.wav'), '--type', 'audio/wav', '--corrupt', String(CORRUPT)],
      // Never outlives the test, even if this process dies without afterAll.
      { cwd: project, stdio: ['ignore', 'pipe', 'inherit'], timeout: 900_000 },
    );
    process.once('exit', () => server?.kill());
    base = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the example server did not start within 30 s')), 30_000);
      server!.stdout!.on('data', (data: Buffer) => {
        const url = /http:\/\/[\d.:]+\//.exec(data.toString())?.[0];
        if (url !== undefined) {
          clearTimeout(timer);
          resolve(url);
        }
      });
      server!.on('exit', (code) => reject(new Error(`the example server exited (${code})`)));
    });
  }, 240_000);
  afterAll(() => {
    if (server?.exitCode === null) server.kill();
    rmSync(dir, { recursive: true, force: true });
    if (seekCosts.length > 0) console.log(`requests per seek:\n${seekCosts.map((row) => JSON.stringify(row)).join('\n')}`);
  });

  const log = async (): Promise<{ mirror: string; what: string; range: string | null }[]> => (await fetch(`${base}log.json`)).json();

  for (const engine of engines) {
    const missing = engine === 'chromium' ? [] : (missingFor(engine) as string[]);
    describe.skipIf(missing.length > 0)(`${engine}${missing.length > 0 ? ` (missing: ${missing.join(', ')})` : ''}`, () => {
      let page: Driven;
      beforeAll(async () => {
        page = engine === 'chromium' ? await chromiumPage(base) : await webdriverPage(engine, base);
      }, 120_000);
      afterAll(async () => page?.close());

      it('answers with verified bytes, Range and all, and fails every lie of the mirrors', async () => {
        const [first, last] = [1_000_000, 1_099_999];
        const range = `bytes=${first}-${last}`;
        const exact = {
          status: 206,
          contentRange: `bytes ${first}-${last}/${wav.length}`,
          length: 100_000,
          sha256: sha256(wav.subarray(first, last + 1)),
        };
        expect(await page.run('fetchVia', { mirror: 'honest', range })).toMatchObject(exact);
        expect(await page.run('fetchVia', { mirror: 'ignore-range', range })).toMatchObject(exact);
        const whole = await page.run('fetchVia', { mirror: 'honest' });
        expect(whole).toMatchObject({ status: 200, contentLength: String(wav.length), sha256: sha256(wav) });
        // Whatever a lie does, what the page gets is a prefix of the bytes asked for.
        const prefixOf = (start: number, got: Record<string, unknown>) => sha256(wav.subarray(start, start + ((got.length as number) ?? 0)));
        // A range over the corrupted byte: the bytes before its group, then an
        // error. The worker sends them all (test/shared/verified-fetch.test.ts),
        // but a page may get fewer: WebKitGTK's page-side stream drops what it
        // still held when the worker's stream errors, and so did Chromium's
        // once under CI's load (0 of 50,000 bytes, 2026-11-28), its page
        // told of the error before it had read the pipe.
        const around = await page.run<Record<string, unknown>>('fetchVia', {
          mirror: 'corrupt',
          range: `bytes=${BAD_GROUP - 50_000}-${BAD_GROUP + 50_000}`,
        });
        expect(around.status).toBe(206);
        expect(around.bodyError).toBeDefined();
        expect(around.sha256).toBe(prefixOf(BAD_GROUP - 50_000, around));
        if (engine === 'firefox') expect(around.length).toBe(50_000);
        else expect(around.length).toBeLessThanOrEqual(50_000);
        // Bodies that are short, or go on past the range: an error, after no
        // more than the bytes asked for. (Firefox and WebKitGTK inflate only
        // the first member of a gzip stream: there the bomb's range comes
        // out exact.)
        for (const mirror of ['short', 'long', 'endless', 'gzip-bomb']) {
          const lied = await page.run<Record<string, unknown>>('fetchVia', { mirror, range });
          expect(lied.length ?? 0, mirror).toBeLessThanOrEqual(100_000);
          if (lied.sha256 !== undefined) expect(lied.sha256, mirror).toBe(prefixOf(first, lied));
          if (mirror === 'gzip-bomb' && lied.bodyError === undefined && lied.fetchError === undefined) expect(lied).toMatchObject(exact);
          else expect(lied.bodyError ?? lied.fetchError, mirror).toBeDefined();
        }
        // Lies found before a byte is sent: the page's fetch fails.
        for (const mirror of ['wrong-range', 'bad-outboard'])
          expect(await page.run('fetchVia', { mirror, range }), mirror).toEqual({ fetchError: 'TypeError' });
        // A mirror that stalls: the page gives up when it says.
        const stalled = await page.run<Record<string, unknown>>('fetchVia', { mirror: 'stall', range, timeout: 1500 });
        expect(stalled.fetchError ?? stalled.bodyError).toMatch(/TimeoutError|AbortError/);
      }, 180_000);

      it('plays and seeks at one range request a seek (the outboard and size are kept)', async () => {
        await page.run('select', 'honest');
        await page.run('settle');
        await log(); // what loading cost, not counted
        const seeked = await page.run<Record<string, unknown>>('seek', { time: 300 });
        expect(seeked).toMatchObject({ event: 'seeked', code: null, currentTime: 300, duration: 1200 });
        const requests = await log();
        const content = requests.filter(({ what }) => what === 'content');
        seekCosts.push({
          engine,
          seek: '300 s',
          contentRequests: content.length,
          outboardRequests: requests.length - content.length,
          ranges: content.map((r) => r.range),
        });
        expect(requests.filter(({ what }) => what === 'outboard')).toEqual([]);
        // One request per request of the player's, for the groups from the
        // seek on: a player may ask twice for the same range (WebKitGTK's
        // often does). Firefox on a busy machine also went on reading ahead
        // from where it had loaded ('bytes=262144-' in CI): a request of the
        // player's, not the seek's, and also a whole group's.
        const aligned = Math.floor((300 * BYTES_PER_SECOND + 44) / 16_384) * 16_384;
        const atSeek = content.filter(({ range }) => range?.startsWith(`bytes=${aligned}-`));
        expect(atSeek.length).toBeGreaterThanOrEqual(1);
        expect(atSeek.length).toBeLessThanOrEqual(2);
        for (const { range } of content) expect(Number(/^bytes=(\d+)-\d*$/.exec(range ?? '')?.[1]) % 16_384, String(range)).toBe(0);
        if (engine !== 'firefox') expect(content.length).toBe(atSeek.length);
        const played = await page.run<{ from: number; to: number; code: number | null }>('playFor', 3000);
        expect(played.code).toBe(null);
        expect(played.to).toBeGreaterThan(played.from);
      }, 180_000);

      it('stops with a network error at the corrupted group, and shows its offset', async () => {
        await page.run('select', 'corrupt');
        // Up to the corrupted group, then play into it. Chromium and Firefox
        // read a little ahead, so a seek to the honest part works first;
        // WebKitGTK reads the whole file ahead through the worker and fails
        // once that reaches the group, even before this seek.
        const honest = await page.run<Record<string, unknown>>('seek', { time: 300 });
        if (engine !== 'webkit') expect(honest).toMatchObject({ event: 'seeked', code: null });
        const spoiled = await page.run<Record<string, unknown>>('seek', { time: Math.floor((BAD_GROUP - 44) / BYTES_PER_SECOND) - 4, play: true });
        expect(spoiled.event).toMatch(/^(error|failed before)$/);
        expect(spoiled.code).toBe(2); // MEDIA_ERR_NETWORK
        expect(spoiled.currentTime).toBeLessThan((BAD_GROUP - 44) / BYTES_PER_SECOND);
        expect(spoiled.shown).toMatch(new RegExp(`^Not verified at byte ${BAD_GROUP}: `));
      }, 180_000);

      it("hashes a picked file's root, CID and outboard on workers, and plays back what it published", async () => {
        await page.setFile('#file', join(dir, 'picked.bin'));
        const written = await page.run<string>('written');
        const root = bytesToHex(blake3(picked));
        expect(written).toContain(`root ${root}`);
        const named = /CID (b[a-z2-7]+)/.exec(written)?.[1];
        expect(named).toBe(cid(blake3(picked)));
        expect(written).toContain(`outboard ${(Math.ceil(picked.length / 16_384) - 1) * 64} bytes`);
        expect(await page.run('publish', named)).toContain(named);
        const back = await page.run('fetchVia', { cid: named, mirror: 'honest', range: 'bytes=1000000-' });
        expect(back).toMatchObject({ status: 206, length: picked.length - 1_000_000, sha256: sha256(picked.subarray(1_000_000)) });
      }, 120_000);
    });
  }
});
