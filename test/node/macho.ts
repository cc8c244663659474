// Just enough of Mach-O to check a macOS addon here, where nothing can run
// it (test/node/platforms.test.ts): its load commands, symbols, export trie
// and ad-hoc code signature. From Apple's <mach-o/loader.h>, <mach-o/nlist.h>
// and the code signing blob formats (cs_blobs.h).
import { createHash } from 'node:crypto';

export interface MachO {
  cpu: 'arm64' | 'x64' | 'other';
  fileType: number;
  /** LC_ID_DYLIB's name. */
  id?: string;
  /** LC_LOAD_DYLIB (and weak, re-export, lazy) names, in ordinal order. */
  dylibs: string[];
  /** The minimum macOS, "11.0.0", from LC_BUILD_VERSION or LC_VERSION_MIN_MACOSX. */
  minimumMacos?: string;
  /** Names in the export trie (what dlsym finds). */
  exports: string[];
  /** Defined external symbols. */
  defined: string[];
  /** Undefined external symbols and the dylib each is bound to. */
  imports: { name: string; dylib: string }[];
  /** LC_CODE_SIGNATURE's place in the file, if signed. */
  signature?: { offset: number; size: number };
}

const MH_MAGIC_64 = 0xfeedfacf;
const LC = {
  SYMTAB: 0x2,
  LOAD_DYLIB: 0xc,
  ID_DYLIB: 0xd,
  CODE_SIGNATURE: 0x1d,
  LAZY_LOAD_DYLIB: 0x20,
  VERSION_MIN_MACOSX: 0x24,
  BUILD_VERSION: 0x32,
  LOAD_WEAK_DYLIB: 0x80000018,
  REEXPORT_DYLIB: 0x8000001f,
  DYLD_INFO_ONLY: 0x80000022,
  DYLD_EXPORTS_TRIE: 0x80000033,
};
const PLATFORM_MACOS = 1;

const version = (v: number) => `${v >>> 16}.${(v >>> 8) & 0xff}.${v & 0xff}`;

function cString(bytes: Buffer, at: number): string {
  const end = bytes.indexOf(0, at);
  return bytes.toString('latin1', at, end === -1 ? bytes.length : end);
}

function uleb(bytes: Buffer, at: number): [number, number] {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[at++]!;
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if (byte < 0x80) return [value, at];
  }
}

/** Every name in the export trie at [start, start + size). */
function exportTrie(bytes: Buffer, start: number, size: number): string[] {
  const names: string[] = [];
  const seen = new Set<number>();
  const walk = (offset: number, prefix: string) => {
    if (offset >= size || seen.has(offset)) throw new Error(`malformed export trie at ${offset}`);
    seen.add(offset);
    const [terminal, next] = uleb(bytes, start + offset);
    if (terminal > 0) names.push(prefix);
    let at = next + terminal;
    const children = bytes[at++]!;
    for (let i = 0; i < children; i++) {
      const edge = cString(bytes, at);
      at += Buffer.byteLength(edge, 'latin1') + 1;
      const [child, after] = uleb(bytes, at);
      at = after;
      walk(child, prefix + edge);
    }
  };
  walk(0, '');
  return names;
}

export function parseMachO(bytes: Buffer): MachO {
  if (bytes.readUInt32LE(0) !== MH_MAGIC_64) throw new Error('not a 64-bit little-endian Mach-O file');
  const cputype = bytes.readUInt32LE(4);
  const out: MachO = {
    cpu: cputype === 0x0100000c ? 'arm64' : cputype === 0x01000007 ? 'x64' : 'other',
    fileType: bytes.readUInt32LE(12),
    dylibs: [],
    exports: [],
    defined: [],
    imports: [],
  };
  const ncmds = bytes.readUInt32LE(16);
  let symtab: { symoff: number; nsyms: number; stroff: number } | undefined;
  let at = 32;
  for (let i = 0; i < ncmds; i++) {
    const cmd = bytes.readUInt32LE(at);
    const size = bytes.readUInt32LE(at + 4);
    const u32 = (k: number) => bytes.readUInt32LE(at + 8 + 4 * k);
    switch (cmd) {
      case LC.SYMTAB:
        symtab = { symoff: u32(0), nsyms: u32(1), stroff: u32(2) };
        break;
      case LC.ID_DYLIB:
        out.id = cString(bytes, at + u32(0));
        break;
      case LC.LOAD_DYLIB:
      case LC.LOAD_WEAK_DYLIB:
      case LC.REEXPORT_DYLIB:
      case LC.LAZY_LOAD_DYLIB:
        out.dylibs.push(cString(bytes, at + u32(0)));
        break;
      case LC.VERSION_MIN_MACOSX:
        out.minimumMacos = version(u32(0));
        break;
      case LC.BUILD_VERSION:
        if (u32(0) === PLATFORM_MACOS) out.minimumMacos = version(u32(1));
        break;
      case LC.CODE_SIGNATURE:
        out.signature = { offset: u32(0), size: u32(1) };
        break;
      case LC.DYLD_INFO_ONLY:
        if (u32(9) > 0) out.exports = exportTrie(bytes, u32(8), u32(9));
        break;
      case LC.DYLD_EXPORTS_TRIE:
        if (u32(1) > 0) out.exports = exportTrie(bytes, u32(0), u32(1));
        break;
    }
    at += size;
  }
  if (symtab !== undefined) {
    for (let i = 0; i < symtab.nsyms; i++) {
      const entry = symtab.symoff + 16 * i;
      const type = bytes[entry + 4]!;
      // Debugging entries (stabs), and symbols private to the file.
      if (type & 0xe0 || !(type & 0x01)) continue;
      const name = cString(bytes, symtab.stroff + bytes.readUInt32LE(entry));
      if ((type & 0x0e) === 0x0e) out.defined.push(name);
      else if ((type & 0x0e) === 0) {
        const ordinal = bytes.readUInt16LE(entry + 6) >>> 8;
        out.imports.push({ name, dylib: out.dylibs[ordinal - 1] ?? `ordinal ${ordinal}` });
      }
    }
  }
  return out;
}

export interface CodeSignature {
  /** CS_ADHOC: signed without an identity, as linkers sign. */
  adhoc: boolean;
  hashType: number;
  pageSize: number;
  /** Bytes covered: everything before the signature itself. */
  codeLimit: number;
  /** Pages whose hash does not match the file now. */
  badPages: number[];
  pages: number;
}

/** The signature's CodeDirectory, each page's hash recomputed. */
export function checkCodeSignature(bytes: Buffer, macho: MachO): CodeSignature {
  if (macho.signature === undefined) throw new Error('no LC_CODE_SIGNATURE');
  const base = macho.signature.offset;
  if (bytes.readUInt32BE(base) !== 0xfade0cc0) throw new Error('the signature is not an embedded SuperBlob');
  const count = bytes.readUInt32BE(base + 8);
  let cd: number | undefined;
  for (let i = 0; i < count; i++) {
    const type = bytes.readUInt32BE(base + 12 + 8 * i);
    if (type === 0) cd = base + bytes.readUInt32BE(base + 16 + 8 * i);
  }
  if (cd === undefined || bytes.readUInt32BE(cd) !== 0xfade0c02) throw new Error('no CodeDirectory');
  const flags = bytes.readUInt32BE(cd + 12);
  const hashOffset = bytes.readUInt32BE(cd + 16);
  const nCodeSlots = bytes.readUInt32BE(cd + 28);
  const codeLimit = bytes.readUInt32BE(cd + 32);
  const hashSize = bytes[cd + 36]!;
  const hashType = bytes[cd + 37]!;
  const pageSize = 2 ** bytes[cd + 39]!;
  if (hashType !== 2 || hashSize !== 32) throw new Error(`hash type ${hashType} (size ${hashSize}), not SHA-256`);
  const badPages: number[] = [];
  for (let page = 0; page < nCodeSlots; page++) {
    const from = page * pageSize;
    const digest = createHash('sha256')
      .update(bytes.subarray(from, Math.min(from + pageSize, codeLimit)))
      .digest();
    const slot = cd + hashOffset + page * hashSize;
    if (!digest.equals(bytes.subarray(slot, slot + hashSize))) badPages.push(page);
  }
  return { adhoc: (flags & 0x2) !== 0, hashType, pageSize, codeLimit, badPages, pages: nCodeSlots };
}
