// Command-line options, as b3sum 1.8 takes them. Usage errors print a message
// and exit with status 2, as clap does for b3sum.

import { parseArgs } from 'node:util';

export interface Options {
  files: string[];
  keyed: boolean;
  deriveKey: string | undefined;
  length: bigint;
  seek: bigint;
  numThreads: number | undefined;
  noMmap: boolean;
  noNames: boolean;
  raw: boolean;
  tag: boolean;
  check: boolean;
  quiet: boolean;
}

export class UsageError extends Error {}

export const USAGE = `Usage: blake3-kit [OPTIONS] [FILE]...

Prints BLAKE3 checksums, as b3sum does (same options, same output).

Arguments:
  [FILE]...  Files to hash, or checkfiles to check. With no FILE, or -, reads standard input.

Options:
      --keyed                 Use the keyed mode, reading the 32-byte key from stdin
      --derive-key <CONTEXT>  Use the key derivation mode, with the given context string
  -l, --length <LEN>          The number of output bytes, before hex encoding [default: 32]
      --seek <SEEK>           The starting output byte offset, before hex encoding [default: 0]
      --num-threads <NUM>     The maximum number of threads to use
      --no-mmap               Disable memory mapping
      --no-names              Omit filenames in the output
      --raw                   Write raw output bytes to stdout, rather than hex
      --tag                   Output BSD-style checksums: BLAKE3 ([FILE]) = [HASH]
  -c, --check                 Read BLAKE3 sums from the [FILE]s and check them
      --quiet                 Skip printing OK for each checked file
  -h, --help                  Print help
  -V, --version               Print version
`;

const U64_MAX = 2n ** 64n - 1n;

function unsigned(value: string | undefined, flag: string, fallback: bigint): bigint {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new UsageError(`invalid value '${value}' for '${flag}': invalid digit found in string`);
  const parsed = BigInt(value);
  if (parsed > U64_MAX) throw new UsageError(`invalid value '${value}' for '${flag}': number too large to fit in target type`);
  return parsed;
}

const CONFLICTS: [keyof Options, string, keyof Options, string][] = [
  ['keyed', '--keyed', 'deriveKey', '--derive-key <CONTEXT>'],
  ['check', '--check', 'deriveKey', '--derive-key <CONTEXT>'],
  ['check', '--check', 'keyed', '--keyed'],
  ['check', '--check', 'raw', '--raw'],
  ['check', '--check', 'noNames', '--no-names'],
  ['check', '--check', 'tag', '--tag'],
  ['raw', '--raw', 'tag', '--tag'],
];

export function parseOptions(argv: string[]): Options | 'help' | 'version' {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      keyed: { type: 'boolean' },
      'derive-key': { type: 'string' },
      length: { type: 'string', short: 'l' },
      seek: { type: 'string' },
      'num-threads': { type: 'string' },
      'no-mmap': { type: 'boolean' },
      'no-names': { type: 'boolean' },
      raw: { type: 'boolean' },
      tag: { type: 'boolean' },
      check: { type: 'boolean', short: 'c' },
      quiet: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'V' },
    },
  });
  if (values.help) return 'help';
  if (values.version) return 'version';
  const threads = values['num-threads'];
  const options: Options = {
    files: positionals.length > 0 ? positionals : ['-'],
    keyed: values.keyed ?? false,
    deriveKey: values['derive-key'],
    length: unsigned(values.length, '--length <LEN>', 32n),
    seek: unsigned(values.seek, '--seek <SEEK>', 0n),
    numThreads: threads === undefined ? undefined : Number(unsigned(threads, '--num-threads <NUM>', 0n)),
    noMmap: values['no-mmap'] ?? false,
    noNames: values['no-names'] ?? false,
    raw: values.raw ?? false,
    tag: values.tag ?? false,
    check: values.check ?? false,
    quiet: values.quiet ?? false,
  };
  for (const [a, aName, b, bName] of CONFLICTS) {
    if (options[a] && options[b] !== undefined && options[b] !== false) {
      throw new UsageError(`the argument '${aName}' cannot be used with '${bName}'`);
    }
  }
  if (options.check && (values.length !== undefined || values.seek !== undefined)) {
    throw new UsageError(`the argument '--check' cannot be used with '${values.length !== undefined ? '--length <LEN>' : '--seek <SEEK>'}'`);
  }
  if (options.quiet && !options.check) throw new UsageError('the following required arguments were not provided:\n  --check');
  if (options.raw && options.files.length > 1) throw new Error('Only one filename can be provided when using --raw');
  return options;
}
