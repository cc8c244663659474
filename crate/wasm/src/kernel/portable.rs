//! The portable kernel: BLAKE3's compression on eight `u32` locals per row,
//! all seven rounds unrolled. The scalar build uses it for everything; in
//! the SIMD build single blocks run here or in rows.rs, whichever JS
//! measured faster at start-up (see mod.rs; rows.rs has the Chromium finding
//! below).
//!
//! Measured with `node bench/kernel-ab.mjs` (Node 20.20, 2-core AMD EPYC
//! shared with other jobs; MB/s medians of 25 alternating rounds in one
//! process, so compare ratios): `hash()` of the scalar module built on the
//! official crate 1.8.7 and of this one. The SIMD build's table is in
//! wasm_simd.rs; its inputs up to 1 KiB run this code too.
//!
//! | size   | official | ours | ours/official |
//! |-------:|---------:|-----:|--------------:|
//! | 64 B   |      331 |  386 |          1.16 |
//! | 256 B  |      586 |  680 |          1.16 |
//! | 1 KiB  |      862 |  868 |          1.01 |
//! | 4 KiB  |      861 |  940 |          1.09 |
//! | 16 KiB |      819 |  855 |          1.04 |
//! | 64 KiB |      944 |  950 |          1.01 |
//! | 1 MiB  |     1043 | 1043 |          1.00 |
//!
//! (In a calmer moment the same module did 463 MB/s at 64 B, 764 at 256 B
//! and 974 at 1 KiB.)
//!
//! Small inputs gain from the tree (no `Hasher` set-up, a single-block
//! path), not from this code: the rounds are upstream's portable ones.
//!
//! Chromium ran this code slower than Node at 64 B-1 KiB (0.77-0.85x the
//! same module's Node rate); rows.rs, which replaced it in the SIMD build,
//! has the numbers and what fixed that there.
//!
//! Tried and rejected:
//! - one inlined copy of the rounds in each of `compress_in_place` and
//!   `compress_xof` (+3.5 KB): 0.85x at 256 B and 0.9x at 512 B, where both
//!   are hot in turn (instruction cache); bulk chunks get their own copy
//!   in the scalar build only (`compress_chunk_block`), 1.1-1.25x at 64 KiB;
//! - reading each message word from the block at every use, so that V8 can
//!   fold the loads into the adds: 1.21x the instructions at 64 KiB
//!   (callgrind).

use super::spec::{Words, BLOCK_LEN, IV, MSG_SCHEDULE};
#[cfg(not(blake3_kit_simd))]
use super::spec::{CHUNK_END, CHUNK_LEN, CHUNK_START};

#[inline(always)]
fn g(v: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize, x: u32, y: u32) {
    v[a] = v[a].wrapping_add(v[b]).wrapping_add(x);
    v[d] = (v[d] ^ v[a]).rotate_right(16);
    v[c] = v[c].wrapping_add(v[d]);
    v[b] = (v[b] ^ v[c]).rotate_right(12);
    v[a] = v[a].wrapping_add(v[b]).wrapping_add(y);
    v[d] = (v[d] ^ v[a]).rotate_right(8);
    v[c] = v[c].wrapping_add(v[d]);
    v[b] = (v[b] ^ v[c]).rotate_right(7);
}

#[inline(always)]
fn round(v: &mut [u32; 16], m: &[u32; 16], r: usize) {
    let s = &MSG_SCHEDULE[r];
    // Columns, then diagonals.
    g(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
    g(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
    g(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
    g(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
    g(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
    g(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
    g(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
    g(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
}

/// The state after the seven rounds, before the feed-forward.
#[inline(always)]
fn rounds(cv: &Words, m: &[u32; 16], block_len: u32, counter: u64, flags: u32) -> [u32; 16] {
    #[rustfmt::skip]
    let mut v = [
        cv[0], cv[1], cv[2], cv[3], cv[4], cv[5], cv[6], cv[7],
        IV[0], IV[1], IV[2], IV[3], counter as u32, (counter >> 32) as u32, block_len, flags,
    ];
    // Seven calls rather than a loop: with a constant round number the
    // schedule lookups fold into plain locals (a loop stays rolled, and reads
    // the schedule from memory).
    round(&mut v, m, 0);
    round(&mut v, m, 1);
    round(&mut v, m, 2);
    round(&mut v, m, 3);
    round(&mut v, m, 4);
    round(&mut v, m, 5);
    round(&mut v, m, 6);
    v
}

/// The message words of a block: one (unaligned) `i32.load` each in wasm.
/// (Tried: reading each word from the block at every use, so that V8 could
/// fold the loads into the adds: 1.21x the instructions at 64 KiB.)
#[inline(always)]
fn message(block: &[u8; BLOCK_LEN]) -> [u32; 16] {
    let mut m = [0; 16];
    for (word, bytes) in m.iter_mut().zip(block.as_chunks::<4>().0) {
        *word = u32::from_le_bytes(*bytes);
    }
    m
}

// One out-of-line copy of the rounds serves both entry points. Tried: a
// copy inlined into each (3.5 KB of wasm more): 0.85x at 256 B and 0.9x at
// 512 B, where both are hot in turn (instruction cache), and no measurable
// gain at 64 KiB.
#[inline(never)]
fn compress(cv: &Words, m: &[u32; 16], block_len: u32, counter: u64, flags: u32) -> [u32; 16] {
    rounds(cv, m, block_len, counter, flags)
}

#[inline(always)]
pub fn compress_in_place(cv: &mut Words, block: &[u8; BLOCK_LEN], block_len: u32, counter: u64, flags: u32) {
    let v = compress(cv, &message(block), block_len, counter, flags);
    for i in 0..8 {
        cv[i] = v[i] ^ v[i + 8];
    }
}

#[inline(always)]
pub fn compress_xof(cv: &Words, block: &[u8; BLOCK_LEN], block_len: u32, counter: u64, flags: u32) -> [u8; BLOCK_LEN] {
    let v = compress(cv, &message(block), block_len, counter, flags);
    let mut out = [0; BLOCK_LEN];
    let (low, high) = out.as_chunks_mut::<4>().0.split_at_mut(8);
    for i in 0..8 {
        low[i] = (v[i] ^ v[i + 8]).to_le_bytes();
        high[i] = (v[i + 8] ^ cv[i]).to_le_bytes();
    }
    out
}

/// The chaining value of one whole chunk.
#[cfg(not(blake3_kit_simd))]
fn hash_chunk(chunk: &[u8; CHUNK_LEN], key: &Words, counter: u64, flags: u32) -> Words {
    let mut cv = *key;
    for (i, block) in chunk.as_chunks::<BLOCK_LEN>().0.iter().enumerate() {
        let mut block_flags = flags;
        if i == 0 {
            block_flags |= CHUNK_START;
        }
        if i == CHUNK_LEN / BLOCK_LEN - 1 {
            block_flags |= CHUNK_END;
        }
        compress_chunk_block(&mut cv, block, counter, block_flags);
    }
    cv
}

/// Bulk chunk hashing in the scalar build: its own inlined copy of the
/// rounds with the chaining value updated in place, as the hot loop of large
/// inputs. (The SIMD build hashes chunks four at a time, and a last single
/// chunk on the single-block code JS chose: mod.rs.)
#[cfg(not(blake3_kit_simd))]
#[inline(never)]
fn compress_chunk_block(cv: &mut Words, block: &[u8; BLOCK_LEN], counter: u64, flags: u32) {
    let v = rounds(cv, &message(block), BLOCK_LEN as u32, counter, flags);
    for i in 0..8 {
        cv[i] = v[i] ^ v[i + 8];
    }
}

/// Chaining values of whole chunks (the scalar build's bulk path).
#[cfg(not(blake3_kit_simd))]
pub fn hash_chunks(chunks: &[[u8; CHUNK_LEN]], key: &Words, counter: u64, flags: u32, out: &mut [Words]) {
    for (i, (chunk, cv)) in chunks.iter().zip(out.iter_mut()).enumerate() {
        *cv = hash_chunk(chunk, key, counter + i as u64, flags);
    }
}
