// The part of blake3-wasm's hash object that Node and browsers share, over
// our Hasher: update, digest, reader and dispose. digest() and reader()
// leave the hasher usable, as 3.x does; `{ dispose: true }` frees it
// after, and 2.x's default of disposing is not kept (docs/migrating.md): a
// hasher left undisposed is freed when it is garbage-collected.

import { createHasher, type Hasher } from '../hasher.js';
import { checkOptions, outputLength } from '../input.js';
import { contextString, hashable, inputToArray, type HashInput, type IBaseHashOptions } from './input.js';
import type { IHashReader } from './reader.js';
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

export type HasherMode = { key?: HashInput; context?: HashInput } | undefined;

/** Our Hasher in the mode asked for, the arguments converted as theirs. */
export function newHasher(mode: HasherMode): Hasher {
  ensureReady();
  if (mode === undefined) return createHasher();
  if (mode.key !== undefined) return createHasher({ key: inputToArray(mode.key, 'key') });
  return createHasher({ context: contextString(mode.context!) });
}

function disposed(method: string): never {
  throw new Error(`blake3-kit/compat: cannot call ${method} after dispose()`);
}

/** Holds the Hasher; the platform classes delegate to it. */
export class HasherCore<T extends Uint8Array> {
  #hasher: Hasher | undefined;

  constructor(
    hasher: Hasher,
    readonly alloc: (length: number) => T,
  ) {
    this.#hasher = hasher;
  }

  update(data: HashInput | Uint8Array): void {
    const hasher = this.#hasher ?? disposed('update()');
    hasher.update(hashable(data, 'data'));
  }

  digest(options: IHasherDigestOptions | undefined): T {
    const hasher = this.#hasher ?? disposed('digest()');
    checkOptions(options, 'options');
    const out = hasher.digestInto(this.alloc(outputLength(options?.length, 'options.length')));
    if (options?.dispose === true) this.dispose();
    return out;
  }

  /** The reader over the input so far, for the platform's reader class. */
  xof(options: { dispose?: boolean } | undefined) {
    const hasher = this.#hasher ?? disposed('reader()');
    checkOptions(options, 'options');
    const reader = hasher.xof();
    if (options?.dispose === true) this.dispose();
    return reader;
  }

  dispose(): void {
    this.#hasher?.dispose();
    this.#hasher = undefined;
  }
}

/** digest(encoding?, options?) as theirs: an object first is the options. */
export function digestArguments<E>(
  encoding: IHasherDigestOptions | E | undefined,
  options: IHasherDigestOptions | undefined,
): [E | undefined, IHasherDigestOptions | undefined] {
  return encoding !== null && typeof encoding === 'object' ? [undefined, encoding as IHasherDigestOptions] : [encoding as E | undefined, options];
}
