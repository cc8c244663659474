// Every project's setup file: toEqual on two byte arrays of one kind compares
// them in a plain loop. vitest's generic deep equality took 5.2 s for two
// equal 1 MiB Uint8Arrays (Node 20, vitest 4.1.11), and the Bao suites compare
// hundreds of MiB that way (bao.test.ts: ~10 s per chunk size in node-simd,
// 147 s in webkit-simd). A Buffer against a Uint8Array keeps vitest's own
// rules, a failure its diff. (Named properties on a byte array are not
// compared: listing them means listing every index.)
import { expect } from 'vitest';

function sameBytes(a: unknown, b: unknown): boolean | undefined {
  if (!(a instanceof Uint8Array) || !(b instanceof Uint8Array) || a.constructor !== b.constructor) return undefined;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

expect.addEqualityTesters([sameBytes]);
