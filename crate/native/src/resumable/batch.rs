//! How `Resumable` hashes a batch of whole chunks with upstream's kernel and
//! merges their values into its stack: a level of the tree at a time, a
//! group of 16 chunks at a time (`loose`), a whole last chunk's value held
//! back (`provisional`).

use blake3::{BLOCK_LEN, CHUNK_LEN};

use super::{Resumable, CV_LEN, GROUP, GROUP_USIZE, KERNEL_MAX};
use crate::kernel::{kernel, CHUNK_END, CHUNK_START, PARENT};
use crate::subtree::parent_values;

/// Right edges one `absorb` of at most KERNEL_MAX nodes leaves.
const EDGES: usize = (KERNEL_MAX + GROUP_USIZE).ilog2() as usize + 2;
/// Parents per kernel call: the widest kernel's lanes. Its pointers are
/// zeroed every call, and 73 of them (a whole level of KERNEL_MAX) for each
/// level of 16 KiB updates were 1.3% of their time.
const PARENT_BATCH: usize = 16;

impl Resumable {
    /// At most KERNEL_MAX chunks (the raw one first if `pending`, then
    /// those of `input`) through upstream's kernel, into `loose`, which is
    /// merged into the stack a GROUP at a time.
    pub(super) fn kernel_chunks(&mut self, pending: bool, input: &[u8], provisional: bool) {
        let count = pending as usize + input.len() / CHUNK_LEN;
        match count {
            0 => {}
            // One chunk that does not complete a group (1 KiB updates):
            // no batch buffers to zero.
            1 if self.loose_len + 1 < GROUP_USIZE && !(self.chunk_counter + 1).is_multiple_of(GROUP) => {
                let mut cv = [[0; CV_LEN]; 1];
                self.chunk_values::<1>(self.chunk_counter, pending, input, &mut cv);
                self.loose[self.loose_len] = cv[0];
                self.loose_len += 1;
                self.chunk_counter += 1;
                // Its group's start was aligned (loose was not empty), or
                // the chunk itself starts a group: the invariant holds.
            }
            1..=GROUP_USIZE => self.kernel_batch::<{ 2 * GROUP_USIZE }>(pending, input, provisional),
            _ => self.kernel_batch::<{ KERNEL_MAX + GROUP_USIZE }>(pending, input, provisional),
        }
    }

    /// `loose` and the new chunks' values in one buffer; all but those of
    /// the last, unfinished group merged into the stack.
    fn kernel_batch<const N: usize>(&mut self, pending: bool, input: &[u8], provisional: bool) {
        let mut nodes = [[0; CV_LEN]; N];
        let held = self.loose_len;
        nodes[..held].copy_from_slice(&self.loose[..held]);
        let count = self.chunk_values::<N>(self.chunk_counter, pending, input, &mut nodes[held..]);
        self.merge_values(&mut nodes, held, count, provisional);
    }

    /// Merges `nodes[..held + count]`, `loose`'s values (all `held` of
    /// them) then those of the next `count` chunks, into the stack; keeps
    /// the last group's loose.
    pub(super) fn merge_values<const N: usize>(&mut self, nodes: &mut [[u8; CV_LEN]; N], held: usize, count: usize, provisional: bool) {
        let start = self.chunk_counter - held as u64;
        self.chunk_counter += count as u64;
        let total = held + count;
        // Keep the last group's values loose if that group starts within
        // this batch (or at `loose`), so the next batch's merges are aligned;
        // a provisional value is never merged (its group stays whole).
        let mut keep = (self.chunk_counter % GROUP) as usize;
        if provisional && keep == 0 {
            keep = GROUP_USIZE;
        }
        if keep > total {
            keep = if provisional { total } else { 0 };
        }
        let merge = total - keep;
        let mut out = [[0; CV_LEN]; N];
        self.absorb(start, &mut nodes[..merge], &mut out[..merge]);
        self.loose[..total - merge].copy_from_slice(&nodes[merge..total]);
        self.loose_len = total - merge;
    }

    /// Merges `loose` into the stack, as must be done before `push` and
    /// before reading the stack.
    pub(super) fn flush(&mut self) {
        if self.loose_len > 0 {
            let held = self.loose_len;
            let mut nodes = self.loose;
            let mut out = [[0; CV_LEN]; GROUP_USIZE];
            self.absorb(self.chunk_counter - held as u64, &mut nodes[..held], &mut out[..held]);
            self.loose_len = 0;
        }
    }

    /// This hasher with `loose` merged, and a provisional chunk value
    /// dropped (its chunk is the current one): itself, or such a copy.
    pub(crate) fn flushed(&self) -> std::borrow::Cow<'_, Resumable> {
        if self.loose_len == 0 {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut copy = self.clone();
        if copy.provisional {
            copy.provisional = false;
            copy.loose_len -= 1;
            copy.chunk_counter -= 1;
        }
        copy.flush();
        std::borrow::Cow::Owned(copy)
    }

    /// The chaining values of the chunks (see `kernel_chunks`), at most N,
    /// into `out`; returns how many.
    pub(super) fn chunk_values<const N: usize>(&self, counter: u64, pending: bool, input: &[u8], out: &mut [[u8; CV_LEN]]) -> usize {
        let count = (pending as usize + input.len() / CHUNK_LEN).min(out.len()).min(N);
        let chunks = pending.then_some(&self.raw[..]).into_iter().chain(input.chunks_exact(CHUNK_LEN));
        let Some(kernel) = kernel() else {
            for (i, (cv, chunk)) in out[..count].iter_mut().zip(chunks).enumerate() {
                self.params.chunk_value_alone(counter + i as u64, chunk, cv);
            }
            return count;
        };
        let mut ptrs = [std::ptr::null::<u8>(); N];
        for (slot, chunk) in ptrs.iter_mut().zip(chunks) {
            *slot = chunk.as_ptr();
        }
        // SAFETY: `count` pointers to whole chunks (CHUNK_LEN / BLOCK_LEN
        // blocks each; `raw` is full when pending), room for `count`
        // chaining values in `out`.
        unsafe {
            kernel(
                ptrs.as_ptr(),
                count,
                CHUNK_LEN / BLOCK_LEN,
                self.params.words.as_ptr(),
                counter,
                true,
                self.params.flags,
                CHUNK_START,
                CHUNK_END,
                out.as_mut_ptr().cast(),
            )
        };
        count
    }

    /// Merges `nodes`, the chaining values of chunks `first..`, into the
    /// stack (which must hold `first`'s subtrees) a level of the tree at a
    /// time, each level's parents in one kernel call (as the official
    /// crate's `compress_parents_parallel`). As binary addition of the
    /// count to `first`: an odd first node pairs with the stack's top, an
    /// odd last one is left on the stack. `out`: scratch of the same length.
    fn absorb(&mut self, mut first: u64, nodes: &mut [[u8; CV_LEN]], out: &mut [[u8; CV_LEN]]) {
        let mut n = nodes.len();
        // The right edge left at each level, lowest first: at most one per
        // level with two nodes or more, then one.
        let mut edges = [[0; CV_LEN]; EDGES];
        let mut edge_count = 0;
        // Levels alternate between the two buffers instead of copying back.
        let (mut from, mut to) = (nodes, out);
        while n > 0 {
            let (mut at, mut made) = (0, 0);
            if first & 1 == 1 && self.stack_len > 0 {
                self.stack_len -= 1;
                to[0] = self.parent(&self.stack[self.stack_len as usize], &from[0]).chaining_value(self.platform);
                (at, made) = (1, 1);
            }
            let pairs = (n - at) / 2;
            self.parents(&from[at..at + 2 * pairs], &mut to[made..made + pairs]);
            at += 2 * pairs;
            made += pairs;
            if at < n {
                if let Some(edge) = edges.get_mut(edge_count) {
                    *edge = from[at];
                    edge_count += 1;
                }
            }
            std::mem::swap(&mut from, &mut to);
            n = made;
            first >>= 1;
        }
        for edge in edges[..edge_count].iter().rev() {
            if let Some(slot) = self.stack.get_mut(self.stack_len as usize) {
                *slot = *edge;
                self.stack_len += 1;
            }
        }
    }

    /// The parents of `children` (pairs of chaining values) into `out`,
    /// through the kernel; with pointers for these alone, where subtree.rs's
    /// `parent_values` (built for thousands) fills 64 one at a time every
    /// call (5% of the time of 16 KiB updates).
    fn parents(&self, children: &[[u8; CV_LEN]], out: &mut [[u8; CV_LEN]]) {
        let Some(kernel) = kernel() else {
            parent_values(&self.params, children.as_flattened(), out.as_flattened_mut());
            return;
        };
        for (children, out) in children.chunks(2 * PARENT_BATCH).zip(out.chunks_mut(PARENT_BATCH)) {
            let mut ptrs = [std::ptr::null::<u8>(); PARENT_BATCH];
            let n = out.len();
            for (slot, pair) in ptrs.iter_mut().zip(children.chunks_exact(2)) {
                *slot = pair.as_ptr().cast();
            }
            // SAFETY: n 64-byte (left, right) records, contiguous in
            // `children`, and n chaining values of room in `out`.
            unsafe {
                kernel(ptrs.as_ptr(), n, 1, self.params.words.as_ptr(), 0, false, self.params.flags | PARENT, 0, 0, out.as_mut_ptr().cast())
            };
        }
    }
}
