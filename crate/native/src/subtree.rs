//! Subtrees of the BLAKE3 tree (upstream's `hazmat`): the chaining value of
//! input at a chunk-aligned offset, and the merge of two chaining values.
//! Upstream asserts (panics) on misuse; every such case is an error here.

use blake3::hazmat::{self, ChainingValue, HasherExt};
use blake3::CHUNK_LEN;

use crate::error::InvalidArg;
use crate::kernel::{kernel, Params, BLOCK_LEN, CHUNK_END, CHUNK_START, PARENT};
use crate::mode::{new_hasher, MAX_OUTPUT};
use crate::pool;

pub const CV_LEN: usize = 32;

/// The most bytes the subtree starting at `offset` can hold (upstream's
/// `max_subtree_len`; `None` at offset 0, the tree's left edge).
pub fn max_subtree_len(offset: u64) -> Result<Option<u64>, InvalidArg> {
    if !offset.is_multiple_of(CHUNK_LEN as u64) {
        return Err(InvalidArg::range("offset", format!("offset must be a multiple of {CHUNK_LEN} (a chunk boundary), got {offset}")));
    }
    Ok(hazmat::max_subtree_len(offset))
}

/// The non-root chaining value of `input`, which starts `offset` bytes into
/// the whole input (pool threads above `RAYON_MIN`).
pub fn subtree_chaining_value(mode: u32, key: Option<&[u8]>, offset: u64, input: &[u8]) -> Result<ChainingValue, InvalidArg> {
    let max = max_subtree_len(offset)?;
    if input.is_empty() {
        return Err(InvalidArg::range("input", "a subtree holds at least one byte"));
    }
    if let Some(max) = max {
        if input.len() as u64 > max {
            return Err(InvalidArg::range(
                "input",
                format!("the subtree at offset {offset} holds at most {max} bytes, got {}", input.len()),
            ));
        }
    }
    if offset.checked_add(input.len() as u64).is_none() {
        return Err(InvalidArg::range("input", "offset + input length passes 2^64"));
    }
    let mut hasher = new_hasher(mode, key)?;
    hasher.set_input_offset(offset);
    pool::update(&mut hasher, input);
    Ok(hasher.finalize_non_root())
}

/// The parent of `left` and `right`: its chaining value into `out` (32
/// bytes) when `root` is false, else root output from byte `position` on
/// into all of `out`.
pub fn merge_subtrees(
    mode: u32,
    key: Option<&[u8]>,
    left: &[u8],
    right: &[u8],
    root: bool,
    position: u64,
    out: &mut [u8],
) -> Result<(), InvalidArg> {
    let left = chaining_value("left", left)?;
    let right = chaining_value("right", right)?;
    let params = Params::new(mode, key)?;
    let mode = params.hazmat_mode();
    if !root {
        if out.len() != CV_LEN {
            return Err(InvalidArg::range("out", format!("a chaining value is {CV_LEN} bytes, out has {}", out.len())));
        }
        out.copy_from_slice(&hazmat::merge_subtrees_non_root(&left, &right, mode));
        return Ok(());
    }
    if position as u128 + out.len() as u128 > MAX_OUTPUT as u128 {
        return Err(InvalidArg::range("position", "BLAKE3 output ends at 2^64 - 1 bytes: position + output length is past it"));
    }
    let mut reader = hazmat::merge_subtrees_root_xof(&left, &right, mode);
    reader.set_position(position);
    reader.fill(out);
    Ok(())
}

fn chaining_value(arg: &'static str, bytes: &[u8]) -> Result<ChainingValue, InvalidArg> {
    <ChainingValue>::try_from(bytes)
        .map_err(|_| InvalidArg::range(arg, format!("{arg} must be a {CV_LEN}-byte chaining value, got {} bytes", bytes.len())))
}

/// Chunks per kernel call; their pointers sit on the stack.
const BATCH: usize = 64;
/// Chunks per task on the pool's threads: 256 KiB of input.
const TASK_CHUNKS: usize = 256;

/// Chaining values (never roots) of the chunks of `input` numbered from
/// chunk `counter`: whole chunks, the last possibly short but not empty;
/// 32 bytes each, in order. The whole chunks go through upstream's
/// `hash_many` kernel, as the crate's own `compress_chunks_parallel` does;
/// a Hasher per chunk (before) ran 16 MiB at 0.8 GB/s.
pub fn chunk_chaining_values(mode: u32, key: Option<&[u8]>, counter: u64, input: &[u8]) -> Result<Vec<u8>, InvalidArg> {
    if input.is_empty() {
        return Err(InvalidArg::range("input", "at least one byte of chunks is needed"));
    }
    let fits = counter.checked_mul(CHUNK_LEN as u64).and_then(|offset| offset.checked_add(input.len() as u64));
    if fits.is_none() {
        return Err(InvalidArg::range("counter", "these chunks pass the 2^64-byte input limit"));
    }
    let params = Params::new(mode, key)?;
    let mut out = vec![0; input.len().div_ceil(CHUNK_LEN) * CV_LEN];
    let pool = pool::current();
    match pool.rayon_for(input.len()) {
        Some(rayon) => {
            use rayon::prelude::*;
            rayon.install(|| {
                out.par_chunks_mut(TASK_CHUNKS * CV_LEN)
                    .zip(input.par_chunks(TASK_CHUNKS * CHUNK_LEN))
                    .enumerate()
                    .for_each(|(task, (out, input))| chunk_values(&params, counter + (task * TASK_CHUNKS) as u64, input, out))
            });
        }
        None => chunk_values(&params, counter, input, &mut out),
    }
    Ok(out)
}

/// `chunk_chaining_values` of `input` into `out`, on this thread.
pub(crate) fn chunk_values(params: &Params, counter: u64, input: &[u8], out: &mut [u8]) {
    let mut done = 0;
    if let Some(kernel) = kernel() {
        let whole = input.len() / CHUNK_LEN;
        while done < whole {
            let n = (whole - done).min(BATCH);
            let ptrs: [*const u8; BATCH] =
                std::array::from_fn(|i| if i < n { input[(done + i) * CHUNK_LEN..].as_ptr() } else { std::ptr::null() });
            let at = &mut out[done * CV_LEN..(done + n) * CV_LEN];
            // SAFETY: n whole chunks (CHUNK_LEN / BLOCK_LEN blocks) at those
            // pointers, n chaining values of room at `at`.
            unsafe {
                kernel(
                    ptrs.as_ptr(),
                    n,
                    CHUNK_LEN / BLOCK_LEN,
                    params.words.as_ptr(),
                    counter + done as u64,
                    true,
                    params.flags,
                    CHUNK_START,
                    CHUNK_END,
                    at.as_mut_ptr(),
                )
            };
            done += n;
        }
    }
    for (i, chunk) in input[done * CHUNK_LEN..].chunks(CHUNK_LEN).enumerate() {
        let at = (done + i) * CV_LEN;
        params.chunk_value_alone(counter + (done + i) as u64, chunk, &mut out[at..at + CV_LEN]);
    }
}

/// Parent chaining values (never roots) of 64-byte (left, right) records,
/// through the kernel as the crate's `compress_parents_parallel` does.
pub fn parent_chaining_values(mode: u32, key: Option<&[u8]>, records: &[u8]) -> Result<Vec<u8>, InvalidArg> {
    if !records.len().is_multiple_of(2 * CV_LEN) {
        return Err(InvalidArg::range("records", format!("records are 64 bytes each, got {} bytes", records.len())));
    }
    let params = Params::new(mode, key)?;
    let mut out = vec![0; records.len() / 2];
    let pool = pool::current();
    match pool.rayon_for(records.len()) {
        Some(rayon) => {
            use rayon::prelude::*;
            rayon.install(|| {
                out.par_chunks_mut(TASK_CHUNKS * CV_LEN)
                    .zip(records.par_chunks(TASK_CHUNKS * 2 * CV_LEN))
                    .for_each(|(out, records)| parent_values(&params, records, out))
            });
        }
        None => parent_values(&params, records, &mut out),
    }
    Ok(out)
}

/// `parent_chaining_values` of `records` into `out`, on this thread.
pub(crate) fn parent_values(params: &Params, records: &[u8], out: &mut [u8]) {
    let count = records.len() / (2 * CV_LEN);
    let Some(kernel) = kernel() else {
        for (record, out) in records.chunks_exact(2 * CV_LEN).zip(out.chunks_exact_mut(CV_LEN)) {
            let left = ChainingValue::try_from(&record[..CV_LEN]).unwrap_or_default();
            let right = ChainingValue::try_from(&record[CV_LEN..]).unwrap_or_default();
            out.copy_from_slice(&hazmat::merge_subtrees_non_root(&left, &right, params.hazmat_mode()));
        }
        return;
    };
    let mut done = 0;
    while done < count {
        let n = (count - done).min(BATCH);
        let ptrs: [*const u8; BATCH] =
            std::array::from_fn(|i| if i < n { records[(done + i) * 2 * CV_LEN..].as_ptr() } else { std::ptr::null() });
        let at = &mut out[done * CV_LEN..(done + n) * CV_LEN];
        // SAFETY: n one-block (64-byte) parent records, n chaining values of room.
        unsafe { kernel(ptrs.as_ptr(), n, 1, params.words.as_ptr(), 0, false, params.flags | PARENT, 0, 0, at.as_mut_ptr()) };
        done += n;
    }
}
