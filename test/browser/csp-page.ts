// Loaded inside a CSP-restricted iframe by csp.test.ts; reports back by
// postMessage. It imports the shipped bundle, not the sources, so the file
// users get is the one checked in a real browser. A
// <meta name="worker-url"> makes the workers run that script instead of the
// package's own.
import { configureParallel, hash, hashParallel, init, parallelStatus, toHex } from '../../dist/browser.js';

const violations: string[] = [];
document.addEventListener('securitypolicyviolation', (event) => {
  violations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
const warnings: string[] = [];
const warn = console.warn;
console.warn = (...args: unknown[]) => {
  warnings.push(args.join(' '));
  warn(...args);
};

// Violation events arrive asynchronously: give them time before reporting.
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

/** Three parallel hashes on two workers: whether every digest is right, and
 * what the pool says it did. */
async function parallel() {
  const workerUrl = document.querySelector<HTMLMetaElement>('meta[name=worker-url]')?.content;
  configureParallel({ workers: 2, threshold: 0, helpWhileStarting: false, ...(workerUrl ? { workerUrl: new URL(workerUrl, import.meta.url) } : {}) });
  const inputs = [3, 4, 5].map((mib) => new Uint8Array(mib << 20).map((_, i) => i * 7));
  const digests = await Promise.all(inputs.map((input) => hashParallel(input)));
  const right = digests.every((digest, i) => toHex(digest) === toHex(hash(inputs[i]!)));
  const { started, jobs, broken } = parallelStatus();
  return { right, started, jobs, broken };
}

init().then(
  async (b3) => {
    const digest = b3.toHex(b3.hash('abc'));
    const workers = await parallel();
    await settle();
    parent.postMessage({ backend: b3.backend, digest, workers, warnings, violations }, '*');
  },
  async (error) => {
    await settle();
    parent.postMessage({ error: String(error), violations }, '*');
  },
);
