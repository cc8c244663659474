//! The BLAKE3 compression kernels, one file per instruction set, each with the
//! same four functions, dispatched through the `Kernel` enum (the pattern of
//! upstream's `platform.rs`):
//!
//! - `compress_in_place` / `compress_xof`: one block, for chunk states, parent
//!   merges on the CV stack and root output;
//! - `hash_chunks`: whole 1 KiB chunks to chaining values;
//! - `hash_parents`: pairs of chaining values to their parents, in place.
//!
//! `portable.rs` is plain `u32` code, the scalar build's whole kernel.
//! The SIMD build compresses four chunks or parents at once in
//! `wasm_simd.rs`, and single blocks either row-wise in `rows.rs` (as
//! upstream's SSE4.1 code does) or on `u32` words in `portable.rs`: which
//! one is faster depends on the host and the engine (rows 1.1x words in V8
//! and 2.8x in JavaScriptCore on an Intel Xeon, words about 1.85x rows on an
//! AMD Zen 5), so JS measures both at start-up (src/wasm/blocks.ts) and sets
//! the faster with `set_word_blocks`. Both in one module cost 2.4 KB of
//! wasm.

#[cfg(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128"))]
mod lanes;
pub mod portable;
#[cfg(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128"))]
pub mod rows;
#[cfg(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128"))]
pub mod wasm_simd;

pub const BLOCK_LEN: usize = 64;
pub const CHUNK_LEN: usize = 1024;

/// A chaining value or key as eight little-endian words.
pub type Words = [u32; 8];

pub const IV: Words = [0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19];

pub const CHUNK_START: u32 = 1 << 0;
pub const CHUNK_END: u32 = 1 << 1;
pub const PARENT: u32 = 1 << 2;
pub const ROOT: u32 = 1 << 3;
pub const KEYED_HASH: u32 = 1 << 4;
pub const DERIVE_KEY_CONTEXT: u32 = 1 << 5;
pub const DERIVE_KEY_MATERIAL: u32 = 1 << 6;

/// Which message word each round reads at each position: round 0 reads them
/// in order, and each later round applies the spec's permutation once more.
pub const MSG_SCHEDULE: [[usize; 16]; 7] = {
    const PERMUTATION: [usize; 16] = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8];
    let mut schedule = [[0; 16]; 7];
    let mut i = 0;
    while i < 16 {
        schedule[0][i] = i;
        i += 1;
    }
    let mut round = 1;
    while round < 7 {
        let mut i = 0;
        while i < 16 {
            schedule[round][i] = schedule[round - 1][PERMUTATION[i]];
            i += 1;
        }
        round += 1;
    }
    schedule
};

/// A parent node's block: its children's chaining values.
#[inline(always)]
pub fn parent_block(left: &Words, right: &Words) -> [u8; BLOCK_LEN] {
    let mut block = [0; BLOCK_LEN];
    for (bytes, word) in block.as_chunks_mut::<4>().0.iter_mut().zip(left.iter().chain(right)) {
        *bytes = word.to_le_bytes();
    }
    block
}

pub fn words_from_key(key: &[u8; 32]) -> Words {
    let mut words = [0; 8];
    for (word, bytes) in words.iter_mut().zip(key.chunks_exact(4)) {
        *word = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    }
    words
}

pub fn bytes_from_words(words: &Words) -> [u8; 32] {
    let mut bytes = [0; 32];
    for (chunk, word) in bytes.chunks_exact_mut(4).zip(words) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    bytes
}

/// Which code the SIMD build runs for single blocks (chunk states, single
/// chunks, parents, root output): row-wise v128 (`rows.rs`) or plain `u32`
/// words (`portable.rs`). Neither wins on every host and engine (see
/// `rows.rs`): JS times both at start-up and sets the faster here.
#[cfg(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128"))]
static WORD_BLOCKS: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);

/// Single blocks on `u32` words (true) or row-wise (false); returns whether
/// this build can do what was asked: the scalar build has only words.
pub fn set_word_blocks(words: bool) -> bool {
    #[cfg(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128"))]
    {
        WORD_BLOCKS.store(words, core::sync::atomic::Ordering::Relaxed);
        true
    }
    #[cfg(not(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128")))]
    words
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// The scalar build's only kernel.
    #[cfg(not(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128")))]
    Portable,
    /// Four chunks or parents at once in v128 lanes, single blocks row-wise.
    #[cfg(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128"))]
    Simd128,
    /// Four at once as `Simd128`, single blocks on `u32` words.
    #[cfg(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128"))]
    Simd128WordBlocks,
}

impl Kernel {
    /// The kernel this build runs: the scalar build's only one, or the SIMD
    /// build's with the single-block code JS chose (`set_word_blocks`).
    #[inline(always)]
    pub fn detect() -> Kernel {
        #[cfg(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128"))]
        let kernel = if WORD_BLOCKS.load(core::sync::atomic::Ordering::Relaxed) { Kernel::Simd128WordBlocks } else { Kernel::Simd128 };
        #[cfg(not(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128")))]
        let kernel = Kernel::Portable;
        kernel
    }

    /// Whether single blocks run on `u32` words.
    pub fn word_blocks(self) -> bool {
        #[cfg(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128"))]
        let words = self == Kernel::Simd128WordBlocks;
        #[cfg(not(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128")))]
        let words = true;
        words
    }

    /// Compresses one block into `cv`.
    #[inline(always)]
    pub fn compress_in_place(self, cv: &mut Words, block: &[u8; BLOCK_LEN], block_len: u32, counter: u64, flags: u32) {
        match self {
            #[cfg(not(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128")))]
            Kernel::Portable => portable::compress_in_place(cv, block, block_len, counter, flags),
            #[cfg(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128"))]
            Kernel::Simd128 => rows::compress_in_place(cv, block, block_len, counter, flags),
            #[cfg(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128"))]
            Kernel::Simd128WordBlocks => portable::compress_in_place(cv, block, block_len, counter, flags),
        }
    }

    /// The full 64-byte output of compressing one block (extended output).
    #[inline(always)]
    pub fn compress_xof(self, cv: &Words, block: &[u8; BLOCK_LEN], block_len: u32, counter: u64, flags: u32) -> [u8; BLOCK_LEN] {
        match self {
            #[cfg(not(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128")))]
            Kernel::Portable => portable::compress_xof(cv, block, block_len, counter, flags),
            #[cfg(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128"))]
            Kernel::Simd128 => rows::compress_xof(cv, block, block_len, counter, flags),
            #[cfg(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128"))]
            Kernel::Simd128WordBlocks => portable::compress_xof(cv, block, block_len, counter, flags),
        }
    }

    /// Four consecutive blocks of output, from block `counter` on, written
    /// straight into `out`.
    #[inline(always)]
    pub fn compress_xof4(
        self,
        cv: &Words,
        block: &[u8; BLOCK_LEN],
        block_len: u32,
        counter: u64,
        flags: u32,
        out: &mut [u8; 4 * BLOCK_LEN],
    ) {
        match self {
            #[cfg(not(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128")))]
            Kernel::Portable => {
                for (j, bytes) in out.as_chunks_mut::<BLOCK_LEN>().0.iter_mut().enumerate() {
                    *bytes = portable::compress_xof(cv, block, block_len, counter.wrapping_add(j as u64), flags);
                }
            }
            #[cfg(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128"))]
            Kernel::Simd128 | Kernel::Simd128WordBlocks => wasm_simd::xof4(cv, block, block_len, counter, flags, out),
        }
    }

    /// The parent chaining value of two children. Never a root.
    #[inline(always)]
    pub fn parent_cv(self, left: &Words, right: &Words, key: &Words, flags: u32) -> Words {
        portable::parent_cv(left, right, key, flags)
    }

    /// Chaining values of whole chunks, numbered from `counter`, into the
    /// first `min(chunks.len(), out.len())` entries of `out`. Never a root.
    #[inline(always)]
    pub fn hash_chunks(self, chunks: &[[u8; CHUNK_LEN]], key: &Words, counter: u64, flags: u32, out: &mut [Words]) {
        let input = chunks;
        match self {
            #[cfg(not(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128")))]
            Kernel::Portable => portable::hash_chunks(input, key, counter, flags, out),
            #[cfg(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128"))]
            Kernel::Simd128 | Kernel::Simd128WordBlocks => wasm_simd::hash_chunks(input, key, counter, flags, out),
        }
    }

    /// The chaining values of a whole chunk numbered `counter` and of the
    /// partial chunk after it, side by side where this kernel can (the SIMD
    /// build's row-wise pair); None where it cannot. Never a root.
    #[inline(always)]
    pub fn hash_chunk_and_tail(self, chunk: &[u8; CHUNK_LEN], tail: &[u8], key: &Words, counter: u64, flags: u32) -> Option<[Words; 2]> {
        match self {
            #[cfg(not(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128")))]
            Kernel::Portable => {
                let _ = (chunk, tail, key, counter, flags);
                None
            }
            #[cfg(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128"))]
            Kernel::Simd128 => Some(rows::hash_chunk_pair(chunk, tail, key, counter, flags)),
            #[cfg(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128"))]
            Kernel::Simd128WordBlocks => {
                let _ = (chunk, tail, key, counter, flags);
                None
            }
        }
    }

    /// Replaces the first `cvs.len() / 2` chaining values with the parents of
    /// the pairs `(cvs[2i], cvs[2i + 1])`. Never a root.
    #[inline(always)]
    pub fn hash_parents(self, cvs: &mut [Words], key: &Words, flags: u32) {
        match self {
            #[cfg(not(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128")))]
            Kernel::Portable => portable::hash_parents(cvs, key, flags),
            #[cfg(all(feature = "simd", target_arch = "wasm32", target_feature = "simd128"))]
            Kernel::Simd128 | Kernel::Simd128WordBlocks => wasm_simd::hash_parents(cvs, key, flags),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_is_the_spec_permutation_applied_per_round() {
        assert_eq!(MSG_SCHEDULE[1], [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8]);
        assert_eq!(MSG_SCHEDULE[6], [11, 15, 5, 0, 1, 9, 8, 6, 14, 10, 2, 12, 3, 4, 7, 13]);
    }
}
