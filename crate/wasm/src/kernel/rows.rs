//! One block's compression with the state as four v128 rows (the layout of
//! upstream's SSE4.1 `compress_pre`): the four column G functions run side
//! by side in the lanes, then the rows are rotated so the diagonals line up
//! as columns. The SIMD build's single blocks (chunk states, single
//! chunks, parents on the CV stack, root output) run it; before, they ran
//! portable.rs, which Chromium 156 ran at 0.77-0.85x of Node 20 (V8 11.3)
//! at 64 B-1 KiB: its 16 state and 16 message words don't fit x64's
//! registers, and the newer V8 spills worse.
//!
//! `hash()` of the SIMD module, MB/s medians of 15 alternating rounds in
//! one process, 2-core AMD EPYC shared with other jobs (compare ratios):
//! portable single blocks (before) and this file (after). Chromium:
//! `node bench/kernel-ab-chromium.mjs A.wasm B.wasm`; Node: `node
//! bench/kernel-ab.mjs A.wasm B.wasm`.
//!
//! | size   | Chromium before | after | ratio | Node before | after | ratio |
//! |-------:|----------------:|------:|------:|------------:|------:|------:|
//! | 64 B   |             331 |   408 |  1.23 |         386 |   426 |  1.10 |
//! | 256 B  |             533 |   656 |  1.23 |         633 |   673 |  1.06 |
//! | 1 KiB  |             616 |   816 |  1.33 |         778 |   805 |  1.04 |
//! | 4 KiB  |           1,740 | 1,819 |  1.05 |       1,915 | 1,958 |  1.02 |
//! | 64 KiB |           1,935 | 1,935 |  1.00 |       2,207 | 2,179 |  0.99 |
//!
//! What mattered (Chromium, 1 KiB, ratio to portable):
//! - message vectors built per round from scalar words (`u32x4`, 16
//!   `replace_lane`s a round): 1.07-1.10x;
//! - rot8 and rot16 by the swizzle masks of wasm_simd.rs (`Masks`) instead
//!   of constant shuffles: 1.12-1.14x;
//! - the message loaded once as four v128 and carried from round to round
//!   by `permute` (7 shuffles a round, all in registers): 1.33-1.35x; in
//!   Node 0.90x became 1.04x.
//! - Tried, no change: each round's first add as `(a + m) + b`, off b's
//!   dependency chain (LLVM reassociates it anyway); the seven rounds
//!   unrolled by hand instead of LLVM's loop (0.98-1.00x); a chunk's
//!   chaining value kept in two rows from block to block instead of
//!   stored and reloaded (1.00x at 1-2 KiB).
//!
//! Two leftover chunks (after the groups of four that wasm_simd.rs hashes,
//! and a whole 2 KiB input), or one and the input's partial last chunk, run
//! side by side in `hash_chunk_pair`, each compression's dependency chain
//! in the other's latency. Against both through `compress`, same harnesses,
//! Chromium / Node: 2 KiB 1.44x / 1.38x, 2 KiB - 1 1.47x / 1.42x, 1.5 KiB
//! 1.24x / 1.23x, 5.5 KiB 1.12x / 1.10x, 6 KiB 1.19x / 1.20x, other sizes
//! 1.00x; 4.1 KB more wasm (1.5 KB gzip). (A loop for two whole chunks only
//! was 1.09x faster at 2 KiB in Node, 1.00x in Chromium: not kept, one
//! copy serves both.)

use super::lanes::{rot12, rot16, rot7, rot8, Masks};
use super::spec::{Words, BLOCK_LEN, CHUNK_END, CHUNK_LEN, CHUNK_START, IV};
use core::arch::wasm32::*;

/// Four G functions at once: lane i of each row is one G's a, b, c or d.
#[inline(always)]
fn g(rows: &mut [v128; 4], x: v128, y: v128, masks: &Masks) {
    let [mut a, mut b, mut c, mut d] = *rows;
    a = i32x4_add(i32x4_add(a, b), x);
    d = rot16(v128_xor(d, a), masks);
    c = i32x4_add(c, d);
    b = rot12(v128_xor(b, c));
    a = i32x4_add(i32x4_add(a, b), y);
    d = rot8(v128_xor(d, a), masks);
    c = i32x4_add(c, d);
    b = rot7(v128_xor(b, c));
    *rows = [a, b, c, d];
}

/// One round. `msg` holds the round's message words as G takes them:
/// columns' first and second words, diagonals' first and second words
/// (in the diagonal lane order below).
#[inline(always)]
fn round(rows: &mut [v128; 4], msg: &[v128; 4], masks: &Masks) {
    g(rows, msg[0], msg[1], masks);
    diagonalize(rows);
    g(rows, msg[2], msg[3], masks);
    undiagonalize(rows);
}

/// Row b stays; a, c and d turn so that lane i holds the diagonal G of
/// words (3+i, 4+i, 9+i, 14+i) mod their row: lane 0 is the fourth
/// diagonal G, lanes 1-3 the first three.
#[inline(always)]
fn diagonalize(rows: &mut [v128; 4]) {
    rows[0] = i32x4_shuffle::<3, 0, 1, 2>(rows[0], rows[0]);
    rows[2] = i32x4_shuffle::<1, 2, 3, 0>(rows[2], rows[2]);
    rows[3] = i32x4_shuffle::<2, 3, 0, 1>(rows[3], rows[3]);
}

#[inline(always)]
fn undiagonalize(rows: &mut [v128; 4]) {
    rows[0] = i32x4_shuffle::<1, 2, 3, 0>(rows[0], rows[0]);
    rows[2] = i32x4_shuffle::<3, 0, 1, 2>(rows[2], rows[2]);
    rows[3] = i32x4_shuffle::<2, 3, 0, 1>(rows[3], rows[3]);
}

/// The state before round 0: the chaining value, the IV, the counter and
/// the block's length and flags.
#[inline(always)]
fn start([low, high]: [v128; 2], block_len: u32, counter: u64, flags: u32) -> [v128; 4] {
    [low, high, u32x4(IV[0], IV[1], IV[2], IV[3]), u32x4(counter as u32, (counter >> 32) as u32, block_len, flags)]
}

/// The next round's message vectors: the spec's permutation moves each
/// word to the same (vector, lane) every round, so it is a fixed set of
/// shuffles (checked against MSG_SCHEDULE in the tests through the digests).
#[inline(always)]
fn permute([x, y, dx, dy]: [v128; 4]) -> [v128; 4] {
    let t1 = i32x4_shuffle::<3, 6, 0, 0>(x, dx);
    let t2 = i32x4_shuffle::<0, 0, 7, 1>(dy, dx);
    let t3 = i32x4_shuffle::<1, 6, 2, 0>(dx, dy);
    [
        i32x4_shuffle::<1, 5, 7, 2>(x, y),
        i32x4_shuffle::<0, 1, 2, 7>(t1, dy),
        i32x4_shuffle::<0, 4, 2, 3>(t2, y),
        i32x4_shuffle::<0, 1, 6, 3>(t3, y),
    ]
}

/// The state after the seven rounds, as rows, before the feed-forward. One
/// out-of-line copy serves both entry points.
#[inline(never)]
fn compress(cv: [v128; 2], block: &[u8; BLOCK_LEN], block_len: u32, counter: u64, flags: u32) -> [v128; 4] {
    let masks = Masks::load();
    let mut msg = message(block);
    let mut rows = start(cv, block_len, counter, flags);
    round(&mut rows, &msg, &masks);
    for _ in 1..7 {
        msg = permute(msg);
        round(&mut rows, &msg, &masks);
    }
    rows
}

/// A chaining value (or key) as two rows.
#[inline(always)]
fn load(cv: &Words) -> [v128; 2] {
    let p: *const v128 = cv.as_ptr().cast();
    // SAFETY: two 16-byte loads from the 32 bytes of `cv`.
    unsafe { [v128_load(p), v128_load(p.add(1))] }
}

/// Two rows back to a chaining value.
#[inline(always)]
fn store([low, high]: [v128; 2]) -> Words {
    let mut out = [0; 8];
    let p: *mut v128 = out.as_mut_ptr().cast();
    // SAFETY: two 16-byte stores into 32 bytes.
    unsafe {
        v128_store(p, low);
        v128_store(p.add(1), high);
    }
    out
}

/// The feed-forward of a chaining value: the state's two halves xored.
#[inline(always)]
fn chaining_value([a, b, c, d]: [v128; 4]) -> [v128; 2] {
    [v128_xor(a, c), v128_xor(b, d)]
}

#[inline(always)]
pub fn compress_in_place(cv: &mut Words, block: &[u8; BLOCK_LEN], block_len: u32, counter: u64, flags: u32) {
    *cv = store(chaining_value(compress(load(cv), block, block_len, counter, flags)));
}

#[inline(always)]
pub fn compress_xof(cv: &Words, block: &[u8; BLOCK_LEN], block_len: u32, counter: u64, flags: u32) -> [u8; BLOCK_LEN] {
    let [low, high] = load(cv);
    let [a, b, c, d] = compress([low, high], block, block_len, counter, flags);
    let mut out = [0; BLOCK_LEN];
    let q: *mut v128 = out.as_mut_ptr().cast();
    // SAFETY: four 16-byte stores into 64 bytes.
    unsafe {
        v128_store(q, v128_xor(a, c));
        v128_store(q.add(1), v128_xor(b, d));
        v128_store(q.add(2), v128_xor(c, low));
        v128_store(q.add(3), v128_xor(d, high));
    }
    out
}

/// `g` on two independent states, step by step: each one's dependency
/// chain runs in the other's latency.
#[inline(always)]
fn g_pair(rows: &mut [[v128; 4]; 2], x: [v128; 2], y: [v128; 2], masks: &Masks) {
    for k in 0..2 {
        rows[k][0] = i32x4_add(i32x4_add(rows[k][0], rows[k][1]), x[k]);
    }
    for row in rows.iter_mut() {
        row[3] = rot16(v128_xor(row[3], row[0]), masks);
    }
    for row in rows.iter_mut() {
        row[2] = i32x4_add(row[2], row[3]);
    }
    for row in rows.iter_mut() {
        row[1] = rot12(v128_xor(row[1], row[2]));
    }
    for k in 0..2 {
        rows[k][0] = i32x4_add(i32x4_add(rows[k][0], rows[k][1]), y[k]);
    }
    for row in rows.iter_mut() {
        row[3] = rot8(v128_xor(row[3], row[0]), masks);
    }
    for row in rows.iter_mut() {
        row[2] = i32x4_add(row[2], row[3]);
    }
    for row in rows.iter_mut() {
        row[1] = rot7(v128_xor(row[1], row[2]));
    }
}

#[inline(always)]
fn round_pair(rows: &mut [[v128; 4]; 2], msg: &[[v128; 4]; 2], masks: &Masks) {
    g_pair(rows, [msg[0][0], msg[1][0]], [msg[0][1], msg[1][1]], masks);
    rows.iter_mut().for_each(diagonalize);
    g_pair(rows, [msg[0][2], msg[1][2]], [msg[0][3], msg[1][3]], masks);
    rows.iter_mut().for_each(undiagonalize);
}

/// A block's message vectors for round 0.
#[inline(always)]
fn message(block: &[u8; BLOCK_LEN]) -> [v128; 4] {
    let p: *const v128 = block.as_ptr().cast();
    // SAFETY: four 16-byte loads from 64 bytes (no alignment needed).
    let [m0, m1, m2, m3] = unsafe { [v128_load(p), v128_load(p.add(1)), v128_load(p.add(2)), v128_load(p.add(3))] };
    [
        i32x4_shuffle::<0, 2, 4, 6>(m0, m1),
        i32x4_shuffle::<1, 3, 5, 7>(m0, m1),
        i32x4_shuffle::<6, 0, 2, 4>(m2, m3),
        i32x4_shuffle::<7, 1, 3, 5>(m2, m3),
    ]
}

/// Two compressions side by side (see `hash_chunk_pair`).
#[inline(always)]
fn compress_pair(
    cvs: [[v128; 2]; 2],
    blocks: [&[u8; BLOCK_LEN]; 2],
    block_lens: [u32; 2],
    counters: [u64; 2],
    flags: [u32; 2],
) -> [[v128; 4]; 2] {
    let masks = Masks::load();
    let mut msg = blocks.map(message);
    let mut rows = [0, 1].map(|k| start(cvs[k], block_lens[k], counters[k], flags[k]));
    round_pair(&mut rows, &msg, &masks);
    for _ in 1..7 {
        msg = msg.map(permute);
        round_pair(&mut rows, &msg, &masks);
    }
    rows
}

/// The chaining values of a whole chunk, numbered `counter`, and of the
/// chunk after it, `second` (1 to 1024 bytes: whole, or the input's last
/// one), hashed side by side; neither is a root. With `second_open`, the
/// second's blocks are the start of a chunk that goes on (no end flag).
#[inline(never)]
pub fn hash_chunk_pair(first: &[u8; CHUNK_LEN], second: &[u8], key: &Words, counter: u64, flags: u32, second_open: bool) -> [Words; 2] {
    let mut cvs = [load(key); 2];
    let (whole, rest) = second.as_chunks::<BLOCK_LEN>();
    let mut tail = [0; BLOCK_LEN];
    for (byte, from) in tail.iter_mut().zip(rest) {
        *byte = *from;
    }
    let tail = (!rest.is_empty()).then_some((&tail, rest.len() as u32));
    let second_blocks = whole.iter().map(|block| (block, BLOCK_LEN as u32)).chain(tail);
    let second_count = whole.len() + tail.is_some() as usize;
    let chunk_flags = |i: usize, count: usize| {
        let start = if i == 0 { CHUNK_START } else { 0 };
        let end = if i + 1 == count { CHUNK_END } else { 0 };
        flags | start | end
    };
    let blocks = first.as_chunks::<BLOCK_LEN>().0;
    let counters = [counter, counter.wrapping_add(1)];
    // Side by side while the second chunk lasts, then the first alone.
    for (i, (block, (other, other_len))) in blocks.iter().zip(second_blocks).enumerate() {
        let flags = [chunk_flags(i, blocks.len()), chunk_flags(i, second_count + second_open as usize)];
        cvs = compress_pair(cvs, [block, other], [BLOCK_LEN as u32, other_len], counters, flags).map(chaining_value);
    }
    for (i, block) in blocks.iter().enumerate().skip(second_count) {
        cvs[0] = chaining_value(compress(cvs[0], block, BLOCK_LEN as u32, counter, chunk_flags(i, blocks.len())));
    }
    cvs.map(store)
}
