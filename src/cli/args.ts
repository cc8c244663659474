// Command-line options, parsed as b3sum 1.8.7 parses them with clap 4: the
// same grammar (`-l5`, `-l=5`, `--length=5`, `-cl 5`, `--`), the same order
// of checks, and the same error texts, so that a script sees no difference.
// Arguments are raw bytes (see argv.ts): file names need not be UTF-8, but
// option values must be, as in b3sum.

import { jaro } from './similarity.js';

export interface Options {
  files: Buffer[];
  keyed: boolean;
  deriveKey: string | undefined;
  length: bigint;
  seek: bigint;
  numThreads: bigint | undefined;
  noMmap: boolean;
  noNames: boolean;
  raw: boolean;
  tag: boolean;
  check: boolean;
  quiet: boolean;
}

/** A clap usage error: exit status 2. `usage` says whether clap prints the
 * Usage line after it (it does not for bad or missing values). */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: boolean,
  ) {
    super(message);
  }
}

type Id = 'keyed' | 'deriveKey' | 'length' | 'seek' | 'numThreads' | 'noMmap' | 'noNames' | 'raw' | 'tag' | 'check' | 'quiet' | 'help' | 'version';

interface Spec {
  id: Id;
  long: string;
  short?: string;
  /** The value's placeholder, for options that take one. */
  value?: string;
  /** Other arguments this one cannot be used with (clap's conflicts_with). */
  conflicts?: Id[];
}

// In b3sum's order, which is clap's order for suggestions and conflicts.
const SPECS: Spec[] = [
  { id: 'keyed', long: 'keyed' },
  { id: 'deriveKey', long: 'derive-key', value: 'CONTEXT', conflicts: ['keyed'] },
  { id: 'length', long: 'length', short: 'l', value: 'LEN' },
  { id: 'seek', long: 'seek', value: 'SEEK' },
  { id: 'numThreads', long: 'num-threads', value: 'NUM' },
  { id: 'noMmap', long: 'no-mmap' },
  { id: 'noNames', long: 'no-names' },
  { id: 'raw', long: 'raw' },
  { id: 'tag', long: 'tag' },
  { id: 'check', long: 'check', short: 'c', conflicts: ['deriveKey', 'keyed', 'length', 'raw', 'tag', 'noNames'] },
  { id: 'quiet', long: 'quiet' },
  { id: 'help', long: 'help', short: 'h' },
  { id: 'version', long: 'version', short: 'V' },
];

const byId = (id: Id) => SPECS.find((spec) => spec.id === id)!;
const shown = (spec: Spec) => (spec.value ? `--${spec.long} <${spec.value}>` : `--${spec.long}`);
const conflicting = (a: Id, b: Id) => !!byId(a).conflicts?.includes(b) || !!byId(b).conflicts?.includes(a);

const utf8 = new TextDecoder('utf-8', { fatal: true });
const lossy = new TextDecoder();
const DASH = 0x2d;
const EQUALS = 0x3d;

function strictText(bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new UsageError('invalid UTF-8 was detected in one or more arguments', true);
  }
}

const U64_MAX = 2n ** 64n - 1n;

/** Rust's `u64::from_str`: an optional `+`, then decimal digits. */
function parseU64(text: string, spec: Spec): bigint {
  const fail = (why: string) => new UsageError(`invalid value '${text}' for '${shown(spec)}': ${why}`, false);
  if (text === '') throw fail('cannot parse integer from empty string');
  const digits = text.startsWith('+') && text.length > 1 ? text.slice(1) : text;
  let value = 0n;
  for (const c of digits) {
    if (c < '0' || c > '9') throw fail('invalid digit found in string');
    value = value * 10n + BigInt(c.charCodeAt(0) - 48);
    if (value > U64_MAX) throw fail('number too large to fit in target type');
  }
  return value;
}

type Help = { help: 'short' | 'long' } | { version: true };

class Parser {
  /** Arguments given, in the order clap records them (an option when its value is taken). */
  readonly given = new Map<Id, Buffer | true>();
  readonly files: Buffer[] = [];
  #pending: { spec: Spec; value?: Buffer } | undefined;
  #awaitingValue = false;
  /** Files not yet checked: clap checks positionals, like options, late. */
  #pendingFiles: Buffer[] = [];

  /** Records an argument, as clap's `react`; may end parsing with help. */
  take(spec: Spec, value: Buffer | undefined, form: 'short' | 'long'): Help | undefined {
    this.resolve();
    if (spec.value && value === undefined) {
      throw new UsageError(`a value is required for '${shown(spec)}' but none was supplied`, false);
    }
    if (spec.id === 'help') return { help: form };
    if (spec.id === 'version') return { version: true };
    if (this.given.has(spec.id)) throw new UsageError(`the argument '${shown(spec)}' cannot be used multiple times`, true);
    if (value !== undefined) {
      const text = strictText(value);
      if (spec.id !== 'deriveKey') parseU64(text, spec);
    }
    this.given.set(spec.id, value ?? true);
    return undefined;
  }

  /** Waits for the option's value in the next argument. */
  expect(spec: Spec): void {
    this.resolve();
    this.#pending = { spec };
    this.#awaitingValue = true;
  }

  /** Whether the next plain argument is the pending option's value. */
  get awaitingValue(): boolean {
    return this.#awaitingValue;
  }

  giveValue(value: Buffer): void {
    this.#pending!.value = value;
    this.#awaitingValue = false;
  }

  /** A `--` while a value is awaited: the option stays without one. */
  stopAwaiting(): void {
    this.#awaitingValue = false;
  }

  file(path: Buffer): void {
    if (this.#pending) this.resolve();
    this.#pendingFiles.push(path);
  }

  /** Settles the option waiting for its value, or the files given since the
   * last option; errors as clap does then. */
  resolve(): void {
    const files = this.#pendingFiles;
    this.#pendingFiles = [];
    for (const path of files) {
      // clap's path parser takes any bytes but none.
      if (path.length === 0) throw new UsageError("a value is required for '[FILE]...' but none was supplied", false);
      this.files.push(path);
    }
    const pending = this.#pending;
    if (!pending) return;
    this.#pending = undefined;
    this.#awaitingValue = false;
    this.take(pending.spec, pending.value, 'long');
  }

  /** Before an unknown-argument error, which wins over the pending value's. */
  resolveQuietly(): void {
    try {
      this.resolve();
    } catch {
      // clap reports the unknown argument instead.
    }
  }
}

function unknown(arg: string, tip: string): UsageError {
  return new UsageError(`unexpected argument '${arg}' found\n\n  tip: ${tip}`, true);
}

function unknownLong(name: string): UsageError {
  let best: string | undefined;
  let bestScore = 0.7;
  for (const spec of SPECS) {
    // Ties go to the later argument, as in clap's sorted candidate list.
    const score = jaro(name, spec.long);
    if (score > bestScore || (best !== undefined && score === bestScore)) [best, bestScore] = [spec.long, score];
  }
  if (best !== undefined) return unknown(`--${name}`, `a similar argument exists: '--${best}'`);
  return unknown(`--${name}`, `to pass '--${name}' as a value, use '-- --${name}'`);
}

const unknownShort = (flag: string) => unknown(flag, `to pass '${flag}' as a value, use '-- ${flag}'`);

function splitAt(bytes: Buffer, byte: number): [Buffer, Buffer | undefined] {
  const at = bytes.indexOf(byte);
  return at < 0 ? [bytes, undefined] : [bytes.subarray(0, at), bytes.subarray(at + 1)];
}

function parseLong(parser: Parser, arg: Buffer): Help | undefined {
  const [nameBytes, value] = splitAt(arg.subarray(2), EQUALS);
  let name: string;
  try {
    name = utf8.decode(nameBytes);
  } catch {
    name = lossy.decode(nameBytes);
    parser.resolveQuietly();
    throw unknownLong(name);
  }
  const spec = SPECS.find((s) => s.long === name);
  if (!spec) {
    parser.resolveQuietly();
    throw unknownLong(name);
  }
  if (spec.value) {
    if (value !== undefined) return parser.take(spec, value, 'long');
    parser.expect(spec);
    return undefined;
  }
  if (value !== undefined) {
    parser.resolveQuietly();
    throw new UsageError(`unexpected value '${lossy.decode(value)}' for '--${name}' found; no more were expected`, true);
  }
  return parser.take(spec, undefined, 'long');
}

/** How many leading bytes are valid UTF-8. */
function validPrefix(bytes: Buffer): number {
  let length = 0;
  for (const c of lossy.decode(bytes)) {
    const encoded = Buffer.from(c);
    // A U+FFFD that is not spelled in the input marks the first bad byte.
    if (!bytes.subarray(length, length + encoded.length).equals(encoded)) break;
    length += encoded.length;
  }
  return length;
}

/** `-c`, `-cl5`, `-l=5`, `-l 5`: flags, then at most one option taking the rest. */
function parseShorts(parser: Parser, arg: Buffer): Help | undefined {
  const flags = arg.subarray(1);
  const valid = validPrefix(flags);
  let offset = 0;
  for (const c of flags.subarray(0, valid).toString()) {
    offset += Buffer.byteLength(c);
    const spec = SPECS.find((s) => s.short === c);
    if (!spec) {
      parser.resolveQuietly();
      throw unknownShort(`-${c}`);
    }
    if (!spec.value) {
      const done = parser.take(spec, undefined, 'short');
      if (done) return done;
      continue;
    }
    let rest = flags.subarray(offset);
    if (rest.length === 0) {
      parser.expect(spec);
      return undefined;
    }
    if (rest[0] === EQUALS) rest = rest.subarray(1);
    return parser.take(spec, rest, 'short');
  }
  if (valid < flags.length) {
    // clap names everything from the first byte that is not UTF-8.
    parser.resolveQuietly();
    throw unknownShort(`-${lossy.decode(flags.subarray(valid))}`);
  }
  return undefined;
}

/** Parses b3sum's arguments; throws UsageError as clap would. */
export function parseOptions(args: Buffer[]): Options | Help {
  const parser = new Parser();
  let trailing = false;
  for (const arg of args) {
    const dashes = arg[0] === DASH ? (arg[1] === DASH ? 2 : 1) : 0;
    if (!trailing && dashes === 2 && arg.length === 2) {
      trailing = true;
      parser.stopAwaiting();
      continue;
    }
    if (!trailing && dashes === 2) {
      const done = parseLong(parser, arg);
      if (done) return done;
      continue;
    }
    if (!trailing && dashes === 1 && arg.length > 1) {
      const done = parseShorts(parser, arg);
      if (done) return done;
      continue;
    }
    if (!trailing && parser.awaitingValue) {
      parser.giveValue(arg);
      continue;
    }
    parser.file(arg);
  }
  parser.resolve();
  const given = [...parser.given.keys()];
  checkConflicts(given);
  checkRequired(given, parser.files.length > 0);
  return options(parser);
}

/** The first argument given that conflicts with others, as clap reports it. */
function checkConflicts(given: Id[]): void {
  for (const id of given) {
    const others = given.filter((other) => other !== id && conflicting(id, other));
    if (others.length === 0) continue;
    const [first, ...more] = others.map((other) => shown(byId(other)));
    const tail = more.length === 0 ? ` '${first}'` : `:\n  ${[first, ...more].join('\n  ')}`;
    throw new UsageError(`the argument '${shown(byId(id))}' cannot be used with${tail}`, true);
  }
}

/** --keyed needs files (stdin holds the key); --quiet needs --check, unless
 * something given conflicts with --check (then clap lets it pass). */
function checkRequired(given: Id[], hasFiles: boolean): void {
  const missingCheck = given.includes('quiet') && !given.includes('check');
  const missingFiles = given.includes('keyed') && !hasFiles;
  const checkExcused = given.some((id) => conflicting('check', id));
  if (!missingFiles && !(missingCheck && !checkExcused)) return;
  const listed = [...(missingCheck ? ['--check'] : []), ...(missingFiles ? ['<FILE>...'] : [])];
  throw new UsageError(`the following required arguments were not provided:\n  ${listed.join('\n  ')}`, true);
}

function options(parser: Parser): Options {
  const { given } = parser;
  const number = (id: Id, fallback: bigint) => {
    const value = given.get(id);
    return value instanceof Buffer ? parseU64(value.toString(), byId(id)) : fallback;
  };
  const context = given.get('deriveKey');
  return {
    files: parser.files.length > 0 ? parser.files : [Buffer.from('-')],
    keyed: given.has('keyed'),
    deriveKey: context instanceof Buffer ? context.toString() : undefined,
    length: number('length', 32n),
    seek: number('seek', 0n),
    numThreads: given.has('numThreads') ? number('numThreads', 0n) : undefined,
    noMmap: given.has('noMmap'),
    noNames: given.has('noNames'),
    raw: given.has('raw'),
    tag: given.has('tag'),
    check: given.has('check'),
    quiet: given.has('quiet'),
  };
}
