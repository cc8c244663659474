//! Subtrees of the BLAKE3 tree (upstream's `hazmat`): the chaining value of
//! input at a chunk-aligned offset, and the merge of two chaining values.
//! Upstream asserts (panics) on misuse; every such case is an error here.

use blake3::hazmat::{self, ChainingValue, HasherExt};
use blake3::CHUNK_LEN;

use crate::error::InvalidArg;
use crate::mode::{mode_key, new_hasher, Mode, MAX_OUTPUT};
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
    let mode = match mode_key(mode, key)? {
        (Mode::Keyed, Some(key)) => hazmat::Mode::KeyedHash(key),
        (Mode::DeriveKey, Some(key)) => hazmat::Mode::DeriveKeyMaterial(key),
        _ => hazmat::Mode::Hash,
    };
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

/// Chaining values (never roots) of the chunks of `input` numbered from
/// chunk `counter`: whole chunks, the last possibly short but not empty;
/// 32 bytes each, in order.
pub fn chunk_chaining_values(mode: u32, key: Option<&[u8]>, counter: u64, input: &[u8]) -> Result<Vec<u8>, InvalidArg> {
    if input.is_empty() {
        return Err(InvalidArg::range("input", "at least one byte of chunks is needed"));
    }
    let fits = counter.checked_mul(CHUNK_LEN as u64).and_then(|offset| offset.checked_add(input.len() as u64));
    if fits.is_none() {
        return Err(InvalidArg::range("counter", "these chunks pass the 2^64-byte input limit"));
    }
    let fresh = new_hasher(mode, key)?;
    let mut out = Vec::with_capacity(input.len().div_ceil(CHUNK_LEN) * CV_LEN);
    for (i, chunk) in input.chunks(CHUNK_LEN).enumerate() {
        let mut hasher = fresh.clone();
        hasher.set_input_offset((counter + i as u64) * CHUNK_LEN as u64);
        hasher.update(chunk);
        out.extend_from_slice(&hasher.finalize_non_root());
    }
    Ok(out)
}

/// Parent chaining values (never roots) of 64-byte (left, right) records.
pub fn parent_chaining_values(mode: u32, key: Option<&[u8]>, records: &[u8]) -> Result<Vec<u8>, InvalidArg> {
    if !records.len().is_multiple_of(2 * CV_LEN) {
        return Err(InvalidArg::range("records", format!("records are 64 bytes each, got {} bytes", records.len())));
    }
    let mode = match mode_key(mode, key)? {
        (Mode::Keyed, Some(key)) => hazmat::Mode::KeyedHash(key),
        (Mode::DeriveKey, Some(key)) => hazmat::Mode::DeriveKeyMaterial(key),
        _ => hazmat::Mode::Hash,
    };
    let mut out = Vec::with_capacity(records.len() / 2);
    for record in records.chunks_exact(2 * CV_LEN) {
        let (left, right) = record.split_at(CV_LEN);
        out.extend_from_slice(&hazmat::merge_subtrees_non_root(&chaining_value("left", left)?, &chaining_value("right", right)?, mode));
    }
    Ok(out)
}
