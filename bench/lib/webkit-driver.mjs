// WebKitGTK (Safari's engine) for the browser runner, over plain W3C
// WebDriver HTTP: no client library, fetch() is enough. It starts an Xvfb
// display and WebKitWebDriver, and one WebDriver session (a MiniBrowser of
// its own) per page, so every page, cold starts included, is a fresh browser
// process with nothing cached. Everything started here is stopped by pid.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { MINIBROWSER, WEBKIT_DRIVER, XVFB } from './runtimes.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(what, check, timeoutMs = 15_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`${what}: not ready after ${timeoutMs} ms`);
    await sleep(100);
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** pid's descendants, deepest first: WebKitWebDriver starts MiniBrowser,
 * which starts the web and network processes. */
function descendants(pid) {
  let children = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {}
  return children.flatMap((c) => [...descendants(c), c]);
}

function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  for (const pid of descendants(child.pid)) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {}
  }
  child.kill('SIGTERM');
}

export async function webkitDriver(callTimeoutMs) {
  // A display number nobody holds.
  let display = 90 + (process.pid % 100);
  while (existsSync(`/tmp/.X11-unix/X${display}`) || existsSync(`/tmp/.X${display}-lock`)) display++;
  const xvfb = spawn(XVFB, [`:${display}`, '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
  const started = [xvfb];
  const stopAll = () => started.reverse().forEach(stop);
  try {
    await until('Xvfb', async () => existsSync(`/tmp/.X11-unix/X${display}`));
    const port = await freePort();
    const env = { ...process.env, DISPLAY: `:${display}` };
    // As root the web process sandbox cannot start (bench machines here run
    // as root); only then is it turned off.
    if (process.getuid?.() === 0) env.WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS = '1';
    const driver = spawn(WEBKIT_DRIVER, [`--port=${port}`], { env, stdio: 'ignore' });
    started.push(driver);
    const base = `http://127.0.0.1:${port}`;

    async function call(method, path, body) {
      const res = await fetch(base + path, {
        method,
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = await res.json();
      if (!res.ok || json.value?.error) throw new Error(`WebDriver ${method} ${path}: ${json.value?.error}: ${json.value?.message}`);
      return json.value;
    }
    await until('WebKitWebDriver', async () => (await call('GET', '/status')).ready);

    const self = {
      name: 'WebKitGTK MiniBrowser',
      version: undefined,
      engine: 'JavaScriptCore',
      engineVersion: undefined,
      async page(url) {
        const session = await call('POST', '/session', {
          capabilities: { alwaysMatch: { 'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] } } },
        });
        const id = session.sessionId;
        // JavaScriptCore ships inside WebKitGTK: the same version.
        self.version ??= session.capabilities.browserVersion;
        self.engineVersion ??= `WebKitGTK ${session.capabilities.browserVersion}`;
        const s = `/session/${id}`;
        try {
          await call('POST', `${s}/timeouts`, { script: callTimeoutMs, pageLoad: 60_000 });
          await call('POST', `${s}/url`, { url });
          await until(
            'the bench page',
            async () => call('POST', `${s}/execute/sync`, { script: 'return window.bench !== undefined', args: [] }),
            30_000,
          );
        } catch (error) {
          await call('DELETE', s).catch(() => {});
          throw error;
        }
        return {
          async call(method, arg) {
            const out = await call('POST', `${s}/execute/async`, {
              script: `const [m, a, done] = arguments; window.bench[m](a).then(done, (e) => done({ __thrown: String(e) }));`,
              args: [method, arg ?? null],
            });
            if (out?.__thrown) throw new Error(out.__thrown);
            return out;
          },
          // W3C Element Send Keys with a path on a file input picks that file.
          async setFile(selector, path) {
            const element = await call('POST', `${s}/element`, { using: 'css selector', value: selector });
            await call('POST', `${s}/element/${Object.values(element)[0]}/value`, { text: path });
          },
          close: () => call('DELETE', s),
        };
      },
      close: async () => stopAll(),
    };
    return self;
  } catch (error) {
    stopAll();
    throw error;
  }
}
