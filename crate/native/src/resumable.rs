//! A hasher whose state we own, so it can be saved and loaded (state.rs):
//! the official `Hasher` keeps its chunk state and CV stack private.
//!
//! The compression is all upstream's: whole chunks go through its
//! `hash_many` kernels many at a time (kernel.rs) and long runs of them
//! through official `Hasher`s as aligned subtrees (`hazmat`), so SIMD and
//! the pool's threads work as in `Hasher::update_rayon`. What is ours is
//! the bookkeeping: the current chunk and the CV stack.
//!
//! The current chunk is kept as raw bytes (after the blocks compressed
//! before a load): a chunk is only known not to be the last once a byte
//! follows it. Compressing it alone then, one block at a time, cost every
//! 16th chunk of the JS front's 16 KiB updates (1.6x the official Hasher's
//! time in the first version). Instead a full last chunk is hashed with the
//! rest of its batch and its value held back (`provisional`); values merge
//! into the stack a group of 16 at a time (`loose`), so batches stay
//! aligned as the official Hasher's are.
//!
//! Single-threaded, MB/s, median of 31 interleaved trials, 2-vCPU EPYC
//! (AVX-512), three runs (`cargo run --release -p blake3-kit-native
//! --example resumable_speed`; the machine was shared, load 3-7):
//!
//! | updates of | official Hasher | Resumable | time ratio |
//! |---|---:|---:|---:|
//! | 1025 B (1 MiB) | 835 / 868 / 623 | 881 / 915 / 649 | 0.95-0.96 |
//! | 16 KiB (1 MiB) | 4946 / 5080 / 2827 | 4856 / 5047 / 2737 | 1.006-1.033 |
//! | 16 KiB + 1 (1 MiB) | 2236 / 2254 / 1544 | 4879 / 4952 / 2805 | 0.46-0.55 |
//! | 64 KiB (4 MiB) | 4906 / 4886 / 2931 | 4871 / 4807 / 2896 | 1.007-1.016 |
//! | 1 MiB (16 MiB) | 4898 / 4899 / 2704 | 4839 / 4829 / 2668 | 1.012-1.014 |
//! | 16 MiB | 4889 / 4980 / 2710 | 4882 / 4943 / 2713 | 0.999-1.007 |
//!
//! `blake3::platform` (single compressions, output blocks) is public but
//! `#[doc(hidden)]`, so not covered by semver: crate/Cargo.toml pins blake3
//! to `=1.8.7`, and tests/resumable.rs checks this hasher against
//! `blake3::Hasher` at every length up to three chunks and beyond, so a
//! change of behaviour there fails the tests, not users' digests.
//!
//! As in the reference implementation (not the official `Hasher`), the CV
//! stack is merged eagerly: chunks are only added once a byte follows them,
//! so no merge can be the root, and the stack is always the canonical one a
//! saved state holds.

use blake3::hazmat::HasherExt;
use blake3::platform::Platform;
use blake3::{BLOCK_LEN, CHUNK_LEN};

mod batch;

use crate::error::InvalidArg;
use crate::kernel::{Params, CHUNK_END, CHUNK_START, CV_LEN, PARENT, ROOT};
use crate::mode::MAX_OUTPUT;
use crate::pool::{self, Pool};
use rayon::ThreadPool;

/// A u64 chunk counter has at most 64 bits set: the stack never holds more.
const MAX_STACK: usize = 64;
/// Runs of more than this many chunks go to official Hashers as subtrees
/// (on the pool's threads where it pays), but for an unaligned head and a
/// short tail; shorter runs to the kernel here, all at once.
const KERNEL_MAX: usize = 128;
/// The smallest of those subtrees: a GROUP, so that the tail the kernel
/// hashes (and merges after the threads are done) is one group at most.
/// With 64, 1 MiB updates on 2 threads took 1.034-1.048x the official
/// Hasher's time (prof example, median of 101), merging the 64-chunk tail
/// on one thread.
const SUBTREE_MIN: u64 = GROUP;
/// A long run's tail: below SUBTREE_MIN chunks, and a provisional one.
const TAIL_MAX: usize = SUBTREE_MIN as usize;
/// Chunk values wait in `loose` until their aligned group of this many is
/// complete, then merge as one batch: merged as they came, runs that start
/// off a boundary pair badly (16 KiB updates took 1.14x the official
/// Hasher's time without groups, resumable_speed).
const GROUP: u64 = 16;
const GROUP_USIZE: usize = GROUP as usize;
/// Why a hasher with no room left has no saved state.
pub(crate) const NO_ROOM: &str =
    "a saved state holds at most 2^64 - 2 bytes, leaving room for more input (BLAKE3 takes 2^64 - 1 bytes); take the digest instead";

pub(crate) fn words_of(bytes: &[u8; 32]) -> [u32; 8] {
    std::array::from_fn(|i| u32::from_le_bytes([bytes[4 * i], bytes[4 * i + 1], bytes[4 * i + 2], bytes[4 * i + 3]]))
}

pub(crate) fn bytes_of(words: &[u32; 8]) -> [u8; 32] {
    let mut out = [0; 32];
    for (chunk, word) in out.chunks_exact_mut(4).zip(words) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    out
}

/// A compression not yet done: the last chunk's last block, or a parent.
struct Output {
    cv: [u32; 8],
    block: [u8; BLOCK_LEN],
    block_len: u8,
    counter: u64,
    flags: u8,
}

impl Output {
    fn chaining_value(&self, platform: Platform) -> [u8; CV_LEN] {
        let mut cv = self.cv;
        platform.compress_in_place(&mut cv, &self.block, self.block_len, self.counter, self.flags);
        bytes_of(&cv)
    }
}

/// The current chunk as a saved state has it: its chaining value after
/// `blocks_compressed` blocks, and the block after them (never empty once
/// there was input).
pub(crate) struct ChunkView {
    pub cv: [u32; 8],
    pub blocks_compressed: u8,
    pub block: [u8; BLOCK_LEN],
    pub block_len: u8,
}

#[derive(Clone)]
pub struct Resumable {
    pub(crate) params: Params,
    platform: Platform,
    /// Whole chunks hashed before the current one.
    pub(crate) chunk_counter: u64,
    /// The completed subtrees' chaining values, fully merged: one per bit
    /// of `chunk_counter - loose_len`, largest first.
    pub(crate) stack: [[u8; CV_LEN]; MAX_STACK],
    pub(crate) stack_len: u8,
    /// The values of the last chunks, not merged yet: those of a group
    /// (GROUP-aligned) not complete yet.
    loose: [[u8; CV_LEN]; GROUP_USIZE],
    loose_len: usize,
    /// The current chunk is full and its value already the last in
    /// `loose` (counted in `chunk_counter`): hashed with the chunks before
    /// it, in their batch, instead of alone once a byte follows. Chunk-sized
    /// updates then start their batches on a group boundary, as the
    /// official Hasher's do.
    provisional: bool,
    /// The current chunk: its chaining value after `blocks_compressed`
    /// blocks (0 unless loaded from a state that had some), then `raw_len`
    /// bytes not compressed yet.
    pub(crate) cv: [u32; 8],
    pub(crate) blocks_compressed: u8,
    pub(crate) raw: [u8; CHUNK_LEN],
    pub(crate) raw_len: usize,
}

impl Resumable {
    /// A hasher in `mode` (see `mode_key`).
    pub fn new(mode: u32, key: Option<&[u8]>) -> Result<Resumable, InvalidArg> {
        Ok(Self::empty(Params::new(mode, key)?))
    }

    pub(crate) fn empty(params: Params) -> Resumable {
        Resumable {
            params,
            platform: Platform::detect(),
            chunk_counter: 0,
            stack: [[0; CV_LEN]; MAX_STACK],
            stack_len: 0,
            loose: [[0; CV_LEN]; GROUP_USIZE],
            loose_len: 0,
            provisional: false,
            cv: params.words,
            blocks_compressed: 0,
            raw: [0; CHUNK_LEN],
            raw_len: 0,
        }
    }

    /// Back to no input, same mode and key.
    pub fn reset(&mut self) {
        *self = Self::empty(self.params);
    }

    /// Bytes hashed so far.
    pub fn count(&self) -> u64 {
        (self.chunk_counter - self.provisional as u64) * CHUNK_LEN as u64 + self.chunk_len() as u64
    }

    /// Input bytes this hasher can still take: BLAKE3's input ends at
    /// 2^64 - 1 bytes. `update` refuses more, so `count` never overflows.
    pub fn room(&self) -> u64 {
        u64::MAX - self.count()
    }

    /// Refuses `length` more input bytes past the room left, naming `arg`.
    pub fn check_room(&self, arg: &'static str, length: u64) -> Result<(), InvalidArg> {
        let room = self.room();
        if length > room {
            return Err(InvalidArg::range(
                arg,
                format!("{length} more bytes would take the input past 2^64 - 1 bytes, BLAKE3's limit: {room} are left"),
            ));
        }
        Ok(())
    }

    fn chunk_len(&self) -> usize {
        self.blocks_compressed as usize * BLOCK_LEN + self.raw_len
    }

    fn start_flag(blocks_before: u8) -> u8 {
        if blocks_before == 0 {
            CHUNK_START
        } else {
            0
        }
    }

    /// `update_with` on the process-wide pool where it pays (`RAYON_MIN`).
    pub fn update(&mut self, input: &[u8]) -> Result<(), InvalidArg> {
        if input.len() < pool::RAYON_MIN {
            self.update_with(None, input)
        } else {
            self.update_with(Some(&pool::current()), input)
        }
    }

    /// Adds `input`, on `pool`'s threads where it pays; input past the room
    /// left is an error (argument "input"), and the hasher is unchanged.
    pub fn update_with(&mut self, pool: Option<&Pool>, input: &[u8]) -> Result<(), InvalidArg> {
        self.check_room("input", input.len() as u64)?;
        self.absorb_checked(pool, input);
        Ok(())
    }

    /// `update_with` once the room is checked.
    fn absorb_checked(&mut self, pool: Option<&Pool>, mut input: &[u8]) {
        if input.is_empty() {
            return;
        }
        // Threads by the size of the whole update: its subtrees alone can
        // be below RAYON_MIN (1 MiB updates: 960 KiB), and ran 1.6x slower
        // single-threaded.
        let rayon = pool.and_then(|pool| pool.rayon_for(input.len()));
        if self.provisional {
            // A byte follows the full raw chunk, whose value is in `loose`.
            self.provisional = false;
            self.raw_len = 0;
        }
        let mut pending = false;
        if self.chunk_len() > 0 {
            let take = (CHUNK_LEN - self.chunk_len()).min(input.len());
            self.raw[self.raw_len..self.raw_len + take].copy_from_slice(&input[..take]);
            self.raw_len += take;
            input = &input[take..];
            if input.is_empty() {
                return;
            }
            // Full, and a byte follows: not the last chunk.
            if self.blocks_compressed == 0 {
                pending = true;
            } else {
                let cv = self.loaded_chunk_cv();
                self.flush();
                self.push(cv, 1);
            }
        }
        // Every whole chunk; the last chunk also stays raw until more input
        // shows it is not the root (its value provisional if it is whole).
        let whole = input.len() / CHUNK_LEN;
        let provisional = whole > 0 && input.len().is_multiple_of(CHUNK_LEN);
        self.chunks(rayon, pending, &input[..whole * CHUNK_LEN], provisional);
        let rest = &input[(whole - provisional as usize) * CHUNK_LEN..];
        self.cv = self.params.words;
        self.blocks_compressed = 0;
        self.raw[..rest.len()].copy_from_slice(rest);
        self.raw_len = rest.len();
        self.provisional = provisional;
    }

    /// The chaining value of the full current chunk loaded with some
    /// blocks already compressed: the rest compressed here, one at a time.
    fn loaded_chunk_cv(&self) -> [u8; CV_LEN] {
        let mut cv = self.cv;
        let flags = self.params.flags;
        let blocks = self.raw[..self.raw_len].chunks_exact(BLOCK_LEN);
        let last = blocks.len() - 1;
        for (i, block) in blocks.enumerate() {
            let block: &[u8; BLOCK_LEN] = block.try_into().unwrap_or(&[0; BLOCK_LEN]);
            let index = self.blocks_compressed + i as u8;
            let end = if i == last { CHUNK_END } else { 0 };
            self.platform.compress_in_place(&mut cv, block, BLOCK_LEN as u8, self.chunk_counter, flags | Self::start_flag(index) | end);
        }
        bytes_of(&cv)
    }

    /// Hashes the whole chunks of `input` from `chunk_counter` on, after
    /// the full raw chunk if `pending`; the last one's value `provisional`.
    fn chunks(&mut self, rayon: Option<&ThreadPool>, pending: bool, mut input: &[u8], provisional: bool) {
        let total = pending as usize + input.len() / CHUNK_LEN;
        if total <= KERNEL_MAX {
            self.kernel_chunks(pending, input, provisional);
            return;
        }
        // The head up to a SUBTREE_MIN boundary (never empty with a pending
        // chunk, which can't join a subtree: its bytes are elsewhere).
        let mut head = (SUBTREE_MIN - self.chunk_counter % SUBTREE_MIN) % SUBTREE_MIN;
        if pending && head == 0 {
            head = SUBTREE_MIN;
        }
        let head_bytes = (head as usize - pending as usize) * CHUNK_LEN;
        self.kernel_chunks(pending, &input[..head_bytes], false);
        input = &input[head_bytes..];
        // A provisional last chunk goes to the tail, never into a subtree.
        let after = input.len() / CHUNK_LEN - provisional as usize;
        let middle = after / SUBTREE_MIN as usize * SUBTREE_MIN as usize * CHUNK_LEN;
        let (middle, tail) = input.split_at(middle);
        self.flush();
        let spans = subtree_spans(self.chunk_counter, middle);
        let bytes = |&(_, at, chunks): &(u64, usize, u64)| &middle[at..at + chunks as usize * CHUNK_LEN];
        let Some(rayon) = rayon else {
            for span in &spans {
                let cv = self.subtree_cv(span.0, bytes(span), false);
                self.push(cv, span.2);
            }
            self.kernel_chunks(false, tail, provisional);
            return;
        };
        // Every subtree at once, so the small ones at the end run beside
        // the big ones (each split further by update_rayon), and the tail's
        // chunks beside them all.
        let this = &*self;
        let tail_counter = self.chunk_counter + (middle.len() / CHUNK_LEN) as u64;
        let (cvs, (mut nodes, count)) = rayon.install(|| {
            use rayon::prelude::*;
            rayon::join(
                || spans.par_iter().map(|span| this.subtree_cv(span.0, bytes(span), true)).collect::<Vec<_>>(),
                || {
                    let mut nodes = [[0; CV_LEN]; TAIL_MAX];
                    let count = this.chunk_values::<TAIL_MAX>(tail_counter, false, tail, &mut nodes);
                    (nodes, count)
                },
            )
        });
        for (cv, span) in cvs.into_iter().zip(&spans) {
            self.push(cv, span.2);
        }
        // `loose` is empty: flushed above, and pushes leave it so.
        self.merge_values(&mut nodes, 0, count, provisional);
    }

    fn parent(&self, left: &[u8; CV_LEN], right: &[u8; CV_LEN]) -> Output {
        let mut block = [0; BLOCK_LEN];
        block[..CV_LEN].copy_from_slice(left);
        block[CV_LEN..].copy_from_slice(right);
        Output { cv: self.params.words, block, block_len: BLOCK_LEN as u8, counter: 0, flags: self.params.flags | PARENT }
    }

    /// Pushes the chaining value of the `chunks` (a power of two, aligned)
    /// chunks from `chunk_counter` on, merging the subtrees it completes
    /// (`loose` must be empty).
    fn push(&mut self, mut cv: [u8; CV_LEN], chunks: u64) {
        let mut total = (self.chunk_counter + chunks) >> chunks.trailing_zeros();
        while total & 1 == 0 && self.stack_len > 0 {
            self.stack_len -= 1;
            cv = self.parent(&self.stack[self.stack_len as usize], &cv).chaining_value(self.platform);
            total >>= 1;
        }
        // At most popcount(chunk_counter) <= 64 entries.
        if let Some(slot) = self.stack.get_mut(self.stack_len as usize) {
            *slot = cv;
            self.stack_len += 1;
        }
        self.chunk_counter += chunks;
    }

    fn subtree_cv(&self, counter: u64, bytes: &[u8], parallel: bool) -> [u8; CV_LEN] {
        let mut hasher = self.params.hasher();
        hasher.set_input_offset(counter * CHUNK_LEN as u64);
        if parallel {
            hasher.update_rayon(bytes);
        } else {
            hasher.update(bytes);
        }
        hasher.finalize_non_root()
    }

    /// The current chunk in a saved state's terms: the raw bytes compressed
    /// but for the last (non-empty) block.
    pub(crate) fn chunk_view(&self) -> ChunkView {
        let mut view = ChunkView { cv: self.cv, blocks_compressed: self.blocks_compressed, block: [0; BLOCK_LEN], block_len: 0 };
        let mut raw = &self.raw[..self.raw_len];
        while raw.len() > BLOCK_LEN {
            let (block, rest) = raw.split_at(BLOCK_LEN);
            let block: &[u8; BLOCK_LEN] = block.try_into().unwrap_or(&[0; BLOCK_LEN]);
            let flags = self.params.flags | Self::start_flag(view.blocks_compressed);
            self.platform.compress_in_place(&mut view.cv, block, BLOCK_LEN as u8, self.chunk_counter, flags);
            view.blocks_compressed += 1;
            raw = rest;
        }
        view.block[..raw.len()].copy_from_slice(raw);
        view.block_len = raw.len() as u8;
        view
    }

    /// The root: the current chunk merged with the stack, right to left.
    fn root(&self) -> Output {
        let this = self.flushed();
        let chunk = this.chunk_view();
        let mut output = Output {
            cv: chunk.cv,
            block: chunk.block,
            block_len: chunk.block_len,
            counter: this.chunk_counter,
            flags: self.params.flags | Self::start_flag(chunk.blocks_compressed) | CHUNK_END,
        };
        for left in this.stack[..this.stack_len as usize].iter().rev() {
            output = this.parent(left, &output.chaining_value(this.platform));
        }
        output
    }

    /// Fills all of `out` with output from byte `position` on; the hasher is
    /// unchanged. BLAKE3 output ends at 2^64 - 1 bytes: a read past it is an
    /// error here (see `fill_blocks` for the official OutputReader's way).
    pub fn fill(&self, position: u64, out: &mut [u8]) -> Result<(), InvalidArg> {
        if position as u128 + out.len() as u128 > MAX_OUTPUT as u128 {
            return Err(InvalidArg::range("position", "BLAKE3 output ends at 2^64 - 1 bytes: position + output length is past it"));
        }
        self.fill_blocks(position / BLOCK_LEN as u64, (position % BLOCK_LEN as u64) as u8, out);
        Ok(())
    }

    /// Fills all of `out` with output from byte `skip` (below 64; more is
    /// taken mod 64) of output block `counter` on, the counter going on past
    /// 2^64 - 1 bytes of output as the official OutputReader's does (and so
    /// b3sum's --seek); the hasher is unchanged.
    pub fn fill_blocks(&self, counter: u64, skip: u8, out: &mut [u8]) {
        let root = self.root();
        let flags = root.flags | ROOT;
        let mut counter = counter;
        let mut out = out;
        let skip = skip as usize % BLOCK_LEN;
        if skip > 0 && !out.is_empty() {
            let block = self.platform.compress_xof(&root.cv, &root.block, root.block_len, counter, flags);
            let take = (BLOCK_LEN - skip).min(out.len());
            out[..take].copy_from_slice(&block[skip..skip + take]);
            out = &mut out[take..];
            counter = counter.wrapping_add(1);
        }
        let whole = out.len() / BLOCK_LEN * BLOCK_LEN;
        let (blocks, tail) = out.split_at_mut(whole);
        self.platform.xof_many(&root.cv, &root.block, root.block_len, counter, flags, blocks);
        counter = counter.wrapping_add((whole / BLOCK_LEN) as u64);
        if !tail.is_empty() {
            let block = self.platform.compress_xof(&root.cv, &root.block, root.block_len, counter, flags);
            let len = tail.len();
            tail.copy_from_slice(&block[..len]);
        }
    }
}

impl pool::Absorb for Resumable {
    fn absorb(&mut self, pool: &Pool, bytes: &[u8]) -> Result<(), InvalidArg> {
        self.update_with(Some(pool), bytes)
    }
}

/// `input`, whole chunks from chunk `counter` (a multiple of SUBTREE_MIN)
/// on, as aligned power-of-two subtrees: (first chunk, offset, chunks).
fn subtree_spans(mut counter: u64, input: &[u8]) -> Vec<(u64, usize, u64)> {
    let mut spans = Vec::new();
    let mut at = 0;
    while at < input.len() {
        let chunks = subtree_chunks(counter, (input.len() - at) / CHUNK_LEN);
        spans.push((counter, at, chunks));
        at += chunks as usize * CHUNK_LEN;
        counter += chunks;
    }
    spans
}

/// The largest subtree starting at chunk `counter` that holds at most
/// `available` (> 0) chunks: a power of two that divides `counter`.
fn subtree_chunks(counter: u64, available: usize) -> u64 {
    let mut chunks = 1u64 << (usize::BITS - 1 - available.leading_zeros());
    if counter > 0 {
        chunks = chunks.min(1 << counter.trailing_zeros());
    }
    chunks
}
