//! BLAKE3's tree over our kernels: chunk states, the chaining-value stack with
//! lazy merging, root output at any 64-bit position, subtrees at an input
//! offset, and a one-shot path that needs no `Hasher`.
//!
//! Written for this crate rather than taken from upstream because upstream's
//! `Hasher` cannot take another kernel. The rules are the spec's, in the shape
//! of upstream's `Hasher` (whose tests and the official crate as an oracle in
//! `cargo test` check this file):
//! - a chunk is finalized only once more input proves it is not the root;
//! - whole subtrees (a power of two chunks that evenly divides the count so
//!   far) are hashed in one go, and their two top chaining values pushed;
//! - the stack merges lazily, so the root is never merged early.

use core::mem::MaybeUninit;

use crate::kernel::{Kernel, Words, BLOCK_LEN, CHUNK_END, CHUNK_LEN, CHUNK_START, PARENT, ROOT};

/// 2^54 chunks of 1 KiB make 2^64 bytes.
pub const MAX_DEPTH: usize = 54;

/// Chunks hashed per batch before their parents are merged: 64 KiB, the size
/// of the staging buffer, so a staged update is a single batch.
pub const BATCH_CHUNKS: usize = 64;

/// A compression not yet done: the chaining value of a node, or with `ROOT`
/// any 64-byte block of the output.
#[derive(Clone, Copy)]
pub struct Output {
    cv: Words,
    block: [u8; BLOCK_LEN],
    block_len: u32,
    counter: u64,
    flags: u32,
}

impl Output {
    pub fn chaining_value(&self, kernel: Kernel) -> Words {
        let mut cv = self.cv;
        kernel.compress_in_place(&mut cv, &self.block, self.block_len, self.counter, self.flags);
        cv
    }

    /// Fills `out` with root output from byte `position` on. The caller
    /// checks that `position + out.len()` stays within the 2^64 - 1 bytes.
    pub fn root_fill(&self, kernel: Kernel, position: u64, out: &mut [u8]) {
        self.root_fill_blocks(kernel, position / BLOCK_LEN as u64, (position % BLOCK_LEN as u64) as usize, out);
    }

    /// Fills `out` with root output from byte `skip` (below 64) of output
    /// block `counter` on, the counter going on past 2^64 - 1 bytes of
    /// output as the official OutputReader's does (b3sum's --seek).
    pub fn root_fill_blocks(&self, kernel: Kernel, counter: u64, skip: usize, mut out: &mut [u8]) {
        let mut counter = counter;
        let mut skip = skip;
        while !out.is_empty() {
            // Four whole blocks at a time where they fit: 4 lanes wide in
            // the SIMD build. Reading 1 MiB of output: see kernel/wasm_simd.rs.
            if skip == 0 && out.len() >= 4 * BLOCK_LEN {
                // Whole runs of four blocks, written in place.
                let (wide, rest) = core::mem::take(&mut out).as_chunks_mut::<{ 4 * BLOCK_LEN }>();
                for four in wide {
                    kernel.compress_xof4(&self.cv, &self.block, self.block_len, counter, self.flags | ROOT, four);
                    counter = counter.wrapping_add(4);
                }
                out = rest;
                continue;
            }
            let bytes = kernel.compress_xof(&self.cv, &self.block, self.block_len, counter, self.flags | ROOT);
            let available = &bytes[skip.min(BLOCK_LEN)..];
            let take = available.len().min(out.len());
            let (head, rest) = out.split_at_mut(take);
            head.copy_from_slice(&available[..take]);
            out = rest;
            skip = 0;
            counter = counter.wrapping_add(1);
        }
    }
}

pub fn parent_output(left: &Words, right: &Words, key: &Words, flags: u32) -> Output {
    let block = crate::kernel::parent_block(left, right);
    Output { cv: *key, block, block_len: BLOCK_LEN as u32, counter: 0, flags: flags | PARENT }
}

/// The blocks of one chunk, compressed as they are completed.
#[derive(Clone, Copy)]
pub struct ChunkState {
    pub(crate) cv: Words,
    pub(crate) counter: u64,
    pub(crate) buf: [u8; BLOCK_LEN],
    pub(crate) buf_len: u8,
    pub(crate) blocks_compressed: u8,
    pub(crate) flags: u8,
}

impl ChunkState {
    pub fn new(key: &Words, counter: u64, flags: u32) -> Self {
        ChunkState { cv: *key, counter, buf: [0; BLOCK_LEN], buf_len: 0, blocks_compressed: 0, flags: flags as u8 }
    }

    pub fn len(&self) -> usize {
        BLOCK_LEN * self.blocks_compressed as usize + self.buf_len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn block_flags(&self) -> u32 {
        let start = if self.blocks_compressed == 0 { CHUNK_START } else { 0 };
        self.flags as u32 | start
    }

    fn compress(&mut self, kernel: Kernel, block: &[u8; BLOCK_LEN]) {
        let flags = self.block_flags();
        kernel.compress_in_place(&mut self.cv, block, BLOCK_LEN as u32, self.counter, flags);
        self.blocks_compressed += 1;
    }

    /// Takes at most the rest of this chunk (the caller splits input there).
    /// The last block stays buffered: only the next input shows it is not
    /// the chunk's last.
    pub fn update(&mut self, kernel: Kernel, mut input: &[u8]) {
        // Lengths are clamped where the compiler can't see the invariant, so
        // that no panic path is compiled in (see lib.rs).
        if self.buf_len > 0 {
            let start = (self.buf_len as usize).min(BLOCK_LEN);
            let take = (BLOCK_LEN - start).min(input.len());
            self.buf[start..][..take].copy_from_slice(&input[..take]);
            self.buf_len += take as u8;
            input = &input[take..];
            if input.is_empty() {
                return;
            }
            let block = self.buf;
            self.compress(kernel, &block);
            self.buf_len = 0;
        }
        while let Some((block, rest)) = input.split_first_chunk::<BLOCK_LEN>() {
            if rest.is_empty() {
                break;
            }
            self.compress(kernel, block);
            input = rest;
        }
        let len = input.len().min(BLOCK_LEN);
        self.buf[..len].copy_from_slice(&input[..len]);
        self.buf_len = len as u8;
    }

    pub fn output(&self) -> Output {
        let mut block = [0u8; BLOCK_LEN];
        let len = (self.buf_len as usize).min(BLOCK_LEN);
        block[..len].copy_from_slice(&self.buf[..len]);
        Output { cv: self.cv, block, block_len: self.buf_len as u32, counter: self.counter, flags: self.block_flags() | CHUNK_END }
    }
}

/// Merges `n` chaining values of adjacent subtrees level by level, pairing
/// neighbours and carrying an odd last one up, until at most `target` remain;
/// returns how many remain. This is BLAKE3's left-balanced tree.
fn reduce(kernel: Kernel, cvs: &mut [Words], mut n: usize, key: &Words, flags: u32, target: usize) -> usize {
    n = n.min(cvs.len());
    while n > target.max(1) {
        let pairs = n / 2;
        kernel.hash_parents(&mut cvs[..2 * pairs], key, flags);
        if n % 2 == 1 {
            if let Some(&last) = cvs.get(n - 1) {
                cvs[pairs] = last;
            }
        }
        n = pairs + n % 2;
    }
    n
}

/// The two top chaining values of up to `BATCH_CHUNKS` chunks numbered from
/// `counter` (at least two; the last may be partial): the chunks' CVs, then
/// their parents level by level. One out-of-line copy serves the one-shot
/// path and `Hasher::update`.
#[inline(never)]
fn batch_pair(kernel: Kernel, input: &[u8], key: &Words, counter: u64, flags: u32) -> [Words; 2] {
    let (whole, partial) = input.as_chunks::<CHUNK_LEN>();
    let mut cvs = [[0u32; 8]; BATCH_CHUNKS];
    // A partial last chunk after a whole one that the kernel would hash
    // alone (after its groups of four) goes side by side with it where the
    // kernel can: 1.5 KiB in ~2/3 of the time (see kernel/rows.rs).
    if let (Some((last, before)), false) = (whole.split_last(), partial.is_empty()) {
        let n = before.len();
        if n % 4 == 0 && n + 2 <= BATCH_CHUNKS {
            if let Some(pair) = kernel.hash_chunk_and_tail(last, partial, key, counter + n as u64, flags) {
                kernel.hash_chunks(before, key, counter, flags, &mut cvs);
                if let Some(slots) = cvs.get_mut(n..n + 2) {
                    slots.copy_from_slice(&pair);
                }
                reduce(kernel, &mut cvs, n + 2, key, flags, 2);
                return [cvs[0], cvs[1]];
            }
        }
    }
    kernel.hash_chunks(whole, key, counter, flags, &mut cvs);
    let mut n = whole.len().min(BATCH_CHUNKS);
    if let (false, Some(cv)) = (partial.is_empty(), cvs.get_mut(n)) {
        let mut chunk = ChunkState::new(key, counter + n as u64, flags);
        chunk.update(kernel, partial);
        *cv = chunk.output().chaining_value(kernel);
        n += 1;
    }
    reduce(kernel, &mut cvs, n, key, flags, 2);
    [cvs[0], cvs[1]]
}

/// The two top chaining values of a whole subtree of a power of two (at least
/// two) chunks, numbered from `counter`.
fn subtree_pair(kernel: Kernel, input: &[u8], key: &Words, counter: u64, flags: u32) -> [Words; 2] {
    let chunks = input.len() / CHUNK_LEN;
    if chunks <= BATCH_CHUNKS {
        return batch_pair(kernel, input, key, counter, flags);
    }
    let (left, right) = input.split_at(input.len() / 2);
    let half = (chunks / 2) as u64;
    [subtree_cv(kernel, left, key, counter, flags), subtree_cv(kernel, right, key, counter + half, flags)]
}

fn subtree_cv(kernel: Kernel, input: &[u8], key: &Words, counter: u64, flags: u32) -> Words {
    let [left, right] = subtree_pair(kernel, input, key, counter, flags);
    kernel.parent_cv(&left, &right, key, flags)
}

/// The root output of `input` in one go: the block itself for up to a block,
/// one chunk state for up to a chunk, one batch for up to `BATCH_CHUNKS`
/// chunks, and a `Hasher` beyond that.
pub fn hash_all(kernel: Kernel, input: &[u8], key: &Words, flags: u32) -> Output {
    if input.len() <= BLOCK_LEN {
        // One block: the root output is that block's compression.
        let mut block = [0u8; BLOCK_LEN];
        block[..input.len()].copy_from_slice(input);
        let flags = flags | CHUNK_START | CHUNK_END;
        return Output { cv: *key, block, block_len: input.len() as u32, counter: 0, flags };
    }
    if input.len() <= CHUNK_LEN {
        let mut chunk = ChunkState::new(key, 0, flags);
        chunk.update(kernel, input);
        return chunk.output();
    }
    if input.len() <= BATCH_CHUNKS * CHUNK_LEN {
        let [left, right] = batch_pair(kernel, input, key, 0, flags);
        return parent_output(&left, &right, key, flags);
    }
    let mut hasher = Hasher::new(key, flags);
    hasher.update(kernel, input);
    hasher.final_output(kernel)
}

/// An incremental hasher (upstream's `Hasher`, with its hazmat input offset).
///
/// `repr(C)` with the stack last: the bytes up to `STACK_OFFSET` plus
/// `stack_len()` entries are its whole state, which is how hasher slots store
/// it compactly (see `slots.rs`).
#[derive(Clone)]
#[repr(C)]
pub struct Hasher {
    pub(crate) key: Words,
    pub(crate) chunk: ChunkState,
    /// The chunk counter at the input offset; 0 for an ordinary hasher.
    pub(crate) initial_counter: u64,
    pub(crate) stack_len: u8,
    /// One more than the depth: lazy merging leaves one extra CV on top.
    /// Entries from `stack_len` up are never read, so they start
    /// uninitialised: zeroing them cost 2 KB of unrolled stores in wasm.
    pub(crate) stack: [MaybeUninit<Words>; MAX_DEPTH + 1],
}

impl Hasher {
    /// Where the chaining-value stack starts; everything before it is state.
    pub const STACK_OFFSET: usize = core::mem::offset_of!(Hasher, stack);
    /// Where the `u8` count of stack entries is.
    pub const STACK_LEN_OFFSET: usize = core::mem::offset_of!(Hasher, stack_len);
    pub const STACK_ENTRY_BYTES: usize = core::mem::size_of::<Words>();

    pub fn new(key: &Words, flags: u32) -> Self {
        Hasher {
            key: *key,
            chunk: ChunkState::new(key, 0, flags),
            initial_counter: 0,
            stack_len: 0,
            stack: [MaybeUninit::uninit(); MAX_DEPTH + 1],
        }
    }

    pub fn key(&self) -> &Words {
        &self.key
    }

    /// Stack entries in use: the bytes past them are never read.
    pub fn stack_len(&self) -> usize {
        self.stack_len as usize
    }

    pub fn flags(&self) -> u32 {
        self.chunk.flags as u32
    }

    /// Whether a hasher restored from raw bytes (see `slots::Slots::restore`)
    /// keeps the invariants every method relies on: stack and block within
    /// their arrays, no more blocks than a chunk holds, the chunk counter not
    /// behind the input offset. Any bytes are some `Hasher`: its fields are
    /// integers, and stack entries past the top are never read.
    pub fn is_consistent(&self) -> bool {
        self.stack_len as usize <= MAX_DEPTH + 1
            && self.chunk.buf_len as usize <= BLOCK_LEN
            && (self.chunk.blocks_compressed as usize) < CHUNK_LEN / BLOCK_LEN
            && self.chunk.counter >= self.initial_counter
    }

    /// Input bytes taken so far.
    pub fn count(&self) -> u64 {
        (self.chunk.counter - self.initial_counter).wrapping_mul(CHUNK_LEN as u64).wrapping_add(self.chunk.len() as u64)
    }

    /// Input bytes this hasher can still take: BLAKE3's input ends at
    /// 2^64 - 1 bytes, counted from the start of the whole input (so from
    /// the offset on for a subtree hasher).
    pub fn room(&self) -> u64 {
        let taken = self.chunk.counter.checked_mul(CHUNK_LEN as u64).and_then(|bytes| bytes.checked_add(self.chunk.len() as u64));
        taken.map_or(0, |taken| u64::MAX - taken)
    }

    /// Makes a hasher with no input hash the subtree at `offset`, a multiple
    /// of the chunk length (the caller checks both).
    pub fn set_input_offset(&mut self, offset: u64) {
        let counter = offset / CHUNK_LEN as u64;
        self.chunk.counter = counter;
        self.initial_counter = counter;
    }

    /// Stack entry `i`, if it is below the top.
    pub(crate) fn entry(&self, i: usize) -> Option<Words> {
        if i >= self.stack_len as usize {
            return None;
        }
        // SAFETY: entries below `stack_len` were written by `push_cv`.
        self.stack.get(i).map(|cv| unsafe { cv.assume_init() })
    }

    pub(crate) fn merge_stack(&mut self, kernel: Kernel, total_chunks: u64) {
        let keep = (total_chunks - self.initial_counter).count_ones() as usize;
        while self.stack_len as usize > keep {
            let top = self.stack_len as usize;
            let (Some(left), Some(right)) = (self.entry(top.wrapping_sub(2)), self.entry(top - 1)) else {
                break;
            };
            let parent = kernel.parent_cv(&left, &right, &self.key, self.flags());
            if let Some(slot) = self.stack.get_mut(top - 2) {
                slot.write(parent);
            }
            self.stack_len -= 1;
        }
    }

    fn push_cv(&mut self, kernel: Kernel, cv: &Words, chunk_counter: u64) {
        self.merge_stack(kernel, chunk_counter);
        if let Some(slot) = self.stack.get_mut(self.stack_len as usize) {
            slot.write(*cv);
            self.stack_len += 1;
        }
    }

    pub fn update(&mut self, kernel: Kernel, mut input: &[u8]) {
        let flags = self.flags();
        if !self.chunk.is_empty() {
            let take = (CHUNK_LEN - self.chunk.len()).min(input.len());
            let (head, rest) = input.split_at(take);
            self.chunk.update(kernel, head);
            input = rest;
            if input.is_empty() {
                return;
            }
            // More input follows, so this full chunk is not the root.
            let cv = self.chunk.output().chaining_value(kernel);
            let counter = self.chunk.counter;
            self.push_cv(kernel, &cv, counter);
            self.chunk = ChunkState::new(&self.key, counter + 1, flags);
        }
        // Whole subtrees while more than a chunk remains: the last chunk, even
        // if full, stays in the chunk state in case it is the root.
        while input.len() > CHUNK_LEN {
            let mut subtree_len = 1usize << (usize::BITS - 1 - input.len().leading_zeros());
            let count_so_far = self.chunk.counter.wrapping_mul(CHUNK_LEN as u64);
            while (subtree_len as u64 - 1) & count_so_far != 0 {
                subtree_len /= 2;
            }
            let Some((subtree, rest)) = input.split_at_checked(subtree_len) else { break };
            if rest.is_empty() {
                // Upstream would push the whole subtree and leave the chunk
                // state empty; we keep its last chunk open instead.
                self.update_last_subtree(kernel, subtree);
                self.merge_stack(kernel, self.chunk.counter);
                return;
            }
            let counter = self.chunk.counter;
            let chunks = (subtree_len / CHUNK_LEN) as u64;
            if chunks == 1 {
                let mut cv = [[0u32; 8]; 1];
                kernel.hash_chunks(subtree.as_chunks().0, &self.key, counter, flags, &mut cv);
                self.push_cv(kernel, &cv[0], counter);
            } else {
                let [left, right] = subtree_pair(kernel, subtree, &self.key, counter, flags);
                // Pushed separately: lazy merging keeps a possible root apart.
                self.push_cv(kernel, &left, counter);
                self.push_cv(kernel, &right, counter + chunks / 2);
            }
            self.chunk.counter = counter + chunks;
            input = rest;
        }
        if !input.is_empty() {
            self.chunk.update(kernel, input);
            self.merge_stack(kernel, self.chunk.counter);
        }
    }

    /// The last subtree of an update: a power of two (at least two) whole
    /// chunks from the current counter, with nothing after them. Pushes the
    /// subtrees of all its chunks but the last, largest first, and makes the
    /// last the chunk state, 15 blocks compressed and the 16th buffered, as
    /// upstream does only for an update's last partial chunk. Then the chunk
    /// state holds the last input whenever there is any, which is the
    /// canonical form a saved state records (state.rs): the last chunk's
    /// bytes are gone once the subtree is pushed whole.
    ///
    /// The open chunk's value comes from the same four-lane (or pair) pass
    /// as the others (kernel `hash_chunks_but_last`); its last block is
    /// compressed again by the next update, and the parents above it are
    /// merged one at a time. A/B of raw hasher_update in pieces of N bytes
    /// against the tree without this, one process, 41 alternating rounds
    /// (Node 20, 2-core EPYC, medians of ratios, 3 runs, load 3-5): simd on
    /// words 0.98-1.01x at 2, 4, 8, 16 and 64 KiB, row-wise 0.97-1.13x;
    /// scalar 0.99-1.02x. Holding the last chunk back as a plain chunk-state
    /// update instead split the rest into subtrees of 2^k - 1 chunks: 4 KiB
    /// 0.67x, 2 KiB 0.83x.
    fn update_last_subtree(&mut self, kernel: Kernel, mut input: &[u8]) {
        let flags = self.flags();
        let mut counter = self.chunk.counter;
        // Left halves of more than a batch are whole subtrees of their own.
        while input.len() > BATCH_CHUNKS * CHUNK_LEN {
            let (left, right) = input.split_at(input.len() / 2);
            let cv = subtree_cv(kernel, left, &self.key, counter, flags);
            self.push_cv(kernel, &cv, counter);
            counter += (left.len() / CHUNK_LEN) as u64;
            input = right;
        }
        let chunks = input.as_chunks::<CHUNK_LEN>().0;
        let chunks = chunks.get(..chunks.len().min(BATCH_CHUNKS)).unwrap_or_default();
        let Some((last, _)) = chunks.split_last() else { return };
        let mut cvs = [[0u32; 8]; BATCH_CHUNKS];
        let key = self.key;
        let open_cv = kernel.hash_chunks_but_last(chunks, &key, counter, flags, &mut cvs, |last, counter| {
            // Its first 15 blocks through the chunk state's code.
            let mut state = ChunkState::new(&key, counter, flags);
            state.update(kernel, last);
            state.cv
        });
        let mut start = 0;
        let mut size = chunks.len() / 2;
        while size >= 1 {
            let Some(subtree) = cvs.get_mut(start..start + size) else { break };
            reduce(kernel, subtree, size, &self.key, flags, 1);
            let Some(&cv) = subtree.first() else { break };
            self.push_cv(kernel, &cv, counter + start as u64);
            start += size;
            size /= 2;
        }
        let (_, &buf) = last.split_last_chunk::<BLOCK_LEN>().unwrap_or((&[], &[0; BLOCK_LEN]));
        let counter = counter + start as u64;
        let blocks_compressed = (CHUNK_LEN / BLOCK_LEN - 1) as u8;
        self.chunk = ChunkState { cv: open_cv, counter, buf, buf_len: BLOCK_LEN as u8, blocks_compressed, flags: flags as u8 };
    }

    /// The root node's output; for a hasher at an input offset, the node
    /// whose chaining value is the subtree's.
    pub fn final_output(&self, kernel: Kernel) -> Output {
        let mut remaining = self.stack_len as usize;
        let (key, flags) = (&self.key, self.flags());
        let mut output = match (self.chunk.len(), remaining.checked_sub(2)) {
            // A partial chunk is the deepest node; a chunk alone is the root.
            (1.., _) | (0, None) => self.chunk.output(),
            // Otherwise the top two CVs are the right edge's parent.
            (0, Some(below)) => {
                remaining = below;
                match (self.entry(below), self.entry(below + 1)) {
                    (Some(left), Some(right)) => parent_output(&left, &right, key, flags),
                    _ => self.chunk.output(),
                }
            }
        };
        while remaining > 0 {
            remaining -= 1;
            let Some(left) = self.entry(remaining) else { break };
            output = parent_output(&left, &output.chaining_value(kernel), key, flags);
        }
        output
    }
}
