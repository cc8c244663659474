// Loaded inside a CSP-restricted iframe by csp.test.ts; reports back by
// postMessage. It imports the shipped bundle, not the sources, so the file
// users get is the one checked in a real browser.
import { init } from '../../dist/browser.js';

const violations: string[] = [];
document.addEventListener('securitypolicyviolation', (event) => {
  violations.push(`${event.violatedDirective} ${event.blockedURI}`);
});

// Violation events arrive asynchronously: give them time before reporting.
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

init().then(
  async (b3) => {
    const digest = b3.toHex(b3.hash('abc'));
    await settle();
    parent.postMessage({ backend: b3.backend, digest, violations }, '*');
  },
  async (error) => {
    await settle();
    parent.postMessage({ error: String(error), violations }, '*');
  },
);
