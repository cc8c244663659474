//! Many inputs in one call (`hash_many`), hashed across inputs where they
//! allow it: chunk k of four inputs of one length sits in the four SIMD lanes
//! side by side, then their parents, then their roots. One 4 KiB input keeps
//! the lanes busy for its 4 chunks, but its 3 parents and its root are single
//! compressions; four such inputs side by side run every step 4 wide.

use crate::kernel::{Kernel, Words};
use crate::tree;

/// The inputs of a batch in staged bytes: back to back, each `len` bytes or
/// ending where `ends` says (little-endian u32s, from byte 0).
pub enum Items<'a> {
    Equal { data: &'a [u8], len: usize },
    Ends { data: &'a [u8], ends: &'a [u8] },
}

impl<'a> Items<'a> {
    /// Input `i`, or `None` if it lies outside the data or ends before its
    /// predecessor.
    pub fn get(&self, i: usize) -> Option<&'a [u8]> {
        match *self {
            Items::Equal { data, len } => data.get(i * len..(i + 1) * len),
            Items::Ends { data, ends } => {
                let end = |i: usize| Some(u32::from_le_bytes(ends.get(4 * i..4 * i + 4)?.try_into().ok()?) as usize);
                let start = if i == 0 { 0 } else { end(i - 1)? };
                data.get(start..end(i)?)
            }
        }
    }
}

/// Hashes inputs `0..count` into `out_len` bytes each, one after another in
/// `out`. The caller has checked every input (`Items::get`) and `out`'s size.
pub fn hash_many(kernel: Kernel, items: &Items, count: usize, key: &Words, flags: u32, out_len: usize, out: &mut [u8]) {
    if out_len == 0 {
        return;
    }
    let mut digests = out.chunks_mut(out_len).take(count);
    let mut i = 0;
    while i < count {
        let Some(input) = items.get(i) else { return };
        #[cfg(blake3_kit_simd)]
        if kernel.lanes() && out_len <= lanes::CV_BYTES && lanes::fits(input.len()) {
            let mut group = [input; 4];
            let mut n = 1;
            while n < 4 {
                match items.get(i + n) {
                    Some(next) if i + n < count && next.len() == input.len() => group[n] = next,
                    _ => break,
                }
                n += 1;
            }
            if n > 1 {
                let roots = lanes::hash4(&group, key, flags);
                // Zipped copies: no length check that could panic.
                for (root, digest) in roots.iter().take(n).zip(&mut digests) {
                    for (to, from) in digest.iter_mut().zip(root) {
                        *to = *from;
                    }
                }
                i += n;
                continue;
            }
        }
        if let Some(digest) = digests.next() {
            hash_one(kernel, input, key, flags, digest);
        }
        i += 1;
    }
}

/// One input on its own: out of line, one copy for every caller here.
#[inline(never)]
fn hash_one(kernel: Kernel, input: &[u8], key: &Words, flags: u32, out: &mut [u8]) {
    tree::hash_all(kernel, input, key, flags).root_fill(kernel, 0, out);
}

#[cfg(blake3_kit_simd)]
mod lanes {
    use crate::kernel::wasm_simd::hash4_same_counter;
    use crate::kernel::{bytes_from_words, Words, BLOCK_LEN, CHUNK_END, CHUNK_LEN, CHUNK_START, PARENT, ROOT};

    pub const CV_BYTES: usize = 32;
    /// Inputs of up to this many chunks go four at a time; a longer one
    /// keeps the four lanes busy by itself.
    const MAX_CHUNKS: usize = 16;

    /// Lengths the lanes take: whole blocks (the kernel has no short
    /// block), not empty, at most MAX_CHUNKS chunks.
    pub fn fits(len: usize) -> bool {
        len > 0 && len.is_multiple_of(BLOCK_LEN) && len <= MAX_CHUNKS * CHUNK_LEN
    }

    /// The 32-byte roots of four inputs of one length (`fits`); lanes may
    /// repeat an input. Written without a panicking index: a panic would link
    /// core's formatting code into the module (~1 KB gzip).
    pub fn hash4(inputs: &[&[u8]; 4], key: &Words, flags: u32) -> [[u8; CV_BYTES]; 4] {
        let len = inputs[0].len();
        let chunks = len.div_ceil(CHUNK_LEN).min(MAX_CHUNKS);
        let mut roots = [[0u32; 8]; 4];
        if chunks == 1 {
            let ptrs = inputs.map(|input| input.as_ptr());
            // SAFETY: four inputs of `len` bytes (whole blocks), four CVs out.
            unsafe { hash4_same_counter(&ptrs, len / BLOCK_LEN, key, 0, flags, CHUNK_START, CHUNK_END | ROOT, roots.as_mut_ptr()) };
            return roots.map(|words| bytes_from_words(&words));
        }
        // cvs[j][k]: input j's chaining value of chunk k, then of its parents.
        let mut cvs = [[[0u32; 8]; MAX_CHUNKS]; 4];
        let mut four = [[0u32; 8]; 4];
        for k in 0..chunks {
            let start = k * CHUNK_LEN;
            // In bounds: k < chunks, so start < len.
            let ptrs = inputs.map(|input| input.as_ptr().wrapping_add(start));
            // SAFETY: four inputs with `blocks` whole blocks from `start`, four CVs out.
            unsafe {
                hash4_same_counter(
                    &ptrs,
                    (len - start).min(CHUNK_LEN) / BLOCK_LEN,
                    key,
                    k as u64,
                    flags,
                    CHUNK_START,
                    CHUNK_END,
                    four.as_mut_ptr(),
                )
            };
            for (lane, cv) in cvs.iter_mut().zip(four) {
                if let Some(slot) = lane.get_mut(k) {
                    *slot = cv;
                }
            }
        }
        // Pairs left to right, an odd one carried up: BLAKE3's tree shape.
        // Pair p of the four inputs is one 4-lane call; its parents go to
        // index p, which no later pair (2p + 2 and up) still needs.
        let mut width = chunks;
        while width > 2 {
            let pairs = width / 2;
            for p in 0..pairs {
                let ptrs = cvs.each_ref().map(|lane| lane.as_ptr().wrapping_add(2 * p).cast::<u8>());
                // SAFETY: 2p + 1 < width <= MAX_CHUNKS: four 64-byte parent blocks (two adjacent CVs), four CVs out.
                unsafe { hash4_same_counter(&ptrs, 1, key, 0, flags | PARENT, 0, 0, four.as_mut_ptr()) };
                for (lane, cv) in cvs.iter_mut().zip(four) {
                    if let Some(slot) = lane.get_mut(p) {
                        *slot = cv;
                    }
                }
            }
            if width % 2 == 1 {
                for lane in cvs.iter_mut() {
                    if let Some(&last) = lane.get(width - 1) {
                        if let Some(slot) = lane.get_mut(pairs) {
                            *slot = last;
                        }
                    }
                }
            }
            width = pairs + width % 2;
        }
        let ptrs = cvs.each_ref().map(|lane| lane.as_ptr().cast::<u8>());
        // SAFETY: four root blocks (two adjacent CVs each), four CVs out.
        unsafe { hash4_same_counter(&ptrs, 1, key, 0, flags | PARENT | ROOT, 0, 0, roots.as_mut_ptr()) };
        roots.map(|words| bytes_from_words(&words))
    }
}
