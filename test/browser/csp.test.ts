// The browser entry needs no 'unsafe-eval': it fetches a .wasm file and
// compiles it, which CSP governs with 'wasm-unsafe-eval' alone.
import { expect, it } from 'vitest';

type Report = { backend?: string; digest?: string; error?: string; violations: string[] };

function loadUnderPolicy(policy: string): Promise<Report> {
  const frame = document.createElement('iframe');
  const page = new URL('./csp-page.ts', import.meta.url).href;
  frame.srcdoc = `<!doctype html><meta http-equiv="Content-Security-Policy" content="${policy}">
    <script type="module" src="${page}"></script>`;
  return new Promise<Report>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the CSP page never reported')), 20_000);
    addEventListener('message', function listener(event) {
      if (event.source !== frame.contentWindow) return;
      clearTimeout(timer);
      removeEventListener('message', listener);
      resolve(event.data);
    });
    document.body.append(frame);
  }).finally(() => frame.remove());
}

it("hashes under script-src 'self' 'wasm-unsafe-eval' without any violation", async () => {
  const report = await loadUnderPolicy("default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'");
  expect(report).toEqual({
    backend: 'wasm-simd',
    digest: '6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85',
    violations: [],
  });
});

it("is stopped by a policy without 'wasm-unsafe-eval' (the policy is really applied)", async () => {
  const report = await loadUnderPolicy("default-src 'self'; script-src 'self'; connect-src 'self'");
  expect(report.error).toMatch(/CompileError.*violates the following Content Security policy/);
  expect(report.violations.join()).toMatch(/script-src/);
});
