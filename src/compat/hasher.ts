// The part of blake3-wasm's hash object that Node and browsers share:
// BaseHash, 2.x's exported base class, with update, digest, reader and
// dispose over any IInternalHash. The browser's hasher extends it, Node's
// holds one (as theirs do), and users may subclass it with their own
// implementation; ours is an IInternalHash over our Hasher. digest() and
// reader() leave the hasher usable, as 3.x does; `{ dispose: true }` frees
// it after, and 2.x's default of disposing is not kept (docs/migrating.md):
// a hasher left undisposed is freed when it is garbage-collected.

import { createHasher, type Hasher } from '../hasher.js';
import { checkOptions, outputLength } from '../input.js';
import { contextString, inputToArray, type HashInput, type IBaseHashOptions } from './input.js';
import { ownReader, type IHashReader, type IInternalReader } from './reader.js';
import { ensureReady } from './ready.js';
import type { IDisposable } from './using.js';

/** digest() options: the output length, and whether to dispose after. */
export interface IHasherDigestOptions extends IBaseHashOptions {
  dispose?: boolean;
}

/** blake3-wasm's hash object, Node's and the browser's alike. */
export interface IHasher<T> extends IDisposable {
  update(data: HashInput): this;
  digest(options?: IHasherDigestOptions): T;
  reader(options?: { dispose?: boolean }): IHashReader<T>;
}

/** What a BaseHash hashes with (2.x's name and shape): update() takes
 * bytes, digest() fills `into` with output from position 0, reader() is
 * a reader over the input so far, free() releases it. */
export interface IInternalHash<Reader> {
  free(): void;
  reader(): Reader;
  update(bytes: Uint8Array): void;
  digest(into: Uint8Array): void;
}

export type HasherMode = { key?: HashInput; context?: HashInput } | undefined;

/** Our Hasher in the mode asked for, the arguments converted as theirs. */
export function newHasher(mode: HasherMode): Hasher {
  ensureReady();
  if (mode === undefined) return createHasher();
  if (mode.key !== undefined) return createHasher({ key: inputToArray(mode.key, 'key') });
  return createHasher({ context: contextString(mode.context!) });
}

/** Our Hasher as an IInternalHash. It also takes strings, which our
 * Hasher encodes straight into wasm memory; BaseHash gives them only to
 * this class, and bytes to every other. */
class OwnHash implements IInternalHash<IInternalReader> {
  constructor(readonly hasher: Hasher) {}

  update(data: Uint8Array | string): void {
    this.hasher.update(data);
  }

  digest(into: Uint8Array): void {
    this.hasher.digestInto(into);
  }

  reader(): IInternalReader {
    return ownReader(this.hasher.xof());
  }

  free(): void {
    this.hasher.dispose();
  }
}

export const ownHash = (hasher: Hasher): IInternalHash<IInternalReader> => new OwnHash(hasher);

function disposed(method: string): never {
  throw new Error(`blake3-kit/compat: cannot call ${method} after dispose()`);
}

/** 2.x's base hasher: `alloc` makes the output type (Buffer, Hash, ...),
 * `getReader` the reader over `implementation`'s. */
export class BaseHash<Binary extends Uint8Array, InternalReader, Reader extends IHashReader<Binary>> implements IHasher<Binary> {
  #hash: IInternalHash<InternalReader> | undefined;
  readonly #alloc: (length: number) => Binary;
  readonly #getReader: (internal: InternalReader) => Reader;

  constructor(implementation: IInternalHash<InternalReader>, alloc: (length: number) => Binary, getReader: (internal: InternalReader) => Reader) {
    this.#hash = implementation;
    this.#alloc = alloc;
    this.#getReader = getReader;
  }

  /** Adds input: bytes, or a string as UTF-8. */
  update(data: HashInput): this {
    const hash = this.#hash ?? disposed('update()');
    if (typeof data === 'string' && hash instanceof OwnHash) hash.update(data);
    else hash.update(inputToArray(data, 'data'));
    return this;
  }

  /** The hash of the input so far: 32 bytes, or `options.length`. */
  digest(options?: IHasherDigestOptions): Binary {
    const hash = this.#hash ?? disposed('digest()');
    checkOptions(options, 'options');
    const out = this.#alloc(outputLength(options?.length, 'options.length'));
    hash.digest(out);
    if (options?.dispose === true) this.dispose();
    return out;
  }

  /** A reader of extended output over the input so far. */
  reader(options?: { dispose?: boolean }): Reader {
    const hash = this.#hash ?? disposed('reader()');
    checkOptions(options, 'options');
    const reader = this.#getReader(hash.reader());
    if (options?.dispose === true) this.dispose();
    return reader;
  }

  /** Frees the implementation; later calls throw. Idempotent. */
  dispose(): void {
    this.#hash?.free();
    this.#hash = undefined;
  }
}

/** digest(encoding?, options?) as theirs: an object first is the options. */
export function digestArguments<E>(
  encoding: IHasherDigestOptions | E | undefined,
  options: IHasherDigestOptions | undefined,
): [E | undefined, IHasherDigestOptions | undefined] {
  return encoding !== null && typeof encoding === 'object' ? [undefined, encoding as IHasherDigestOptions] : [encoding as E | undefined, options];
}
