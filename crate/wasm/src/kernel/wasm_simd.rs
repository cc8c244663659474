//! The simd128 kernel: four chunks (or four parents) at once, one v128 per
//! state word with lane j belonging to input j, as upstream's `hash4`.
//!
//! Only built with the `simd` feature and `+simd128`; single blocks go
//! through rows.rs.
//!
//! Measured with `node bench/kernel-ab.mjs` (Node 20.20, V8 11.3, 2-core AMD
//! EPYC shared with other jobs; MB/s medians of 21 alternating rounds in one
//! process, so compare ratios): `hash()` of the SIMD module built on the
//! official crate 1.8.7 (`wasm32_simd`), of this one, and of blake3-wasm 3
//! (the C SSE4.1 kernel through emscripten).
//!
//! | size   | official | ours | ours/official | C SSE4.1 |
//! |-------:|---------:|-----:|--------------:|---------:|
//! | 64 B   |      337 |  514 |          1.53 |      409 |
//! | 256 B  |      510 |  839 |          1.65 |      544 |
//! | 1 KiB  |      569 | 1048 |          1.84 |      616 |
//! | 4 KiB  |     1549 | 1769 |          1.14 |     1781 |
//! | 16 KiB |     1673 | 1840 |          1.10 |     1935 |
//! | 64 KiB |     1724 | 1872 |          1.09 |     1976 |
//! | 1 MiB  |     1741 | 1889 |          1.09 |     1973 |
//!
//! Up to 1 KiB the gain was the portable single-block and single-chunk paths
//! (tree.rs); from 4 KiB on it is this file's byte rotations (see `Masks`),
//! where 95% of the time goes (`--cpu-prof` at 64 KiB). The kernel is the
//! same algorithm as upstream's and the C one: same instruction counts per
//! block in V8's output, the C build still ~5% ahead.
//!
//! Tried and rejected (ratio to the kept version at 4-64 KiB):
//! - rot8 (or rot8 and rot16) as shift + or: 0.97 (shifts share a port);
//! - rot16 by `i8x16.shuffle` (V8: pshuflw + pshufhw, frees a register),
//!   rot8 by swizzle: 0.93;
//! - swizzle masks left as loads (V8 adds a `paddusb` fix-up per swizzle):
//!   0.95, hence the v128.const step in scripts/build-wasm.mjs;
//! - message vectors re-read from a scratch buffer at each use (fewer live
//!   values): 0.99;
//! - the G functions one at a time instead of four side by side: 0.93;
//!   two at a time: LLVM emits identical code;
//! - wasm-opt -O1 / -O4 instead of -O3: no difference (V8 re-optimises);
//! - loading the second half of the message only when round 0 needs it:
//!   LLVM emits identical code;
//! - two sets of four lanes interleaved step by step (eight chunks in
//!   flight, `hash8`; a peer's kernel gained 18% so): 0.23-0.25x at
//!   16 KiB-1 MiB in Node 20 (kernel-ab, 15 rounds), 1.00x below. V8 gives
//!   wasm 16 vector registers on x64, and 64 live v128 values spill.
//!
//! A second copy for JavaScriptCore (`RELOAD`): the seven rounds as a loop,
//! each message vector read from memory at each use, and rot16/rot8 by
//! `i8x16.shuffle` (1.07-1.09x more in WebKitGTK; lanes.rs). At 64 KiB, Bun 1.4.5
//! 1,475 against 569 MB/s, WebKitGTK 1.06x; Chromium 0.94x, Firefox 1.00x
//! (bench/kernel-ab-browser.mjs, 15 rounds, AMD EPYC). The unrolled rounds
//! with the reloads gave Bun nothing (573): JavaScriptCore's gain is the
//! smaller function, likely its optimising tier's size limit.
//!
//! Kept after the table was taken: three leftover chunks go through one
//! hash4 with a repeated lane, 1.34x at 3 KiB and 1.18x at 7 KiB (two
//! leftovers stay portable: four lanes cost about 2.4 portable chunks).
//!
//! Extended output (`xof4`): four output blocks, one root compression per
//! lane with consecutive counters. Reading 1 MiB of output from a 32-byte
//! input in Node 20 (tinybench medians, 2 runs alternating old and new
//! modules; /tmp script, not kept): one block at a time through the portable
//! compression 796-802 MB/s, four lanes 1,889-1,999 MB/s (2.4x);
//! blake3-wasm's `digest({ length })` 947-952 MB/s in the same runs.
//! Writing the four blocks straight into the output instead of returning
//! them: 1,910-1,999 -> 2,144-2,146 MB/s (2.28-2.32x blake3-wasm); in
//! Chromium (bench/run.mjs --browser --quick) 980 against blake3-wasm's 553.
//! The rotation masks are loaded by both kernels and the two in rows.rs
//! (scripts/build-wasm.mjs checks for exactly four loads of each: hash4's
//! JavaScriptCore copy rotates by shuffles, see lanes.rs).
//!
//! Why extended output in Chromium reads at about half its Node rate
//! (`node bench/kernel-ab-chromium.mjs A.wasm B.wasm`, Chromium 156): the
//! kernel is not it. Reading 1 MiB into one reused buffer runs at 1,785-
//! 1,864 MB/s there; into a fresh `Uint8Array` per read, as `read(n)` must
//! return, 831-839 MB/s, and the allocation alone costs nothing. The
//! difference is the first write to each new page: Chromium's allocator
//! maps a fresh 1 MiB buffer every time, glibc in Node mostly reuses freed
//! memory (fresh 1,378 against reused 1,976 MB/s in Node). Every peer's
//! `read(n)` pays the same per byte; `readInto` a reused buffer avoids it.

use super::lanes::{add, rot12, rot16, rot16_by_shuffle, rot7, rot8, rot8_by_shuffle, splat, xor, Masks};
use super::spec::{Words, BLOCK_LEN, CHUNK_END, CHUNK_LEN, CHUNK_START, IV, MSG_SCHEDULE, PARENT};
use core::arch::wasm32::*;

const DEGREE: usize = 4;

/// Message vector `i`: kept live, or with `RELOAD` read from memory again
/// at this use (a volatile read, so the compiler keeps it a load).
#[inline(always)]
fn word<const RELOAD: bool>(m: &[v128; 16], i: usize) -> v128 {
    // SAFETY: a read of an element of a live array.
    if RELOAD {
        unsafe { core::ptr::read_volatile(&m[i]) }
    } else {
        m[i]
    }
}

/// One round on all four lanes: the four column G functions step by step
/// side by side, then the four diagonal ones.
#[inline(always)]
fn round<const RELOAD: bool>(v: &mut [v128; 16], m: &[v128; 16], r: usize, masks: &Masks) {
    let s = &MSG_SCHEDULE[r];
    #[rustfmt::skip]
    half_round::<RELOAD>(v, [0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15],
        m, [s[0], s[2], s[4], s[6]], [s[1], s[3], s[5], s[7]], masks);
    #[rustfmt::skip]
    half_round::<RELOAD>(v, [0, 1, 2, 3], [5, 6, 7, 4], [10, 11, 8, 9], [15, 12, 13, 14],
        m, [s[8], s[10], s[12], s[14]], [s[9], s[11], s[13], s[15]], masks);
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn half_round<const RELOAD: bool>(
    v: &mut [v128; 16],
    a: [usize; 4],
    b: [usize; 4],
    c: [usize; 4],
    d: [usize; 4],
    m: &[v128; 16],
    x: [usize; 4],
    y: [usize; 4],
    masks: &Masks,
) {
    for i in 0..4 {
        v[a[i]] = add(add(v[a[i]], word::<RELOAD>(m, x[i])), v[b[i]]);
    }
    for i in 0..4 {
        let x = xor(v[d[i]], v[a[i]]);
        v[d[i]] = if RELOAD { rot16_by_shuffle(x) } else { rot16(x, masks) };
    }
    for i in 0..4 {
        v[c[i]] = add(v[c[i]], v[d[i]]);
    }
    for i in 0..4 {
        v[b[i]] = rot12(xor(v[b[i]], v[c[i]]));
    }
    for i in 0..4 {
        v[a[i]] = add(add(v[a[i]], word::<RELOAD>(m, y[i])), v[b[i]]);
    }
    for i in 0..4 {
        let x = xor(v[d[i]], v[a[i]]);
        v[d[i]] = if RELOAD { rot8_by_shuffle(x) } else { rot8(x, masks) };
    }
    for i in 0..4 {
        v[c[i]] = add(v[c[i]], v[d[i]]);
    }
    for i in 0..4 {
        v[b[i]] = rot7(xor(v[b[i]], v[c[i]]));
    }
}

/// The compression's seven rounds, unrolled by hand as in portable.rs.
// Inlined into hash4 and xof4 alike. Tried one out-of-line copy for both
// (4.7 KB less wasm, 0.85 KB less gzip): 0.87x at 4 KiB-1 MiB in Node 20
// (bench/kernel-ab.mjs, 15 alternating rounds), the state passing through
// memory at every block.
#[inline(always)]
fn seven_rounds<const RELOAD: bool>(v: &mut [v128; 16], m: &[v128; 16], masks: &Masks) {
    if RELOAD {
        // A loop, not unrolled: JavaScriptCore hashed 2.5x faster so (Bun
        // 1.4.5: 1,461 against 573 MB/s at 64 KiB), the reloads alone
        // changed nothing.
        for r in 0..7 {
            round::<true>(v, m, r, masks);
        }
        return;
    }
    round::<RELOAD>(v, m, 0, masks);
    round::<RELOAD>(v, m, 1, masks);
    round::<RELOAD>(v, m, 2, masks);
    round::<RELOAD>(v, m, 3, masks);
    round::<RELOAD>(v, m, 4, masks);
    round::<RELOAD>(v, m, 5, masks);
    round::<RELOAD>(v, m, 6, masks);
}

/// Rows to columns: lane j of output i is lane i of input j.
#[inline(always)]
fn transpose(a: v128, b: v128, c: v128, d: v128) -> [v128; 4] {
    let ab_01 = i32x4_shuffle::<0, 4, 1, 5>(a, b);
    let ab_23 = i32x4_shuffle::<2, 6, 3, 7>(a, b);
    let cd_01 = i32x4_shuffle::<0, 4, 1, 5>(c, d);
    let cd_23 = i32x4_shuffle::<2, 6, 3, 7>(c, d);
    [
        i64x2_shuffle::<0, 2>(ab_01, cd_01),
        i64x2_shuffle::<1, 3>(ab_01, cd_01),
        i64x2_shuffle::<0, 2>(ab_23, cd_23),
        i64x2_shuffle::<1, 3>(ab_23, cd_23),
    ]
}

/// Message word i of block `offset / 64` of each input, as vector i.
#[inline(always)]
unsafe fn load_message(inputs: &[*const u8; DEGREE], offset: usize) -> [v128; 16] {
    let mut m = [splat(0); 16];
    for q in 0..4 {
        let [a, b, c, d] = inputs.map(|p| unsafe { v128_load(p.add(offset + 16 * q).cast()) });
        let t = transpose(a, b, c, d);
        m[4 * q..4 * q + 4].copy_from_slice(&t);
    }
    m
}

/// `hash4`'s `start` for inputs that start at their first block.
const FROM_KEY: *const Words = core::ptr::null();

/// Hashes `blocks` blocks of four inputs side by side and stores the four
/// resulting chaining values at `out[0..4]`. Reads every block before the
/// stores, so `out` may overlap the inputs (parents are merged in place).
/// The lanes start from `key`, or, unless `start` is null, from the four
/// chaining values there (inputs that go on from earlier blocks, see
/// `hash4_open`).
///
/// # Safety
/// Each input must be readable for `blocks * 64` bytes and `out` writable for
/// four chaining values; `start` null or readable for four.
// Two copies, one per message strategy (`super::reload_message`), each out
// of line: it serves chunks and parents, and the call is nothing next to a
// 16-block chunk.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn hash4(
    inputs: &[*const u8; DEGREE],
    blocks: usize,
    key: &Words,
    counter: u64,
    increment: bool,
    flags: u32,
    flags_start: u32,
    flags_end: u32,
    out: *mut Words,
    start: *const Words,
) {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        if super::reload_message() {
            hash4_with::<true>(inputs, blocks, key, counter, increment, flags, flags_start, flags_end, out, start)
        } else {
            hash4_with::<false>(inputs, blocks, key, counter, increment, flags, flags_start, flags_end, out, start)
        }
    }
}

/// `hash4` with the message vectors kept live or, with `RELOAD`, re-read.
///
/// # Safety
/// As `hash4`.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn hash4_with<const RELOAD: bool>(
    inputs: &[*const u8; DEGREE],
    blocks: usize,
    key: &Words,
    counter: u64,
    increment: bool,
    flags: u32,
    flags_start: u32,
    flags_end: u32,
    out: *mut Words,
    start: *const Words,
) {
    // The JavaScriptCore copy rotates by shuffles (lanes.rs).
    let masks = if RELOAD { Masks::UNUSED } else { Masks::load() };
    let mut h = key.map(splat);
    if !start.is_null() {
        // Lane j's words in vector j, transposed to word i in vector i.
        let lanes = [0, 1, 2, 3].map(|j| unsafe { start.add(j) }.cast::<v128>());
        let [a, b, c, d] = lanes.map(|p| unsafe { v128_load(p) });
        let [e, f, g, k] = lanes.map(|p| unsafe { v128_load(p.add(1)) });
        let ([w0, w1, w2, w3], [w4, w5, w6, w7]) = (transpose(a, b, c, d), transpose(e, f, g, k));
        h = [w0, w1, w2, w3, w4, w5, w6, w7];
    }
    let step = increment as u64;
    let counters = [0, 1, 2, 3].map(|j| counter.wrapping_add(j * step));
    let counter_lo = u32x4(counters[0] as u32, counters[1] as u32, counters[2] as u32, counters[3] as u32);
    let counter_hi = u32x4((counters[0] >> 32) as u32, (counters[1] >> 32) as u32, (counters[2] >> 32) as u32, (counters[3] >> 32) as u32);
    let mut block_flags = flags | flags_start;
    for block in 0..blocks {
        if block + 1 == blocks {
            block_flags |= flags_end;
        }
        let m = unsafe { load_message(inputs, block * BLOCK_LEN) };
        #[rustfmt::skip]
        let mut v = [
            h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7],
            splat(IV[0]), splat(IV[1]), splat(IV[2]), splat(IV[3]),
            counter_lo, counter_hi, splat(BLOCK_LEN as u32), splat(block_flags),
        ];
        seven_rounds::<RELOAD>(&mut v, &m, &masks);
        for i in 0..8 {
            h[i] = xor(v[i], v[i + 8]);
        }
        block_flags = flags;
    }
    let low = transpose(h[0], h[1], h[2], h[3]);
    let high = transpose(h[4], h[5], h[6], h[7]);
    for j in 0..DEGREE {
        let dst: *mut v128 = unsafe { out.add(j) }.cast();
        unsafe {
            v128_store(dst, low[j]);
            v128_store(dst.add(1), high[j]);
        }
    }
}

/// Four consecutive 64-byte blocks of root output, from block `counter` on:
/// the root node compressed with four counters side by side (upstream's
/// `xof_many`). Only the counter differs between the lanes, so the message
/// words and the chaining value are splats.
pub fn xof4(cv: &Words, block: &[u8; BLOCK_LEN], block_len: u32, counter: u64, flags: u32, out: &mut [u8; DEGREE * BLOCK_LEN]) {
    let masks = Masks::load();
    let mut m = [splat(0); 16];
    for (word, bytes) in m.iter_mut().zip(block.as_chunks::<4>().0) {
        *word = splat(u32::from_le_bytes(*bytes));
    }
    let h = cv.map(splat);
    let counters = [0, 1, 2, 3].map(|j| counter.wrapping_add(j));
    #[rustfmt::skip]
    let mut v = [
        h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7],
        splat(IV[0]), splat(IV[1]), splat(IV[2]), splat(IV[3]),
        u32x4(counters[0] as u32, counters[1] as u32, counters[2] as u32, counters[3] as u32),
        u32x4((counters[0] >> 32) as u32, (counters[1] >> 32) as u32, (counters[2] >> 32) as u32, (counters[3] >> 32) as u32),
        splat(block_len), splat(flags),
    ];
    seven_rounds::<false>(&mut v, &m, &masks);
    // Output words 0-7 are v[i] ^ v[i + 8], words 8-15 are v[i + 8] ^ cv[i];
    // transposed, each lane's 16 words become its 64 bytes.
    let w = [0, 1, 2, 3, 4, 5, 6, 7].map(|i| xor(v[i], v[i + 8]));
    let x = [0, 1, 2, 3, 4, 5, 6, 7].map(|i| xor(v[i + 8], h[i]));
    let quarters = [
        transpose(w[0], w[1], w[2], w[3]),
        transpose(w[4], w[5], w[6], w[7]),
        transpose(x[0], x[1], x[2], x[3]),
        transpose(x[4], x[5], x[6], x[7]),
    ];
    for (lane, bytes) in out.as_chunks_mut::<BLOCK_LEN>().0.iter_mut().enumerate() {
        for (q, quarter) in bytes.as_chunks_mut::<16>().0.iter_mut().zip(&quarters) {
            // SAFETY: 16 bytes written into a 16-byte array.
            unsafe { v128_store(q.as_mut_ptr().cast(), quarter[lane]) };
        }
    }
}

/// `hash4` of four separate inputs, all at `counter` (chunk `counter` of
/// each, or parents and roots at 0).
///
/// # Safety
/// As `hash4`.
#[allow(clippy::too_many_arguments)]
pub unsafe fn hash4_same_counter(
    inputs: &[*const u8; DEGREE],
    blocks: usize,
    key: &Words,
    counter: u64,
    flags: u32,
    flags_start: u32,
    flags_end: u32,
    out: *mut Words,
) {
    unsafe { hash4(inputs, blocks, key, counter, false, flags, flags_start, flags_end, out, FROM_KEY) }
}

/// The chaining values of four whole chunks from `counter`, and the last
/// one's before its last block: the last group of an update whose final
/// chunk stays open (kernel `hash_chunks_but_last`). Two calls, 15 blocks
/// then the last: taking the open value inside hash4's loop instead (a
/// pointer checked at the last block) slowed every hash4: raw updates of
/// 4-64 KiB ran at 0.91-0.96x of this.
pub fn hash4_open(group: &[[u8; CHUNK_LEN]; DEGREE], key: &Words, counter: u64, flags: u32) -> ([Words; DEGREE], Words) {
    let open_blocks = CHUNK_LEN / BLOCK_LEN - 1;
    let inputs = group.each_ref().map(|chunk| chunk.as_ptr());
    let mut open = [[0; 8]; DEGREE];
    let mut cvs = [[0; 8]; DEGREE];
    // SAFETY: four whole chunks in (15 blocks, then the 16th from each
    // one's offset 960), four chaining values out each time.
    unsafe {
        hash4(&inputs, open_blocks, key, counter, true, flags, CHUNK_START, 0, open.as_mut_ptr(), FROM_KEY);
        let last = inputs.map(|p| p.add(open_blocks * BLOCK_LEN));
        hash4(&last, 1, key, counter, true, flags, 0, CHUNK_END, cvs.as_mut_ptr(), open.as_ptr());
    }
    (cvs, open[3])
}

/// Chaining values of `chunks` into `out`, four at a time (and a leftover
/// two or three side by side); returns how many it did: all but a last
/// single chunk, which the caller hashes on the single-block code.
pub fn hash_chunks(chunks: &[[u8; CHUNK_LEN]], key: &Words, mut counter: u64, flags: u32, out: &mut [Words]) -> usize {
    let mut groups = chunks.as_chunks::<DEGREE>().0.iter().zip(out.as_chunks_mut::<DEGREE>().0);
    let mut done = 0;
    for (group, cvs) in &mut groups {
        let inputs = group.each_ref().map(|chunk| chunk.as_ptr());
        // SAFETY: four whole chunks in, four chaining values out.
        unsafe { hash4(&inputs, CHUNK_LEN / BLOCK_LEN, key, counter, true, flags, CHUNK_START, CHUNK_END, cvs.as_mut_ptr(), FROM_KEY) };
        counter += DEGREE as u64;
        done += DEGREE;
    }
    let (Some(rest), Some(rest_out)) = (chunks.get(done..), out.get_mut(done..)) else { return done };
    if let ([a, b], [ca, cb, ..]) = (rest, &mut *rest_out) {
        [*ca, *cb] = super::rows::hash_chunk_pair(a, b, key, counter, flags, false);
        return done + 2;
    }
    // Three chunks left: one hash4 with a repeated lane beats three single
    // chunks; two go side by side in rows.rs (4 lanes cost ~2.4 portable
    // chunks).
    if let ([a, b, c], [ca, cb, cc, ..]) = (rest, &mut *rest_out) {
        let inputs = [a.as_ptr(), b.as_ptr(), c.as_ptr(), c.as_ptr()];
        let mut cvs = [[0; 8]; DEGREE];
        // SAFETY: four readable chunks in, four chaining values out.
        unsafe { hash4(&inputs, CHUNK_LEN / BLOCK_LEN, key, counter, true, flags, CHUNK_START, CHUNK_END, cvs.as_mut_ptr(), FROM_KEY) };
        [*ca, *cb, *cc] = [cvs[0], cvs[1], cvs[2]];
        return done + 3;
    }
    done
}

/// Replaces parents of pairs in groups of four, in place; returns how many
/// pairs it did (the caller does the rest).
pub fn hash_parents(cvs: &mut [Words], key: &Words, flags: u32) -> usize {
    let pairs = cvs.len() / 2;
    let groups = pairs / DEGREE;
    let cv_ptr = cvs.as_mut_ptr();
    for g in 0..groups {
        // SAFETY: pairs 4g..4g+4 (CVs 8g..8g+8) are read before CVs 4g..4g+4
        // are written, all within `cvs`.
        unsafe {
            let base: *const u8 = cv_ptr.add(2 * DEGREE * g).cast();
            let inputs = [0, 1, 2, 3].map(|j| base.add(j * BLOCK_LEN));
            hash4(&inputs, 1, key, 0, false, flags | PARENT, 0, 0, cv_ptr.add(DEGREE * g), FROM_KEY);
        }
    }
    groups * DEGREE
}
