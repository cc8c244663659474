// What an adversarial caller can do with plain JS: keys where options go,
// views whose methods and getters lie or throw, detached buffers, streams
// that never answer. Every case gets the digest of the real bytes or a clear
// error, and nothing hangs.
import { configureParallel, hashParallel, hashStream } from 'blake3-kit';
import { hashMany } from 'blake3-kit/bao';
import { describe, expect, it } from 'vitest';
import { KEY, loadBao, pattern, thrownBy } from './setup.js';

const b3 = await loadBao();
const { hash, keyedHash, deriveKey, createHasher, toHex } = b3;

function typeErrorNaming(run: () => unknown, name: RegExp) {
  const caught = thrownBy(run);
  expect(caught).toBeInstanceOf(TypeError);
  expect((caught as Error).message).toMatch(name);
}

async function rejectsNaming(run: () => Promise<unknown>, type: abstract new (...args: never[]) => unknown, name: RegExp) {
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  expect((error as Error).message).toMatch(name);
}

describe('options must be plain objects', () => {
  const notOptions: [string, unknown][] = [
    ['a 32-byte key', KEY],
    ['an ArrayBuffer', KEY.slice().buffer],
    ['an array', [1, 2]],
    ['a function', () => 0],
    ['a Date', new Date()],
    ['a Map', new Map()],
  ];

  it.each(notOptions)('%s where options go is a TypeError, never an unkeyed hash', (_, value) => {
    typeErrorNaming(() => hash('message', value as never), /options/);
    typeErrorNaming(() => createHasher(value as never), /options/);
    typeErrorNaming(() => new b3.Hasher(value as never), /options/);
    typeErrorNaming(() => keyedHash(KEY, 'message', value as never), /options/);
    typeErrorNaming(() => deriveKey('context', 'material', value as never), /options/);
    typeErrorNaming(
      () =>
        createHasher()
          .update('x')
          .digest(value as never),
      /options/,
    );
  });

  it('the message says where a key goes', () => {
    typeErrorNaming(() => hash('message', KEY as never), /\{ key \}/);
  });

  it('is a rejection from the asynchronous APIs', async () => {
    await rejectsNaming(() => hashParallel('message', KEY as never), TypeError, /options/);
    await rejectsNaming(() => hashStream(new Blob([new Uint8Array(3)]).stream(), KEY as never), TypeError, /options/);
  });

  it('null-prototype objects and objects from other realms are options', () => {
    const bare = Object.assign(Object.create(null), { length: 8 });
    expect(hash('abc', bare)).toEqual(hash('abc', { length: 8 }));
    const foreign = Object.create(Object.getPrototypeOf(Object.getPrototypeOf({})));
    foreign.key = KEY;
    expect(hash('abc', foreign)).toEqual(keyedHash(KEY, 'abc'));
  });
});

describe('views are read without calling their own methods or getters', () => {
  class Poisoned extends Uint8Array {
    static get [Symbol.species](): never {
      throw new Error('species was called');
    }
    override subarray(): never {
      throw new Error('subarray was called');
    }
    override get length(): number {
      return 1;
    }
  }
  for (const length of [0, 5, 1024, 64 * 1024 + 7, 300 * 1024]) {
    it(`a hostile Uint8Array subclass of ${length} bytes hashes as its bytes`, () => {
      const bytes = pattern(length);
      const hostile = new Poisoned(length);
      hostile.set(bytes);
      const want = toHex(hash(bytes));
      expect(toHex(hash(hostile))).toBe(want);
      const hasher = createHasher();
      hasher.update(hostile).update(hostile);
      expect(toHex(hasher.digest())).toBe(toHex(createHasher().update(bytes).update(bytes).digest()));
      expect(toHex(keyedHash(KEY, hostile))).toBe(toHex(keyedHash(KEY, bytes)));
      // As output, too: all of it is filled.
      const out = new Poisoned(40);
      createHasher().update(bytes).digestInto(out);
      expect(toHex(out)).toBe(toHex(hash(bytes, { length: 40 })));
    });
  }

  /** A plain Uint8Array (the prototype every fast path looks for) holding
   * `bytes`, with own `length` and `subarray` properties that lie. */
  function withOwnLies(bytes: Uint8Array, getter: boolean): Uint8Array {
    const liar = bytes.slice();
    let reads = 0;
    Object.defineProperty(liar, 'length', getter ? { get: () => (reads++ === 0 ? bytes.length : 1) } : { value: 1 });
    Object.defineProperty(liar, 'subarray', { value: () => new Uint8Array(1) });
    Object.defineProperty(liar, 'constructor', { value: Poisoned });
    return liar;
  }

  for (const length of [5, 64, 1024, 64 * 1024 + 7, 300 * 1024]) {
    for (const getter of [false, true]) {
      it(`a plain Uint8Array of ${length} bytes with an own ${getter ? 'getter' : 'value'} for length, and own subarray, hashes as its bytes`, () => {
        const bytes = pattern(length);
        const want = toHex(hash(bytes));
        expect(toHex(hash(withOwnLies(bytes, getter)))).toBe(want);
        expect(toHex(keyedHash(KEY, withOwnLies(bytes, getter)))).toBe(toHex(keyedHash(KEY, bytes)));
        expect(toHex(createHasher().update(withOwnLies(bytes, getter)).digest())).toBe(want);
        const many = hashMany([withOwnLies(bytes, getter), bytes, withOwnLies(bytes, getter)]);
        expect(toHex(many)).toBe(want.repeat(3));
        const twice = new Uint8Array(2 * length);
        twice.set(bytes);
        twice.set(bytes, length);
        expect(toHex(hashMany(withOwnLies(twice, getter), { itemLength: length }))).toBe(want.repeat(2));
        // A key with a lying length is its 32 bytes, or refused.
        expect(toHex(keyedHash(withOwnLies(KEY, getter), bytes))).toBe(toHex(keyedHash(KEY, bytes)));
        expect(toHex(hashMany([bytes], { key: withOwnLies(KEY, getter) }))).toBe(toHex(keyedHash(KEY, bytes)));
      });
    }
  }

  it('an output array with an own `set` is filled by the built-in one, and never handed our memory', () => {
    // 20 KB of input: the hasher has backend state on every backend.
    const bytes = pattern(20_000);
    for (const length of [32, 64, 65, 70_000]) {
      const handed: unknown[] = [];
      const out = new Uint8Array(length);
      Object.defineProperty(out, 'set', { value: (...args: unknown[]) => handed.push(args) });
      const hasher = createHasher().update(bytes);
      hasher.digestInto(out);
      expect(toHex(out)).toBe(toHex(hash(bytes, { length })));
      out.fill(0);
      const reader = hasher.xof();
      reader.readInto(out);
      expect(toHex(out)).toBe(toHex(hash(bytes, { length })));
      expect(handed).toEqual([]);
      reader.dispose();
      hasher.dispose();
    }
  });

  it('a DataView and other typed arrays hash their bytes in memory order', () => {
    const bytes = pattern(4096 + 3);
    const wide = new Uint16Array(bytes.buffer.slice(0, 4096));
    expect(toHex(hash(new DataView(bytes.buffer, 3, 100)))).toBe(toHex(hash(bytes.subarray(3, 103))));
    expect(toHex(hash(wide))).toBe(toHex(hash(bytes.subarray(0, 4096))));
  });

  it('a view whose toStringTag lies is still read by its bytes', () => {
    const bytes = pattern(100);
    const liar = new Uint8Array(bytes);
    Object.defineProperty(liar, Symbol.toStringTag, { value: 'Nothing' });
    expect(toHex(hash(liar))).toBe(toHex(hash(bytes)));
  });
});

describe('detached buffers', () => {
  function detached(): ArrayBuffer {
    const buffer = new ArrayBuffer(64);
    structuredClone(buffer, { transfer: [buffer] });
    return buffer;
  }
  /** A view made before its buffer was transferred away. */
  function detachedView(): Uint8Array {
    const view = new Uint8Array(64);
    structuredClone(view.buffer, { transfer: [view.buffer] });
    return view;
  }

  it('are a TypeError naming the argument, not the empty input', () => {
    typeErrorNaming(() => hash(detached()), /input.*detached/);
    typeErrorNaming(() => hash(detachedView()), /input.*detached/);
    typeErrorNaming(() => createHasher().update(detachedView()), /input.*detached/);
    typeErrorNaming(() => createHasher().digestInto(detachedView()), /out.*detached/);
  });

  it('are refused even when the view has an own length that says otherwise', () => {
    const view = detachedView();
    Object.defineProperty(view, 'length', { value: 64 });
    typeErrorNaming(() => hash(view), /input.*detached/);
    typeErrorNaming(() => createHasher().update(view), /input.*detached/);
    typeErrorNaming(() => hashMany([view]), /inputs\[0\].*detached/);
  });

  it('leave the hasher as it was', () => {
    const hasher = createHasher().update('abc');
    expect(() => hasher.update(detachedView())).toThrow(TypeError);
    expect(toHex(hasher.digest())).toBe(toHex(hash('abc')));
  });
});

describe('hashStream settles when aborted, whatever the source does', () => {
  const DEADLINE = 5_000;
  // In Chromium the suite runs from src/, whose worker is not a script: use
  // the built one, so the worker path is what gets aborted.
  if (typeof window !== 'undefined') configureParallel({ workerUrl: '/dist/worker.js' });

  it('a source that never answers', async () => {
    async function* stalled() {
      yield new Uint8Array(10);
      await new Promise(() => {});
    }
    const started = Date.now();
    await rejectsNaming(() => hashStream(stalled(), { signal: AbortSignal.timeout(100) }), DOMException, /timed out|abort/i);
    expect(Date.now() - started).toBeLessThan(DEADLINE);
  });

  it('a web ReadableStream that never enqueues is cancelled', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull: () => new Promise(() => {}),
      cancel: () => {
        cancelled = true;
      },
    });
    const controller = new AbortController();
    const pending = hashStream(stream, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 50);
    await rejectsNaming(() => pending, Error, /stop/);
    expect(cancelled).toBe(true);
  });

  it.skipIf(typeof window !== 'undefined')('a Node Readable that never pushes is destroyed', async () => {
    const { Readable } = await import('node:stream');
    const stream = new Readable({ read() {} });
    stream.push(new Uint8Array(10));
    const pending = hashStream(stream, { signal: AbortSignal.timeout(100) });
    await rejectsNaming(() => pending, DOMException, /timed out|abort/i);
    expect(stream.destroyed).toBe(true);
  });

  it('a source whose next chunk is always ready still lets timers run', async () => {
    async function* endless() {
      const chunk = new Uint8Array(4096);
      for (;;) yield chunk;
    }
    const started = Date.now();
    await rejectsNaming(() => hashStream(endless(), { signal: AbortSignal.timeout(200) }), DOMException, /timed out|abort/i);
    expect(Date.now() - started).toBeLessThan(DEADLINE);
  });
});
