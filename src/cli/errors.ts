// Errors as b3sum prints them: Rust's std::io::Error text, with the errno.

import { os } from './system.js';

// Messages as Rust's std::io::Error prints them, so errors read like b3sum's.
const STRERROR: Record<string, string> = {
  ENOENT: 'No such file or directory',
  EISDIR: 'Is a directory',
  EACCES: 'Permission denied',
  EPERM: 'Operation not permitted',
  ENOTDIR: 'Not a directory',
  ELOOP: 'Too many levels of symbolic links',
  ENAMETOOLONG: 'File name too long',
  EIO: 'Input/output error',
  EMFILE: 'Too many open files',
  ENXIO: 'No such device or address',
  EPIPE: 'Broken pipe',
  EINVAL: 'Invalid argument',
  ENODEV: 'No such device',
  ETXTBSY: 'Text file busy',
  ENOMEM: 'Cannot allocate memory',
  EAGAIN: 'Resource temporarily unavailable',
};

export function describe(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  const errno = code === undefined ? undefined : (os().constants.errno as Record<string, number>)[code];
  if (code !== undefined && STRERROR[code] !== undefined && errno !== undefined) return `${STRERROR[code]} (os error ${errno})`;
  return message ?? code ?? String(error);
}

/** A library error's text without our prefix: b3sum prefixes it once, with the file. */
export const withoutPrefix = (text: string) => text.replace(/^blake3-kit: /, '');
