//! Many inputs in one call (`hashMany`), hashed *across* inputs: chunk k of
//! up to 16 inputs sits in the SIMD lanes side by side, then their parents,
//! then their roots. A 4 KiB filesystem block is only 4 chunks, which fills
//! a quarter of AVX-512's 16 lanes when hashed alone.
//!
//! The lanes are upstream's `hash_many` kernels (kernel.rs). Where there is
//! none (other targets) or an input does not fit the kernel, each input is
//! hashed on its own with the crate's `Hasher`.

use crate::error::InvalidArg;
use crate::kernel::{kernel, HashManyFn, Params, BLOCK_LEN, CHUNK_END, CHUNK_LEN, CHUNK_START, CV_LEN, PARENT, ROOT};
use crate::pool;

/// Inputs of up to this many chunks go through the kernel together; a longer
/// one fills the lanes by itself (the crate hashes its chunks 16 at a time).
const MAX_LANE_CHUNKS: usize = 16;
/// Inputs per group: AVX-512's 16 lanes. A group's chaining values (16 x 16
/// x 32 bytes) stay on the stack and in L1.
const GROUP: usize = 16;

/// The inputs of a batch: one buffer and where each input ends in it.
pub enum Items<'a> {
    /// `count` inputs of `len` bytes each, back to back.
    Equal { data: &'a [u8], len: usize, count: usize },
    /// Input i is `data[ends[i - 1]..ends[i]]` (from 0 for the first).
    Ends { data: &'a [u8], ends: &'a [u32] },
}

impl<'a> Items<'a> {
    /// Checks that every input lies within `data`, in order.
    pub fn equal(data: &'a [u8], len: usize, count: usize) -> Result<Items<'a>, InvalidArg> {
        if len.checked_mul(count) != Some(data.len()) {
            return Err(InvalidArg::range(
                "data",
                format!("{count} items of {len} bytes need {} bytes, got {}", len as u128 * count as u128, data.len()),
            ));
        }
        Ok(Items::Equal { data, len, count })
    }

    pub fn ends(data: &'a [u8], ends: &'a [u32]) -> Result<Items<'a>, InvalidArg> {
        let mut start = 0;
        for (i, &end) in ends.iter().enumerate() {
            if end < start || end as usize > data.len() {
                return Err(InvalidArg::range("ends", format!("item {i} ends at {end}, outside {start}..={}", data.len())));
            }
            start = end;
        }
        Ok(Items::Ends { data, ends })
    }

    pub fn len(&self) -> usize {
        match self {
            Items::Equal { count, .. } => *count,
            Items::Ends { ends, .. } => ends.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn get(&self, i: usize) -> &'a [u8] {
        match *self {
            Items::Equal { data, len, .. } => &data[i * len..(i + 1) * len],
            Items::Ends { data, ends } => {
                let start = if i == 0 { 0 } else { ends[i - 1] as usize };
                &data[start..ends[i] as usize]
            }
        }
    }

    fn bytes(&self) -> usize {
        match self {
            Items::Equal { data, .. } | Items::Ends { data, .. } => data.len(),
        }
    }
}

/// Hashes every input of `items` into `out_len` bytes, input i's at
/// `out[i * out_len..]`, in `mode` with `key` (as `hash_into`). A batch of
/// at least `RAYON_MIN` bytes is shared out among the pool's threads.
pub fn hash_many(mode: u32, key: Option<&[u8]>, items: &Items, out_len: usize, out: &mut [u8]) -> Result<(), InvalidArg> {
    let params = Params::new(mode, key)?;
    if out_len.checked_mul(items.len()) != Some(out.len()) {
        return Err(InvalidArg::range(
            "out",
            format!("{} digests of {out_len} bytes need {} bytes, got {}", items.len(), out_len as u128 * items.len() as u128, out.len()),
        ));
    }
    if items.is_empty() || out_len == 0 {
        return Ok(());
    }
    let pool = pool::current();
    match pool.rayon_for(items.bytes()) {
        Some(rayon) => {
            use rayon::prelude::*;
            // A few slices per thread, so a slow thread does not hold up the rest.
            let per_slice = items.len().div_ceil(pool.threads() * 4).max(1);
            rayon.install(|| {
                out.par_chunks_mut(per_slice * out_len)
                    .enumerate()
                    .for_each(|(s, out)| hash_range(&params, items, s * per_slice, out_len, out));
            });
        }
        None => hash_range(&params, items, 0, out_len, out),
    }
    Ok(())
}

/// Inputs `first..` into `out` (as many as it has room for).
fn hash_range(params: &Params, items: &Items, first: usize, out_len: usize, out: &mut [u8]) {
    let count = out.len() / out_len;
    let kernel = if out_len <= CV_LEN { kernel() } else { None };
    let mut i = 0;
    while i < count {
        let input = items.get(first + i);
        // A run of inputs of this one length, up to a group.
        let mut run = 1;
        if let Some(kernel) = kernel.filter(|_| fits_lanes(input.len())) {
            while run < GROUP && i + run < count && items.get(first + i + run).len() == input.len() {
                run += 1;
            }
            if run > 1 {
                let inputs: [&[u8]; GROUP] = std::array::from_fn(|j| if j < run { items.get(first + i + j) } else { input });
                hash_group(kernel, params, &inputs[..run], &mut out[i * out_len..(i + run) * out_len], out_len);
                i += run;
                continue;
            }
        }
        params.hash_alone(input, &mut out[i * out_len..(i + 1) * out_len]);
        i += run;
    }
}

/// Lengths the group path takes: whole blocks (the kernel has no short
/// block), at most MAX_LANE_CHUNKS chunks, and not a single chunk that is
/// not also whole (a lone partial chunk needs its last block's length).
fn fits_lanes(len: usize) -> bool {
    len > 0 && len.is_multiple_of(BLOCK_LEN) && len <= MAX_LANE_CHUNKS * CHUNK_LEN
}

/// Inputs of one length (`fits_lanes`), 2 to GROUP of them, side by side.
fn hash_group(kernel: HashManyFn, params: &Params, inputs: &[&[u8]], out: &mut [u8], out_len: usize) {
    let n = inputs.len();
    let len = inputs[0].len();
    let chunks = len.div_ceil(CHUNK_LEN);
    let key = params.words.as_ptr();
    let flags = params.flags;
    let mut roots = [[0u8; CV_LEN]; GROUP];
    if chunks == 1 {
        let ptrs: [*const u8; GROUP] = std::array::from_fn(|j| inputs.get(j).map_or(std::ptr::null(), |s| s.as_ptr()));
        // SAFETY: n inputs of len (whole blocks) bytes each, n digests out.
        unsafe {
            kernel(ptrs.as_ptr(), n, len / BLOCK_LEN, key, 0, false, flags, CHUNK_START, CHUNK_END | ROOT, roots.as_mut_ptr().cast())
        };
    } else {
        // cvs[j][k]: input j's chaining value of chunk k, then of its parents.
        let mut cvs = [[[0u8; CV_LEN]; MAX_LANE_CHUNKS]; GROUP];
        let mut level = [[0u8; CV_LEN]; GROUP * MAX_LANE_CHUNKS / 2];
        for k in 0..chunks {
            let start = k * CHUNK_LEN;
            let blocks = (len - start).min(CHUNK_LEN) / BLOCK_LEN;
            let ptrs: [*const u8; GROUP] = std::array::from_fn(|j| inputs.get(j).map_or(std::ptr::null(), |s| s[start..].as_ptr()));
            // SAFETY: n inputs with `blocks` whole blocks from `start`, n CVs out.
            unsafe { kernel(ptrs.as_ptr(), n, blocks, key, k as u64, false, flags, CHUNK_START, CHUNK_END, level.as_mut_ptr().cast()) };
            for (lane, cv) in cvs.iter_mut().zip(&level[..n]) {
                lane[k] = *cv;
            }
        }
        // Pairs left to right, an odd one carried up: the crate's tree shape.
        let mut width = chunks;
        while width > 2 {
            let pairs = width / 2;
            let mut ptrs = [std::ptr::null::<u8>(); GROUP * MAX_LANE_CHUNKS / 2];
            for j in 0..n {
                for p in 0..pairs {
                    ptrs[j * pairs + p] = cvs[j][2 * p].as_ptr();
                }
            }
            // SAFETY: n * pairs 64-byte parent blocks (two adjacent CVs), as many CVs out.
            unsafe { kernel(ptrs.as_ptr(), n * pairs, 1, key, 0, false, flags | PARENT, 0, 0, level.as_mut_ptr().cast()) };
            for j in 0..n {
                if width % 2 == 1 {
                    cvs[j].copy_within(width - 1..width, pairs);
                }
                cvs[j][..pairs].copy_from_slice(&level[j * pairs..(j + 1) * pairs]);
            }
            width = pairs + width % 2;
        }
        let ptrs: [*const u8; GROUP] = std::array::from_fn(|j| if j < n { cvs[j][0].as_ptr() } else { std::ptr::null() });
        // SAFETY: n root blocks (two adjacent CVs each), n digests out.
        unsafe { kernel(ptrs.as_ptr(), n, 1, key, 0, false, flags | PARENT | ROOT, 0, 0, roots.as_mut_ptr().cast()) };
    }
    for (digest, root) in out.chunks_exact_mut(out_len).zip(&roots) {
        digest.copy_from_slice(&root[..out_len]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blake3::hazmat::HasherExt;

    fn reference(mode: u32, key: Option<&[u8; 32]>, input: &[u8], out_len: usize) -> Vec<u8> {
        let mut hasher = match (mode, key) {
            (1, Some(key)) => blake3::Hasher::new_keyed(key),
            (2, Some(key)) => blake3::Hasher::new_from_context_key(key),
            _ => blake3::Hasher::new(),
        };
        hasher.update(input);
        let mut out = vec![0; out_len];
        hasher.finalize_xof().fill(&mut out);
        out
    }

    fn bytes(len: usize, seed: u32) -> Vec<u8> {
        let mut x = seed.wrapping_mul(2654435761).wrapping_add(1);
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            })
            .collect()
    }

    #[test]
    fn equal_lengths_match_the_crate_in_every_mode() {
        let key = [7u8; 32];
        let context_key = crate::mode::context_key("blake3-kit many test");
        for len in
            [0, 1, 63, 64, 65, 128, 960, 1023, 1024, 1025, 2048, 3072, 4096, 5120, 7168, 8192, 15 * 1024, 16 * 1024, 16 * 1024 + 64, 40000]
        {
            for count in [1, 2, 3, 5, 16, 17, 40] {
                let data = bytes(len * count, (len * 31 + count) as u32);
                for (mode, k) in [(0, None), (1, Some(&key)), (2, Some(&context_key))] {
                    for out_len in [32, 16, 1, 64] {
                        let items = Items::equal(&data, len, count).unwrap();
                        let mut out = vec![0; count * out_len];
                        hash_many(mode, k.map(|k| &k[..]), &items, out_len, &mut out).unwrap();
                        for i in 0..count {
                            let want = reference(mode, k, &data[i * len..(i + 1) * len], out_len);
                            assert_eq!(
                                &out[i * out_len..(i + 1) * out_len],
                                &want[..],
                                "len {len} count {count} mode {mode} out {out_len} item {i}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn mixed_lengths_match_the_crate() {
        let lens = [0, 64, 64, 64, 1, 4096, 4096, 4096, 4096, 4096, 1025, 1024, 1024, 100, 0, 0, 2048, 2048, 64 * 1024];
        let total: usize = lens.iter().sum();
        let data = bytes(total, 9);
        let mut ends = Vec::new();
        let mut end = 0;
        for len in lens {
            end += len;
            ends.push(end as u32);
        }
        let items = Items::ends(&data, &ends).unwrap();
        let mut out = vec![0; lens.len() * 32];
        hash_many(0, None, &items, 32, &mut out).unwrap();
        let mut start = 0;
        for (i, &end) in ends.iter().enumerate() {
            assert_eq!(&out[i * 32..(i + 1) * 32], blake3::hash(&data[start..end as usize]).as_bytes(), "item {i}");
            start = end as usize;
        }
    }

    #[test]
    fn large_batches_use_the_pool_and_still_match() {
        let (len, count) = (4096, 600); // 2.4 MiB: past RAYON_MIN
        let data = bytes(len * count, 3);
        let items = Items::equal(&data, len, count).unwrap();
        let mut out = vec![0; count * 32];
        hash_many(0, None, &items, 32, &mut out).unwrap();
        for i in 0..count {
            assert_eq!(&out[i * 32..(i + 1) * 32], blake3::hash(&data[i * len..(i + 1) * len]).as_bytes());
        }
    }

    #[test]
    fn refuses_bad_shapes_without_writing() {
        let data = [0u8; 100];
        assert_eq!(Items::equal(&data, 33, 3).err().unwrap().arg, "data");
        assert_eq!(Items::ends(&data, &[10, 5]).err().unwrap().arg, "ends");
        assert_eq!(Items::ends(&data, &[101]).err().unwrap().arg, "ends");
        let items = Items::equal(&data, 10, 10).unwrap();
        let mut out = [9u8; 31];
        assert_eq!(hash_many(0, None, &items, 3, &mut out).err().unwrap().arg, "out");
        assert!(out.iter().all(|&b| b == 9));
        assert_eq!(hash_many(1, None, &items, 3, &mut [0; 30]).err().unwrap().arg, "key");
    }
}
