// Functions that take several byte inputs (hashSeq, hashMany's array form,
// the subtree merges, httpRangeBytes) against callers whose getters run
// code between the reads: each input is read once, checked and copied (or
// hashed) before the next one's getter, trap or option can run, so nothing
// a later getter does to an earlier input's buffer (shrink, regrow, detach,
// rewrite) reaches the result. An input that is already detached, short or
// of the wrong type when it is read is an error naming it, and nothing is
// written to a caller's buffer.
import {
  hashMany,
  hashSeq,
  httpRangeBytes,
  parseHashSeq,
  mergeSubtrees,
  mergeSubtreesRoot,
  subtreeChainingValue,
  type VerifiedPiece,
} from 'blake3-kit/bao';
import { describe, expect, it } from 'vitest';
import { KEY, loadBao, pattern, random, seed, thrownBy } from './setup.js';

const b3 = await loadBao();
const { hash, toHex } = b3;
const rng = random(seed);

/** Engines with resizable ArrayBuffers (Node 20, Chromium, Firefox 128 ESR, WebKit). */
const resizable = typeof (ArrayBuffer.prototype as { resize?: unknown }).resize === 'function';

/** A length-tracking view of a resizable buffer holding `bytes`, which may grow to twice their length. */
function tracking(bytes: Uint8Array): { view: Uint8Array; buffer: ArrayBuffer } {
  const buffer = new ArrayBuffer(bytes.length, { maxByteLength: 2 * bytes.length + 64 });
  const view = new Uint8Array(buffer);
  view.set(bytes);
  return { view, buffer };
}

/** Every way this engine detaches an ArrayBuffer: transferring it by
 * structuredClone (everywhere), and ArrayBuffer.prototype.transfer() where
 * it exists (not in Node 20). */
const detachers: [string, (buffer: ArrayBufferLike) => void][] = [
  ['structuredClone', (buffer) => void structuredClone(buffer, { transfer: [buffer as ArrayBuffer] })],
];
if (typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === 'function') {
  detachers.push(['transfer()', (buffer) => void (buffer as ArrayBuffer & { transfer(): ArrayBuffer }).transfer()]);
}

/** `list` with element `index` replaced by a getter that runs `effect`, then answers `value`; how often it ran. */
function getterAt<T>(list: T[], index: number, effect: () => void, value: T): { list: T[]; reads: () => number } {
  let reads = 0;
  Object.defineProperty(list, index, {
    get() {
      reads++;
      effect();
      return value;
    },
    enumerable: true,
  });
  return { list, reads: () => reads };
}

/** A Uint8Array with an own `length` property that says `claimed`. */
function lyingLength(bytes: Uint8Array, claimed: number): Uint8Array {
  Object.defineProperty(bytes, 'length', { value: claimed });
  return bytes;
}

/** A Uint8Array subclass whose own getters and methods, if asked, run `effect` and lie. */
function hostileSubclass(bytes: Uint8Array, effect: () => void): { view: Uint8Array; asked: () => number } {
  let asked = 0;
  const lie = () => {
    asked++;
    effect();
  };
  class Hostile extends Uint8Array {
    override get length() {
      lie();
      return 1;
    }
    override get byteLength() {
      lie();
      return 1;
    }
    override get byteOffset() {
      lie();
      return 1;
    }
    override get buffer() {
      lie();
      return new ArrayBuffer(1);
    }
    override subarray(): Uint8Array<ArrayBuffer> {
      lie();
      return new Uint8Array(1);
    }
    override slice(): Uint8Array<ArrayBuffer> {
      lie();
      return new Uint8Array(1);
    }
  }
  const view = new Hostile(bytes.length);
  Uint8Array.prototype.set.call(view, bytes);
  return { view, asked: () => asked };
}

function errorMatching(run: () => unknown, type: ErrorConstructor, message: RegExp): void {
  const error = thrownBy(run);
  expect(error, `${run}`).toBeInstanceOf(type);
  expect((error as Error).message).toMatch(message);
}

describe(`hashSeq (seed ${seed})`, () => {
  const a = hash(rng.bytes(100));
  const b = hash(rng.bytes(100));
  const both = toHex(a) + toHex(b);

  it.runIf(resizable)('lists hashes[0] as read when the getter of hashes[1] shrinks it (length-tracking) to 16 bytes', () => {
    const { view, buffer } = tracking(a);
    const { list } = getterAt([view], 1, () => buffer.resize(16), b);
    expect(toHex(hashSeq(list))).toBe(both);
    expect(view.length).toBe(16);
  });

  it.each(detachers)('lists hashes[0] as read when the getter of hashes[1] detaches it (%s)', (_, detach) => {
    const view = a.slice();
    const { list } = getterAt([view], 1, () => detach(view.buffer), b);
    expect(toHex(hashSeq(list))).toBe(both);
    expect(view.length).toBe(0);
  });

  it("checks each hash's real length: an own `length` that lies is never asked", () => {
    // 16 bytes that say 32 (the sequence got 16 bytes and 16 zeros), 48 that say 32.
    errorMatching(() => hashSeq([lyingLength(a.slice(0, 16), 32), b]), RangeError, /^blake3-kit: hashes\[0\] must be 32 bytes; got 16$/);
    errorMatching(() => hashSeq([a, lyingLength(new Uint8Array(48), 32)]), RangeError, /^blake3-kit: hashes\[1\] must be 32 bytes; got 48$/);
    // A 32-byte hash whose own `length` getter would shrink its buffer to 16.
    if (resizable) {
      const { view, buffer } = tracking(a);
      let asked = 0;
      Object.defineProperty(view, 'length', { get: () => (asked++, buffer.resize(16), 32) });
      expect(toHex(hashSeq([view, b]))).toBe(both);
      expect(asked).toBe(0);
    }
  });

  it("parseHashSeq takes the sequence's real length and bytes: its own `length` and `slice` are never asked", () => {
    const seq = hashSeq([a, b]);
    lyingLength(seq, 96);
    Object.defineProperty(seq, 'slice', { value: () => new Uint8Array(32) });
    expect(parseHashSeq(seq).map(toHex)).toEqual([toHex(a), toHex(b)]);
  });

  it("reads an array Proxy's length and each element once, copying each hash before the next is asked", () => {
    const first = a.slice();
    const reads = new Map<PropertyKey, number>();
    const list = new Proxy([first, b, b], {
      get(target, key, receiver) {
        reads.set(key, (reads.get(key) ?? 0) + 1);
        if (key === 'length') return reads.get(key) === 1 ? 2 : 3;
        if (key === '1') first.fill(0);
        return Reflect.get(target, key, receiver);
      },
    });
    expect(toHex(hashSeq(list))).toBe(both);
    expect([reads.get('length'), reads.get('0'), reads.get('1'), reads.get('2')]).toEqual([1, 1, 1, undefined]);
  });

  it('reads a hostile Uint8Array subclass through the built-in getters only', () => {
    const first = a.slice();
    const { view, asked } = hostileSubclass(b, () => first.fill(0));
    expect(toHex(hashSeq([first, view]))).toBe(both);
    expect(asked()).toBe(0);
  });

  it('names an element that is detached, short or not bytes when it is read', () => {
    for (const [, detach] of detachers) {
      const later = b.slice();
      // hashes[0]'s getter detaches hashes[1] before it is read.
      const { list } = getterAt([a, later], 0, () => detach(later.buffer), a);
      errorMatching(() => hashSeq(list), TypeError, /^blake3-kit: hashes\[1\] is a view of a detached ArrayBuffer/);
    }
    if (resizable) {
      const { view, buffer } = tracking(b);
      const { list } = getterAt([a, view], 0, () => buffer.resize(16), a);
      errorMatching(() => hashSeq(list), RangeError, /^blake3-kit: hashes\[1\] must be 32 bytes; got 16$/);
    }
    errorMatching(() => hashSeq([a, 'b'.repeat(32) as never]), TypeError, /^blake3-kit: hashes\[1\] must be a Uint8Array/);
    errorMatching(() => hashSeq([a, Array.from(b) as never]), TypeError, /^blake3-kit: hashes\[1\] must be a Uint8Array/);
  });
});

describe(`hashMany's array form (seed ${seed})`, () => {
  // Small inputs go through the batch; from 16 KiB (wasm) or 64 KiB (native) they are hashed as soon as they are read.
  const SIZES = [64, 1000, 20_000, 70_000];

  function expectDigests(digests: Uint8Array, inputs: Uint8Array[], options: { key?: Uint8Array } = {}) {
    expect(digests.length).toBe(32 * inputs.length);
    inputs.forEach((input, i) => {
      expect(toHex(digests.subarray(32 * i, 32 * (i + 1))), `input ${i} (${input.length} bytes)`).toBe(toHex(hash(input, options)));
    });
  }

  it.each(SIZES)('hashes a %i-byte input as read, whatever a later getter does to it', (size) => {
    const original = rng.bytes(size);
    const last = rng.bytes(100);
    // Rewritten in place.
    const rewritten = original.slice();
    expectDigests(hashMany(getterAt([rewritten], 1, () => rewritten.fill(0), last).list), [original, last]);
    // Detached.
    for (const [, detach] of detachers) {
      const detached = original.slice();
      expectDigests(hashMany(getterAt([detached], 1, () => detach(detached.buffer), last).list), [original, last]);
    }
    if (resizable) {
      // Shrunk to 16 bytes, and shrunk then grown back (zeros where its bytes were, same length).
      for (const effect of [(buffer: ArrayBuffer) => buffer.resize(16), (buffer: ArrayBuffer) => (buffer.resize(16), buffer.resize(size))]) {
        const { view, buffer } = tracking(original);
        expectDigests(hashMany(getterAt([view], 1, () => effect(buffer), last).list), [original, last]);
      }
    }
  });

  it("reads an array Proxy's length and each element once", () => {
    const inputs = [rng.bytes(10), rng.bytes(2000), rng.bytes(70_000), rng.bytes(3)];
    const first = inputs[0]!.slice();
    const reads = new Map<PropertyKey, number>();
    const proxy = new Proxy(inputs.slice(), {
      get(target, key, receiver) {
        reads.set(key, (reads.get(key) ?? 0) + 1);
        if (key === 'length') return reads.get(key) === 1 ? 4 : 2;
        if (key === '1') inputs[0]!.fill(1);
        return Reflect.get(target, key, receiver);
      },
    });
    expectDigests(hashMany(proxy), [first, ...inputs.slice(1)]);
    expect([reads.get('length'), reads.get('0'), reads.get('1'), reads.get('2'), reads.get('3')]).toEqual([1, 1, 1, 1, 1]);
  });

  it("reads each input's real length: an own `length` is never asked, a subclass's getters never run", () => {
    const short = rng.bytes(16);
    const long = rng.bytes(48);
    expectDigests(hashMany([lyingLength(short.slice(), 32), lyingLength(long.slice(), 32)]), [short, long]);
    const first = rng.bytes(64);
    const copy = first.slice();
    const second = rng.bytes(100);
    const { view, asked } = hostileSubclass(second, () => first.fill(0));
    expectDigests(hashMany([first, view]), [copy, second]);
    expect(asked()).toBe(0);
  });

  it('copies the key before any input is read: a getter that rewrites, shrinks or detaches it changes nothing', () => {
    const inputs = [rng.bytes(64), rng.bytes(100), rng.bytes(70_000), rng.bytes(64)];
    const effects: ((key: Uint8Array, buffer: ArrayBuffer) => void)[] = [
      (key) => key.fill(0),
      ...detachers.map(
        ([, detach]) =>
          (key: Uint8Array) =>
            detach(key.buffer),
      ),
    ];
    if (resizable) effects.push((_, buffer) => buffer.resize(16));
    for (const effect of effects) {
      const { view: key, buffer } = resizable ? tracking(KEY) : { view: KEY.slice(), buffer: new ArrayBuffer(0) };
      const list = getterAt(inputs.slice(), 1, () => effect(key, buffer), inputs[1]!).list;
      expectDigests(hashMany(list, { key }), inputs, { key: KEY });
    }
  });

  it('keeps its batch and key when an input getter calls hashMany again', () => {
    const outer = [rng.bytes(64), rng.bytes(64), rng.bytes(5000), rng.bytes(64)];
    const inner = [rng.bytes(64), rng.bytes(200), rng.bytes(64)];
    const otherKey = rng.bytes(32);
    let innerDigests: Uint8Array | undefined;
    const list = getterAt(outer.slice(), 2, () => (innerDigests = hashMany(inner, { key: otherKey })), outer[2]!).list;
    expectDigests(hashMany(list, { key: KEY }), outer, { key: KEY });
    expectDigests(innerDigests!, inner, { key: otherKey });
  });

  it('refuses `into` detached or shrunk by an input getter after it was checked, writing nothing', () => {
    const inputs = [rng.bytes(64), rng.bytes(64), rng.bytes(64)];
    for (const [, detach] of detachers) {
      const into = new Uint8Array(96);
      const list = getterAt(inputs.slice(), 1, () => detach(into.buffer), inputs[1]!).list;
      errorMatching(() => hashMany(list, { into }), TypeError, /^blake3-kit: options\.into was detached or shrunk/);
    }
    if (resizable) {
      const { view: into, buffer } = tracking(new Uint8Array(96).fill(9));
      const list = getterAt(inputs.slice(), 1, () => buffer.resize(80), inputs[1]!).list;
      errorMatching(() => hashMany(list, { into }), TypeError, /^blake3-kit: options\.into was detached or shrunk/);
      expect(into.every((byte) => byte === 9)).toBe(true);
    }
  });

  it('names an input that is detached or not bytes when read, with nothing written to `into`', () => {
    // Inputs before the bad one are hashed already (one of 70,000 bytes at once), into memory of our own.
    for (const [, detach] of detachers) {
      const into = new Uint8Array(96).fill(9);
      const later = rng.bytes(64);
      const list = getterAt([rng.bytes(70_000), rng.bytes(10), later], 1, () => detach(later.buffer), rng.bytes(10)).list;
      errorMatching(() => hashMany(list, { into }), TypeError, /^blake3-kit: inputs\[2\] is a view of a detached ArrayBuffer/);
      expect(into.every((byte) => byte === 9)).toBe(true);
    }
    const into = new Uint8Array(96).fill(9);
    errorMatching(
      () => hashMany([rng.bytes(70_000), rng.bytes(10), 7 as never], { into }),
      TypeError,
      /^blake3-kit: inputs\[2\] must be a Uint8Array/,
    );
    expect(into.every((byte) => byte === 9)).toBe(true);
  });
});

describe(`subtree merges (seed ${seed})`, () => {
  const left = hash(rng.bytes(50));
  const right = hash(rng.bytes(50));
  const merged = toHex(mergeSubtrees(left, right));

  it("checks each chaining value's real length: an own `length` is never asked", () => {
    errorMatching(
      () => mergeSubtrees(lyingLength(left.slice(0, 16), 32), right),
      RangeError,
      /^blake3-kit: left must be a 32-byte chaining value; got 16 bytes$/,
    );
    errorMatching(
      () => mergeSubtreesRoot(left, lyingLength(new Uint8Array(48), 32)),
      RangeError,
      /^blake3-kit: right must be a 32-byte chaining value; got 48 bytes$/,
    );
    // right's own `length` getter would rewrite left between its check and the merge.
    const l = left.slice();
    const r = right.slice();
    let asked = 0;
    Object.defineProperty(r, 'length', { get: () => (asked++, l.fill(0), 32) });
    expect(toHex(mergeSubtrees(l, r))).toBe(merged);
    expect(asked).toBe(0);
  });

  it('reads every option before checking the key: a later getter cannot shorten or detach it', () => {
    const root = toHex(mergeSubtreesRoot(left, right, { key: KEY, length: 40 }));
    const effects: [RegExp, (key: Uint8Array, buffer: ArrayBuffer) => void][] = detachers.map(([, detach]) => [
      /^blake3-kit: options\.key is a view of a detached ArrayBuffer/,
      (key: Uint8Array) => detach(key.buffer),
    ]);
    if (resizable) effects.push([/^blake3-kit: options\.key must be 32 bytes; got 16$/, (_, buffer) => buffer.resize(16)]);
    for (const [message, effect] of effects) {
      const fresh = () => (resizable ? tracking(KEY) : { view: KEY.slice(), buffer: new ArrayBuffer(0) });
      // options.length's getter, in mergeSubtreesRoot.
      const a = fresh();
      const rootOptions = {
        key: a.view,
        get length() {
          effect(a.view, a.buffer);
          return 40;
        },
      };
      errorMatching(() => mergeSubtreesRoot(left, right, rootOptions), message.source.includes('detached') ? TypeError : RangeError, message);
      // options.offset's getter, in subtreeChainingValue.
      const b = fresh();
      const subtreeOptions = {
        key: b.view,
        get offset() {
          effect(b.view, b.buffer);
          return 1024;
        },
      };
      errorMatching(() => subtreeChainingValue(pattern(1024), subtreeOptions), message.source.includes('detached') ? TypeError : RangeError, message);
    }
    // Untouched, the same options give the keyed root.
    expect(toHex(mergeSubtreesRoot(left, right, { key: KEY.slice(), length: 40 }))).toBe(root);
  });

  it("checks a subtree's real length against its offset: an own `length` is never asked", () => {
    errorMatching(
      () => subtreeChainingValue(lyingLength(pattern(2048), 1024), { offset: 1024 }),
      RangeError,
      /^blake3-kit: the subtree at offset 1024 holds at most 1024 bytes; input has 2048$/,
    );
  });
});

describe(`httpRangeBytes (seed ${seed})`, () => {
  const content = rng.bytes(3000);
  const piecesOf = (): VerifiedPiece[] => [
    { offset: 0, bytes: content.slice(0, 1024) },
    { offset: 1024, bytes: content.slice(1024, 2048) },
    { offset: 2048, bytes: content.slice(2048) },
  ];
  const range = { start: 1000, end: 2100 };
  const wanted = toHex(content.subarray(1000, 2101));

  it('reads each piece once, copying its part of the range before the next piece is read', () => {
    const effects: ((piece: Uint8Array) => void)[] = [
      (piece) => piece.fill(0),
      ...detachers.map(
        ([, detach]) =>
          (piece: Uint8Array) =>
            detach(piece.buffer),
      ),
    ];
    for (const effect of effects) {
      const pieces = piecesOf();
      const { list, reads } = getterAt(pieces, 2, () => effect(pieces[1]!.bytes), pieces[2]!);
      expect(toHex(httpRangeBytes(list, range))).toBe(wanted);
      expect(reads()).toBe(1);
    }
    if (resizable) {
      const pieces = piecesOf();
      const { view, buffer } = tracking(pieces[1]!.bytes);
      pieces[1] = { offset: 1024, bytes: view };
      const { list, reads } = getterAt(pieces, 2, () => buffer.resize(16), pieces[2]!);
      expect(toHex(httpRangeBytes(list, range))).toBe(wanted);
      expect(reads()).toBe(1);
    }
    // A piece's fields, read once each.
    let offsetReads = 0;
    const pieces = piecesOf();
    const bytes = pieces[0]!.bytes;
    pieces[0] = {
      get offset() {
        offsetReads++;
        return 0;
      },
      bytes,
    };
    expect(toHex(httpRangeBytes(pieces, { start: 0 }))).toBe(toHex(content));
    expect(offsetReads).toBe(1);
  });

  it("takes a piece's real length: an own `length` is never asked", () => {
    const pieces = [{ offset: 0, bytes: lyingLength(content.slice(0, 1024), 2048) }];
    // Past the pieces' end the range stops where they do.
    expect(toHex(httpRangeBytes(pieces, { start: 1020, end: 1030 }))).toBe(toHex(content.subarray(1020, 1024)));
  });

  it('names a piece that is not { offset, bytes } or whose bytes are detached', () => {
    const detached = content.slice(0, 1024);
    structuredClone(detached.buffer, { transfer: [detached.buffer] });
    const cases: [unknown, ErrorConstructor, RegExp][] = [
      [[{ offset: 0, bytes: content }, 5], TypeError, /^blake3-kit: pieces\[1\] must be an object/],
      [[{ offset: -1, bytes: content }], RangeError, /^blake3-kit: pieces\[0\]\.offset must be a non-negative safe integer/],
      [[{ offset: '0', bytes: content }], RangeError, /^blake3-kit: pieces\[0\]\.offset must be a non-negative safe integer/],
      [[{ offset: 0, bytes: 'abc' }], TypeError, /^blake3-kit: pieces\[0\]\.bytes must be a Uint8Array/],
      [[{ offset: 0, bytes: detached }], TypeError, /^blake3-kit: pieces\[0\]\.bytes is a view of a detached ArrayBuffer/],
      [{ length: 1, 0: { offset: 0, bytes: content } }, TypeError, /^blake3-kit: pieces must be an array/],
    ];
    for (const [pieces, type, message] of cases) errorMatching(() => httpRangeBytes(pieces as VerifiedPiece[], { start: 0, end: 10 }), type, message);
  });
});
