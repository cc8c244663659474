//! The v128 lane operations both SIMD kernels use (`wasm_simd.rs`, four
//! chunks or parents at once; `rows.rs`, one block row-wise): additions,
//! xors and the four G-function rotations, with the rotation masks. Their
//! own file so that neither kernel imports the other's internals.

use core::arch::wasm32::*;

#[inline(always)]
pub(super) fn add(a: v128, b: v128) -> v128 {
    i32x4_add(a, b)
}

#[inline(always)]
pub(super) fn xor(a: v128, b: v128) -> v128 {
    v128_xor(a, b)
}

#[inline(always)]
pub(super) fn splat(x: u32) -> v128 {
    u32x4_splat(x)
}

/// The byte shuffles that rotate each 32-bit lane right by 8 and 16 bits.
static ROT8_MASK: v128 = i8x16(1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12);
static ROT16_MASK: v128 = i8x16(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);

/// The rotation masks as values, for `i8x16.swizzle`.
///
/// Why not `i8x16.shuffle` with constant lanes: V8 (x64) compiles a byte
/// shuffle that is not one of its known patterns into `pshufb` with the mask
/// rebuilt from two 64-bit immediates at every use (5 instructions for each
/// rot8), and rot16 into `pshuflw` + `pshufhw`. A swizzle whose mask is a
/// `v128.const` is a single `pshufb`, the constant kept in a register. LLVM
/// turns a swizzle with a constant mask back into a shuffle, so the masks are
/// read here with volatile loads (once per call of `hash4`, `xof4` and
/// rows.rs' `compress` and `hash_chunk_pair`), and the build (`scripts/build-wasm.mjs`) replaces
/// exactly those loads with
/// `v128.const`. Without that step the module is still correct, and V8 adds a
/// `paddusb` range fix-up to each swizzle.
#[derive(Clone, Copy)]
pub(super) struct Masks {
    rot8: v128,
    rot16: v128,
}

impl Masks {
    /// For code that rotates by shuffles and reads no mask (the
    /// JavaScriptCore copy of `hash4`): no load for the build to replace.
    pub(super) const UNUSED: Masks = Masks { rot8: u32x4(0, 0, 0, 0), rot16: u32x4(0, 0, 0, 0) };

    #[inline(always)]
    pub(super) fn load() -> Self {
        // SAFETY: reads of two immutable statics.
        unsafe { Masks { rot8: core::ptr::read_volatile(&raw const ROT8_MASK), rot16: core::ptr::read_volatile(&raw const ROT16_MASK) } }
    }
}

#[inline(always)]
pub(super) fn rot16(x: v128, masks: &Masks) -> v128 {
    i8x16_swizzle(x, masks.rot16)
}

#[inline(always)]
pub(super) fn rot12(x: v128) -> v128 {
    v128_or(u32x4_shr(x, 12), u32x4_shl(x, 20))
}

#[inline(always)]
pub(super) fn rot8(x: v128, masks: &Masks) -> v128 {
    i8x16_swizzle(x, masks.rot8)
}

/// rot16 and rot8 as `i8x16.shuffle` with constant lanes, as upstream's
/// `wasm32_simd` has them: for the JavaScriptCore copy of `hash4` only. In
/// WebKitGTK 2.50 that copy hashed 4 KiB-1 MiB at 1.07-1.09x the swizzles
/// (1,262 against 1,180 MB/s at 4 KiB, 1,433 against 1,319 at 64 KiB), in
/// Bun 1.4.5 at 1.00-1.02x; V8 ran the kernel with them at 0.86-0.89x and
/// SpiderMonkey at 0.99-1.00x (bench/kernel-ab-browser.mjs, 11 rounds, AMD
/// EPYC), so the other copies keep the swizzles.
#[inline(always)]
pub(super) fn rot16_by_shuffle(x: v128) -> v128 {
    i8x16_shuffle::<2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13>(x, x)
}

#[inline(always)]
pub(super) fn rot8_by_shuffle(x: v128) -> v128 {
    i8x16_shuffle::<1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12>(x, x)
}

#[inline(always)]
pub(super) fn rot7(x: v128) -> v128 {
    v128_or(u32x4_shr(x, 7), u32x4_shl(x, 25))
}
