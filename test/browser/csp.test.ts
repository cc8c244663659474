// The browser entry needs no 'unsafe-eval': it fetches a .wasm file and
// compiles it, which CSP governs with 'wasm-unsafe-eval' alone. Its workers
// are module scripts from the same origin, which worker-src 'self' allows.
// When they can't start, the hashes are still right and it says so once.
import { expect, inject, it } from 'vitest';

type Workers = { right: boolean; started: number; jobs: number; broken?: string };
type Report = { backend?: string; digest?: string; workers?: Workers; warnings?: string[]; error?: string; violations: string[] };

const STRICT = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'";
const ABC = '6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85';

function loadUnderPolicy(policy: string, workerUrl?: string): Promise<Report> {
  const frame = document.createElement('iframe');
  const page = new URL('./csp-page.ts', import.meta.url).href;
  // Firefox (ESR 153) matches 'self' in a srcdoc document's policy against
  // no origin at all, not the one the document inherits: even this page's
  // own script is blocked. The origin, named as well, means the same in
  // every engine.
  const applied = policy.replaceAll("'self'", `'self' ${location.origin}`);
  frame.srcdoc = `<!doctype html><meta http-equiv="Content-Security-Policy" content="${applied}">
    ${workerUrl ? `<meta name="worker-url" content="${workerUrl}">` : ''}
    <script type="module" src="${page}"></script>`;
  return new Promise<Report>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the CSP page never reported')), 60_000);
    addEventListener('message', function listener(event) {
      if (event.source !== frame.contentWindow) return;
      clearTimeout(timer);
      removeEventListener('message', listener);
      resolve(event.data);
    });
    document.body.append(frame);
  }).finally(() => frame.remove());
}

it(`hashes, on workers too, under ${STRICT} without any violation`, async () => {
  const report = await loadUnderPolicy(STRICT);
  expect(report).toMatchObject({ backend: 'wasm-simd', digest: ABC, warnings: [], violations: [] });
  expect(report.workers).toMatchObject({ right: true, started: 2, broken: undefined });
  expect(report.workers?.jobs).toBeGreaterThan(0);
});

it("is stopped by a policy without 'wasm-unsafe-eval' (the policy is really applied)", async () => {
  const report = await loadUnderPolicy("default-src 'self'; script-src 'self'; connect-src 'self'");
  // Each engine words it its own way; all three name the policy.
  expect(report.error).toMatch(/^CompileError: .*(Content Security Policy|CSP)/i);
  // WebKit fires no securitypolicyviolation for a refused compile (it does
  // for worker-src); its error names the directive instead.
  expect(inject('engine') === 'webkit' ? report.error : report.violations.join()).toMatch(/script-src/);
});

const GAVE_UP = /^blake3-kit: workers keep failing to start; hashing on this thread instead \(.+\)$/;

it('warns once and hashes right on this thread when worker-src blocks the workers', async () => {
  const report = await loadUnderPolicy("default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'none'");
  expect(report.violations.join()).toMatch(/worker-src/);
  expect(report.workers).toMatchObject({ right: true, jobs: 0, broken: expect.stringMatching(GAVE_UP) });
  expect(report.warnings).toEqual([report.workers?.broken]);
});

it('warns once and hashes right on this thread when the worker script is a 404', async () => {
  const missing = '/no-such-dir/worker.js';
  expect((await fetch(missing)).status).toBe(404);
  const report = await loadUnderPolicy(STRICT, missing);
  expect(report.violations).toEqual([]);
  expect(report.workers).toMatchObject({ right: true, jobs: 0, broken: expect.stringMatching(GAVE_UP) });
  expect(report.workers?.broken).toContain(missing);
  expect(report.warnings).toEqual([report.workers?.broken]);
});
