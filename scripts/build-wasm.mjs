// Builds wasm/blake3-kit-{simd,scalar}.wasm from crate/wasm.
//
// Two modules because a single v128 instruction anywhere makes a whole module
// fail validation on engines without SIMD, so the fallback must be built
// without simd128 from the start rather than merely not calling those paths.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { capture, isMain, main, root, run, table } from './lib.mjs';

const TARGET = 'wasm32-unknown-unknown';
const OUT_DIR = join(root, 'wasm');

// The features rustc 1.95 enables by default for wasm32-unknown-unknown (from
// its target_features section). The scalar module actually needs bulk-memory,
// sign-ext and reference-types today; the rest are allowed because rustc may
// start using them and every engine with reference-types supports them.
// --mvp-features first so the set is exactly this list, not binaryen's default.
const BASE_FEATURES = [
  '--mvp-features',
  '--enable-bulk-memory',
  '--enable-sign-ext',
  '--enable-nontrapping-float-to-int',
  '--enable-mutable-globals',
  '--enable-multivalue',
  '--enable-reference-types',
];

export const FLAVOURS = {
  simd: {
    cargoArgs: ['--features', 'simd'],
    rustflags: '-C target-feature=+simd128',
    optArgs: ['--enable-simd'],
    // See constantSwizzleMasks below.
    swizzleMasks: [
      [1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12],
      [2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13],
    ],
  },
  scalar: {
    cargoArgs: [],
    // Explicitly empty so a RUSTFLAGS in the caller's environment can't sneak
    // simd128 into the fallback.
    rustflags: '',
    // No --enable-simd, and the target_features section is removed before
    // wasm-opt sees it, so wasm-opt's validation fails if any v128 instruction
    // made it into this module. That failure is the guarantee that the scalar
    // build runs where SIMD is missing: keep it.
    optArgs: [],
  },
};

/** The module of a flavour (`blake3-kit-<flavour>.wasm`), one for every
 * entry. A hashing-only module without content addressing's exports (cut
 * by wasm-metadce) was 3.1 KB gzip smaller for SIMD, but an app importing
 * both 'blake3-kit' and 'blake3-kit/bao' then shipped both modules. */
export const modulePath = (flavour) => join(OUT_DIR, `blake3-kit-${flavour}.wasm`);

export const outputs = Object.keys(FLAVOURS).map((f) => modulePath(f));

// The runtime loader supplies only this import (wasm-bindgen's externref table
// initialiser); anything else would make instantiation fail at runtime.
const ALLOWED_IMPORTS = new Set(['__wbindgen_init_externref_table']);
const REQUIRED_EXPORTS = ['hash_oneshot', 'staging_ptr', 'abi_version'];

function wasmOptPath() {
  // npm's binaryen, never Debian's: Debian's binaryen 108 produces modules that break at init.
  const p = join(root, 'node_modules', '.bin', 'wasm-opt');
  if (!existsSync(p)) throw new Error(`${relative(root, p)} not found: run \`npm install\` (binaryen is a devDependency)`);
  return p;
}

/**
 * The module without its `target_features` custom section. wasm-opt enables
 * every feature listed there regardless of --disable-* flags (checked with
 * binaryen 132), which would let v128 code pass validation in the scalar build.
 */
export function withoutTargetFeatures(bytes) {
  const kept = [bytes.subarray(0, 8)]; // magic and version
  const r = reader(bytes);
  while (r.pos < bytes.length) {
    const start = r.pos;
    const id = bytes[r.pos++];
    const end = r.leb() + r.pos;
    if (id === 0) {
      const nameLen = r.leb();
      if (bytes.subarray(r.pos, r.pos + nameLen).toString() === 'target_features') {
        r.pos = end;
        continue;
      }
    }
    r.pos = end;
    kept.push(bytes.subarray(start, end));
  }
  return Buffer.concat(kept);
}

/** A cursor over a module's bytes, after the 8-byte header, that reads
 * unsigned LEB128 numbers. */
function reader(bytes) {
  return {
    pos: 8,
    leb() {
      let value = 0;
      for (let shift = 0; ; shift += 7) {
        const byte = bytes[this.pos++];
        value += (byte & 0x7f) * 2 ** shift;
        if (byte < 0x80) return value;
      }
    },
  };
}

/** The active data segments of a module: [{ address, bytes }]. */
function dataSegments(bytes) {
  const r = reader(bytes);
  const i32Const = () => {
    if (bytes[r.pos++] !== 0x41) throw new Error('data segment offset is not an i32.const');
    let value = 0;
    let shift = 0;
    let byte;
    do {
      byte = bytes[r.pos++];
      value |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    if (shift < 32 && byte & 0x40) value |= -1 << shift;
    if (bytes[r.pos++] !== 0x0b) throw new Error('data segment offset is not a constant expression');
    return value >>> 0;
  };
  const segments = [];
  while (r.pos < bytes.length) {
    const id = bytes[r.pos++];
    const end = r.leb() + r.pos;
    if (id === 11) {
      for (let n = r.leb(); n > 0; n--) {
        const kind = r.leb();
        if (kind === 2) r.leb(); // memory index
        const address = kind === 1 ? undefined : i32Const();
        const length = r.leb();
        if (address !== undefined) segments.push({ address, bytes: bytes.subarray(r.pos, r.pos + length) });
        r.pos += length;
      }
    }
    r.pos = end;
  }
  return segments;
}

/**
 * The SIMD kernel rotates bytes with `i8x16.swizzle` by masks it reads once
 * per call with volatile loads from statics (crate/wasm/src/kernel/wasm_simd.rs,
 * `Masks`, says why: V8 compiles a swizzle by a `v128.const` to one `pshufb`
 * with the constant in a register, and LLVM folds constant swizzles back into
 * slower shuffles). This replaces exactly those loads with `v128.const`,
 * through binaryen's text format, and fails the build unless each mask is
 * found once in the data and loaded once by each kernel (hash4, xof4, and
 * rows.rs' compress and hash_chunk_pair): a kernel change that
 * breaks the pattern must not silently lose the speed-up.
 */
function constantSwizzleMasks(wasmOpt, input, output, features, masks, tmp) {
  const bytes = readFileSync(input);
  const printed = capture(wasmOpt, [input, ...features, '--print']);
  if (!printed?.ok) throw new Error(`wasm-opt --print failed: ${printed?.stderr}`);
  let text = printed.stdout;
  for (const mask of masks) {
    const addresses = [];
    for (const segment of dataSegments(bytes)) {
      for (let i = segment.bytes.indexOf(mask[0]); i >= 0; i = segment.bytes.indexOf(mask[0], i + 1)) {
        if (mask.every((b, k) => segment.bytes[i + k] === b)) addresses.push(segment.address + i);
      }
    }
    if (addresses.length !== 1) throw new Error(`swizzle mask ${mask} found ${addresses.length} times in the data (expected once)`);
    const [address] = addresses;
    let count = 0;
    // `(v128.load [offset=A] [align=N] (i32.const B))` with A + B = address.
    text = text.replace(/\(v128\.load(?:\s+offset=(\d+))?(?:\s+align=\d+)?\s+\(i32\.const (-?\d+)\)\s*\)/g, (load, offset, base) => {
      if (Number(offset ?? 0) + (Number(base) >>> 0) !== address) return load;
      count++;
      return `(v128.const i8x16 ${mask.join(' ')})`;
    });
    // Once per kernel that rotates by swizzles: hash4 (its JavaScriptCore copy
    // shuffles), xof4 and rows.rs' two.
    if (count !== 4) throw new Error(`swizzle mask ${mask} is loaded ${count} times (expected four: hash4, xof4, rows.rs' two)`);
  }
  const wat = join(tmp, 'masks.wat');
  writeFileSync(wat, text);
  run(wasmOpt, [wat, '-o', output, ...features]);
}

function cargoBuild(flavour) {
  const { cargoArgs, rustflags } = FLAVOURS[flavour];
  // A target dir per flavour: different RUSTFLAGS would otherwise evict each
  // other's build cache on every alternate build.
  const targetDir = join(root, 'crate', 'target', flavour);
  run(
    'cargo',
    ['build', '--profile', 'wasm', '--target', TARGET, '--manifest-path', join(root, 'crate', 'Cargo.toml'), '-p', 'blake3-kit-wasm', ...cargoArgs],
    // CARGO_ENCODED_RUSTFLAGS would take precedence over RUSTFLAGS, even when empty.
    { env: { RUSTFLAGS: rustflags, CARGO_ENCODED_RUSTFLAGS: undefined, CARGO_TARGET_DIR: targetDir } },
  );
  return join(targetDir, TARGET, 'wasm', 'blake3_kit_wasm.wasm');
}

/** Throws unless the module only imports what the loader provides and exports the ABI. */
export function checkModule(bytes, label) {
  const mod = new WebAssembly.Module(bytes);
  for (const imp of WebAssembly.Module.imports(mod)) {
    if (!ALLOWED_IMPORTS.has(imp.name)) {
      throw new Error(
        `${label}: unexpected import ${imp.module}.${imp.name} (${imp.kind}); the runtime loader only provides ${[...ALLOWED_IMPORTS].join(', ')}`,
      );
    }
  }
  const exports = new Set(WebAssembly.Module.exports(mod).map((e) => e.name));
  const missing = REQUIRED_EXPORTS.filter((name) => !exports.has(name));
  if (missing.length) throw new Error(`${label}: missing exports ${missing.join(', ')}`);
}

function buildFlavour(flavour, wasmOpt, tmp) {
  const out = modulePath(flavour);
  console.error(`build-wasm: ${flavour}`);
  const raw = cargoBuild(flavour);

  // Only the _bg.wasm is kept: the TypeScript loader calls the integer-only
  // exports directly, so wasm-bindgen's JS glue is not needed.
  const bindgenDir = join(tmp, flavour);
  run('wasm-bindgen', ['--target', 'web', '--out-name', 'blake3_kit', '--out-dir', bindgenDir, raw]);
  const input = join(tmp, `${flavour}.wasm`);
  writeFileSync(input, withoutTargetFeatures(readFileSync(join(bindgenDir, 'blake3_kit_bg.wasm'))));

  // Written beside the target and renamed only once checked, so a failed build
  // never leaves a truncated or unchecked module in wasm/.
  const partial = `${out}.${process.pid}.tmp`;
  try {
    run(wasmOpt, [input, '-o', partial, '-O3', '--strip-debug', '--strip-producers', ...BASE_FEATURES, ...FLAVOURS[flavour].optArgs]);
    const { swizzleMasks } = FLAVOURS[flavour];
    if (swizzleMasks) {
      constantSwizzleMasks(wasmOpt, partial, partial, [...BASE_FEATURES, ...FLAVOURS[flavour].optArgs], swizzleMasks, bindgenDir);
    }
    const bytes = readFileSync(partial);
    checkModule(bytes, relative(root, out));
    renameSync(partial, out);
    return [moduleRow(out, bytes)];
  } finally {
    rmSync(partial, { force: true });
  }
}

const moduleRow = (path, bytes) => ({ path: relative(root, path), bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length });

export function buildWasm(flavours = Object.keys(FLAVOURS)) {
  const wasmOpt = wasmOptPath();
  mkdirSync(OUT_DIR, { recursive: true });
  const tmp = mkdtempSync(join(tmpdir(), 'blake3-kit-wasm-'));
  try {
    const rows = flavours.flatMap((f) => buildFlavour(f, wasmOpt, tmp));
    console.error(`\n${table([['module', 'bytes', 'gzip -9'], ...rows.map((r) => [r.path, r.bytes, r.gzip])])}\n`);
    return rows;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  // `node scripts/build-wasm.mjs [simd|scalar ...]`; both by default.
  const args = process.argv.slice(2);
  const unknown = args.filter((a) => !(a in FLAVOURS));
  if (unknown.length) {
    console.error(`usage: build-wasm.mjs [${Object.keys(FLAVOURS).join('|')}]...`);
    process.exit(2);
  }
  await main(() => buildWasm(args.length ? args : undefined));
}
