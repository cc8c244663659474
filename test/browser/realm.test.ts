import { expect, it } from 'vitest';
import { load } from '../shared/setup.js';

const b3 = await load();
const ABC = '6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85';

it('hashes typed arrays and buffers made in an iframe (another realm)', () => {
  const frame = document.createElement('iframe');
  document.body.append(frame);
  try {
    const realm = frame.contentWindow as unknown as typeof globalThis;
    const bytes = new realm.Uint8Array([97, 98, 99]);
    expect(bytes instanceof Uint8Array).toBe(false);
    expect(b3.toHex(b3.hash(bytes))).toBe(ABC);
    expect(b3.toHex(b3.hash(bytes.buffer))).toBe(ABC);
    expect(b3.toHex(b3.hash(new realm.DataView(bytes.buffer)))).toBe(ABC);
  } finally {
    frame.remove();
  }
});

// What each project's browser says it is (WebKitGTK's MiniBrowser names no Safari).
const userAgents = { chromium: /Chrome\//, firefox: /Firefox\//, webkit: /AppleWebKit\/(?!.*(Chrome|Firefox)\/)/ };

it('runs in the real browser its project names', async () => {
  const { inject } = await import('vitest');
  const engine = inject('engine');
  if (engine === undefined) throw new Error('the browser project provides no engine');
  expect(navigator.userAgent).toMatch(userAgents[engine]);
  expect(typeof document).toBe('object');
});

it('is cross-origin isolated exactly in the simd project', async () => {
  const { inject } = await import('vitest');
  expect(globalThis.crossOriginIsolated).toBe(inject('flavour') === 'simd');
  // WebKitGTK 2.50 never exposes the SharedArrayBuffer constructor, isolated
  // or not (shared wasm memories work): the package checks for it.
  const sharedArrayBuffer = inject('engine') !== 'webkit' && inject('flavour') === 'simd';
  expect(typeof SharedArrayBuffer !== 'undefined').toBe(sharedArrayBuffer);
});
