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
//! wasm. Where four lanes lose to one chunk at a time (Bun), JS turns them
//! off with `set_lanes`.

#[cfg(blake3_kit_simd)]
mod lanes;
pub mod portable;
#[cfg(blake3_kit_simd)]
pub mod rows;
mod spec;
#[cfg(blake3_kit_simd)]
pub mod wasm_simd;

pub use spec::*;

/// What the SIMD build runs, as bits JS sets (see `set_word_blocks`,
/// `set_lanes`): `WORDS` single blocks on `u32` words rather than row-wise,
/// `NO_LANES` whole chunks, parents and output blocks one at a time on the
/// single-block code rather than four at once in `wasm_simd.rs`,
/// `RELOAD_MESSAGE` the lanes' second copy (JavaScriptCore's). Four lanes
/// run 2.1x faster than one chunk at a time in V8; src/wasm/blocks.ts has
/// every engine's figures.
#[cfg(blake3_kit_simd)]
static CODE: core::sync::atomic::AtomicU32 = core::sync::atomic::AtomicU32::new(0);
#[cfg(blake3_kit_simd)]
const WORDS: u32 = 1;
#[cfg(blake3_kit_simd)]
const NO_LANES: u32 = 2;
/// The lanes re-read each message vector from memory at every use instead
/// of keeping all sixteen live (see `wasm_simd.rs`): JavaScriptCore's.
#[cfg(blake3_kit_simd)]
const RELOAD_MESSAGE: u32 = 4;

#[cfg(blake3_kit_simd)]
fn set_code_bit(bit: u32, on: bool) {
    use core::sync::atomic::Ordering::Relaxed;
    let code = CODE.load(Relaxed);
    CODE.store(if on { code | bit } else { code & !bit }, Relaxed);
}

/// Single blocks on `u32` words (true) or row-wise (false); returns whether
/// this build can do what was asked: the scalar build has only words.
pub fn set_word_blocks(words: bool) -> bool {
    #[cfg(blake3_kit_simd)]
    {
        set_code_bit(WORDS, words);
        true
    }
    #[cfg(not(blake3_kit_simd))]
    words
}

/// Four chunks, parents or output blocks at once (true) or one at a time
/// (false); returns whether this build can: the scalar build has no lanes.
pub fn set_lanes(lanes: bool) -> bool {
    #[cfg(blake3_kit_simd)]
    {
        set_code_bit(NO_LANES, !lanes);
        true
    }
    #[cfg(not(blake3_kit_simd))]
    !lanes
}

/// The lanes' message vectors re-read from memory at every use (true) or
/// kept live (false); returns whether this build can: the scalar build has
/// no lanes.
pub fn set_reload_message(reload: bool) -> bool {
    #[cfg(blake3_kit_simd)]
    {
        set_code_bit(RELOAD_MESSAGE, reload);
        true
    }
    #[cfg(not(blake3_kit_simd))]
    !reload
}

/// Whether the lanes re-read their message vectors (`set_reload_message`).
pub fn reload_message() -> bool {
    #[cfg(blake3_kit_simd)]
    let reload = CODE.load(core::sync::atomic::Ordering::Relaxed) & RELOAD_MESSAGE != 0;
    #[cfg(not(blake3_kit_simd))]
    let reload = false;
    reload
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// The scalar build's only kernel.
    #[cfg(not(blake3_kit_simd))]
    Portable,
    /// The SIMD build: single blocks row-wise or on words, and four chunks
    /// or parents at once in v128 lanes or not (see `CODE`).
    #[cfg(blake3_kit_simd)]
    Simd128 { words: bool, lanes: bool },
}

impl Kernel {
    /// The kernel this build runs: the scalar build's only one, or the SIMD
    /// build's with the code JS chose (`set_word_blocks`, `set_lanes`).
    #[inline(always)]
    pub fn detect() -> Kernel {
        #[cfg(blake3_kit_simd)]
        let kernel = {
            let code = CODE.load(core::sync::atomic::Ordering::Relaxed);
            Kernel::Simd128 { words: code & WORDS != 0, lanes: code & NO_LANES == 0 }
        };
        #[cfg(not(blake3_kit_simd))]
        let kernel = Kernel::Portable;
        kernel
    }

    /// Whether single blocks run on `u32` words.
    pub fn word_blocks(self) -> bool {
        #[cfg(blake3_kit_simd)]
        let Kernel::Simd128 { words, .. } = self;
        #[cfg(not(blake3_kit_simd))]
        let words = true;
        words
    }

    /// Whether four chunks, parents or output blocks go at once.
    #[inline(always)]
    pub fn lanes(self) -> bool {
        #[cfg(blake3_kit_simd)]
        let Kernel::Simd128 { lanes, .. } = self;
        #[cfg(not(blake3_kit_simd))]
        let lanes = false;
        lanes
    }

    /// Compresses one block into `cv`.
    #[inline(always)]
    pub fn compress_in_place(self, cv: &mut Words, block: &[u8; BLOCK_LEN], block_len: u32, counter: u64, flags: u32) {
        match self {
            #[cfg(not(blake3_kit_simd))]
            Kernel::Portable => portable::compress_in_place(cv, block, block_len, counter, flags),
            #[cfg(blake3_kit_simd)]
            Kernel::Simd128 { words: false, .. } => rows::compress_in_place(cv, block, block_len, counter, flags),
            #[cfg(blake3_kit_simd)]
            Kernel::Simd128 { words: true, .. } => portable::compress_in_place(cv, block, block_len, counter, flags),
        }
    }

    /// The full 64-byte output of compressing one block (extended output).
    #[inline(always)]
    pub fn compress_xof(self, cv: &Words, block: &[u8; BLOCK_LEN], block_len: u32, counter: u64, flags: u32) -> [u8; BLOCK_LEN] {
        match self {
            #[cfg(not(blake3_kit_simd))]
            Kernel::Portable => portable::compress_xof(cv, block, block_len, counter, flags),
            #[cfg(blake3_kit_simd)]
            Kernel::Simd128 { words: false, .. } => rows::compress_xof(cv, block, block_len, counter, flags),
            #[cfg(blake3_kit_simd)]
            Kernel::Simd128 { words: true, .. } => portable::compress_xof(cv, block, block_len, counter, flags),
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
        #[cfg(blake3_kit_simd)]
        if self.lanes() {
            return wasm_simd::xof4(cv, block, block_len, counter, flags, out);
        }
        for (j, bytes) in out.as_chunks_mut::<BLOCK_LEN>().0.iter_mut().enumerate() {
            *bytes = self.compress_xof(cv, block, block_len, counter.wrapping_add(j as u64), flags);
        }
    }

    /// The parent chaining value of two children. Never a root.
    #[inline(always)]
    pub fn parent_cv(self, left: &Words, right: &Words, key: &Words, flags: u32) -> Words {
        let block = parent_block(left, right);
        let mut cv = *key;
        self.compress_in_place(&mut cv, &block, BLOCK_LEN as u32, 0, flags | PARENT);
        cv
    }

    /// Chaining values of whole chunks, numbered from `counter`, into the
    /// first `min(chunks.len(), out.len())` entries of `out`. Never a root.
    #[inline(always)]
    pub fn hash_chunks(self, chunks: &[[u8; CHUNK_LEN]], key: &Words, counter: u64, flags: u32, out: &mut [Words]) {
        match self {
            #[cfg(not(blake3_kit_simd))]
            Kernel::Portable => portable::hash_chunks(chunks, key, counter, flags, out),
            #[cfg(blake3_kit_simd)]
            Kernel::Simd128 { .. } => {
                let done = if self.lanes() { wasm_simd::hash_chunks(chunks, key, counter, flags, out) } else { 0 };
                if done < chunks.len() {
                    self.single_chunks(chunks, key, counter, flags, out, done);
                }
            }
        }
    }

    /// Chaining values of whole chunks numbered from `counter` but the
    /// last, into `out`; returns the last one's chaining value after 15 of
    /// its 16 blocks (its last block stays in a chunk state, see tree.rs),
    /// taken on the way by the lanes where they can, else by `open`, the
    /// tree's chunk-state code (passed in: the kernel knows nothing of the
    /// tree). Never a root.
    pub fn hash_chunks_but_last(
        self,
        chunks: &[[u8; CHUNK_LEN]],
        key: &Words,
        counter: u64,
        flags: u32,
        out: &mut [Words],
        open: impl FnOnce(&[u8; CHUNK_LEN], u64) -> Words,
    ) -> Words {
        let Some((last, before)) = chunks.split_last() else { return *key };
        // As fast as hashing them all: the open chunk's value is taken on
        // the way (A/B, raw updates of 2-64 KiB: see tree.rs).
        #[cfg(blake3_kit_simd)]
        if let ([first], Some(out)) = (before, out.first_mut()) {
            let [cv, opened] = rows::hash_chunk_pair(first, &last[..CHUNK_LEN - BLOCK_LEN], key, counter, flags, true);
            *out = cv;
            return opened;
        } else if let (Some((head, group)), true) = (chunks.split_last_chunk::<4>(), self.lanes()) {
            self.hash_chunks(head, key, counter, flags, out);
            let (cvs, opened) = wasm_simd::hash4_open(group, key, counter + head.len() as u64, flags);
            for (out, cv) in out.iter_mut().skip(head.len()).zip(&cvs[..3]) {
                *out = *cv;
            }
            return opened;
        }
        self.hash_chunks(before, key, counter, flags, out);
        open(last, counter + before.len() as u64)
    }

    /// Chunks `first..` (a last single one), a block at a time on the
    /// chosen single-block code. Out of line: one copy for every caller.
    #[cfg(blake3_kit_simd)]
    #[inline(never)]
    fn single_chunks(self, chunks: &[[u8; CHUNK_LEN]], key: &Words, counter: u64, flags: u32, out: &mut [Words], first: usize) {
        let last = CHUNK_LEN / BLOCK_LEN - 1;
        for (i, (chunk, cv)) in chunks.iter().zip(out.iter_mut()).enumerate().skip(first) {
            *cv = *key;
            for (j, block) in chunk.as_chunks::<BLOCK_LEN>().0.iter().enumerate() {
                let block_flags = flags | if j == 0 { CHUNK_START } else { 0 } | if j == last { CHUNK_END } else { 0 };
                self.compress_in_place(cv, block, BLOCK_LEN as u32, counter + i as u64, block_flags);
            }
        }
    }

    /// The chaining values of a whole chunk numbered `counter` and of the
    /// partial chunk after it, side by side where this kernel can (the SIMD
    /// build's row-wise pair); None where it cannot. Never a root.
    #[inline(always)]
    pub fn hash_chunk_and_tail(self, chunk: &[u8; CHUNK_LEN], tail: &[u8], key: &Words, counter: u64, flags: u32) -> Option<[Words; 2]> {
        match self {
            #[cfg(not(blake3_kit_simd))]
            Kernel::Portable => {
                let _ = (chunk, tail, key, counter, flags);
                None
            }
            #[cfg(blake3_kit_simd)]
            Kernel::Simd128 { words: false, .. } => Some(rows::hash_chunk_pair(chunk, tail, key, counter, flags, false)),
            #[cfg(blake3_kit_simd)]
            Kernel::Simd128 { words: true, .. } => {
                let _ = (chunk, tail, key, counter, flags);
                None
            }
        }
    }

    /// Replaces the first `cvs.len() / 2` chaining values with the parents of
    /// the pairs `(cvs[2i], cvs[2i + 1])`. Never a root.
    #[inline(always)]
    pub fn hash_parents(self, cvs: &mut [Words], key: &Words, flags: u32) {
        #[cfg(not(blake3_kit_simd))]
        let done = 0;
        #[cfg(blake3_kit_simd)]
        let done = if self.lanes() { wasm_simd::hash_parents(cvs, key, flags) } else { 0 };
        if done < cvs.len() / 2 {
            self.parents_from(cvs, key, flags, done);
        }
    }

    /// Parents of the pairs from `first` on, in place: parent i is written
    /// after pairs 0..=i were read. Out of line: one copy for every caller.
    #[inline(never)]
    fn parents_from(self, cvs: &mut [Words], key: &Words, flags: u32, first: usize) {
        for i in first..cvs.len() / 2 {
            // `get` rather than indexing: no panic path (see lib.rs).
            let (Some(&left), Some(&right)) = (cvs.get(2 * i), cvs.get(2 * i + 1)) else { break };
            if let Some(parent) = cvs.get_mut(i) {
                *parent = self.parent_cv(&left, &right, key, flags);
            }
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
