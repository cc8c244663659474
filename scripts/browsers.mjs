// How the tests start Debian's Firefox ESR and WebKitGTK (Safari's engine)
// through WebDriver, next to Chromium (scripts/chromium.mjs). We start every
// driver ourselves and hand webdriverio its address (scripts/webdriver.mjs):
// webdriverio only downloads drivers and browsers when it has to start a
// driver itself, so nothing is ever downloaded at test time. Node built-ins
// only: setup.mjs reads the paths before node_modules exists.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { cargoBin } from './lib.mjs';

export const FIREFOX_PATH = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';
// From crates.io (setup.mjs installs it): there is no Debian package.
export const GECKODRIVER_VERSION = '0.37.1';
export const GECKODRIVER_PATH = process.env.GECKODRIVER_PATH ?? join(cargoBin, 'geckodriver');
export const WEBKIT_DRIVER_PATH = '/usr/bin/WebKitWebDriver';
export const MINIBROWSER_PATH = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
export const XVFB_PATH = '/usr/bin/Xvfb';

/** What each engine's WebDriver session asks for. */
export const CAPABILITIES = {
  firefox: {
    browserName: 'firefox',
    'moz:firefoxOptions': { binary: FIREFOX_PATH, args: ['-headless'] },
  },
  webkit: {
    // WebKitWebDriver matches browserName against the browser it starts
    // ("safari" fails with "Failed to match capabilities").
    browserName: 'MiniBrowser',
    'webkitgtk:browserOptions': { binary: MINIBROWSER_PATH, args: ['--automation'] },
    // WebKitGTK's driver speaks classic WebDriver; webdriverio would ask for BiDi.
    'wdio:enforceWebDriverClassic': true,
  },
};

/**
 * Starts what `engine` needs (WebKit: an Xvfb display, then the driver) and
 * resolves to `{ hostname, port, stop }` once the driver answers. `stop`
 * kills, by pid, the processes started here; the driver ends its browser
 * when its session is deleted, before that.
 */
export async function startDriver(engine) {
  const started = [];
  const stop = () => {
    for (const child of started.reverse()) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  // Killed even when vitest exits without closing the provider.
  process.once('exit', stop);
  try {
    const port = await freePort();
    if (engine === 'firefox') {
      // --websocket-port 0: Firefox's BiDi port is otherwise 9222 for every
      // instance, and the simd and scalar projects run at the same time.
      const driver = spawnLogged(GECKODRIVER_PATH, ['--host', '127.0.0.1', '--port', String(port), '--websocket-port', '0'], {});
      started.push(driver);
    } else {
      const xvfb = await startXvfb();
      started.push(xvfb.child);
      // As root the web process sandbox cannot start: tests only.
      const env = { DISPLAY: `:${xvfb.display}`, ...(process.getuid?.() === 0 ? { WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS: '1' } : {}) };
      started.push(spawnLogged(WEBKIT_DRIVER_PATH, [`--port=${port}`], env));
    }
    await ready(port, started.at(-1));
    return {
      hostname: '127.0.0.1',
      port,
      stop: () => {
        process.off('exit', stop);
        stop();
      },
    };
  } catch (error) {
    process.off('exit', stop);
    stop();
    throw error;
  }
}

/** Which of the tools `engine` needs are missing (for a clear error). */
export function missingFor(engine) {
  const tools = engine === 'firefox' ? [FIREFOX_PATH, GECKODRIVER_PATH] : [XVFB_PATH, WEBKIT_DRIVER_PATH, MINIBROWSER_PATH];
  return tools.filter((path) => !existsSync(path));
}

/** A child whose last output is kept for the error message if it dies. */
function spawnLogged(command, args, env) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.output = '';
  const keep = (data) => {
    child.output = (child.output + data).slice(-2000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.on('error', (error) => keep(`${error.message}\n`));
  // The driver must not keep vitest alive.
  child.unref();
  return child;
}

/** Xvfb on a display number it picks itself (-displayfd): no race for one. */
function startXvfb() {
  return new Promise((resolve, reject) => {
    const child = spawn(XVFB_PATH, ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let fd = '';
    child.stderr.on('data', (data) => {
      stderr = (stderr + data).slice(-2000);
    });
    child.stdio[3].on('data', (data) => {
      fd += data;
      if (fd.includes('\n')) resolve({ child, display: Number(fd.trim()) });
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`Xvfb exited (${code}) before it opened a display: ${stderr}`)));
    child.unref();
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Waits until the driver at `port` reports ready (10 s at most). */
async function ready(port, child) {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      const response = await fetch(`http://127.0.0.1:${port}/status`);
      if ((await response.json()).value?.ready) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${child.spawnfile} did not become ready on port ${port}: ${child.output}`);
}
