//! Bao trees in one pass: the parents of the tree over some content, written
//! in pre-order (each parent before its subtrees) straight into the caller's
//! buffer, with the leaves' bytes in place for a combined encoding. Leaves
//! are groups of 2^chunk_log chunks (bao: 0; iroh's bao-tree: 4).
//!
//! Chaining values come from upstream's `hash_many` kernel 64 chunks at a
//! time (kernel.rs), the subtrees above them from the pool's threads. Built
//! in JS from the chunk values instead, a 64 MiB outboard ran at 0.3x of
//! `hash()`, a third of it in the pre-order walk.

use blake3::hazmat::{self, ChainingValue, HasherExt};

use crate::error::InvalidArg;
use crate::kernel::{Params, CHUNK_LEN, CV_LEN};
use crate::pool;
use crate::subtree::{chunk_values, max_subtree_len, parent_values};

const PARENT_LEN: usize = 2 * CV_LEN;
/// Chunks a batch hashes together: one kernel call for their chaining
/// values, one per level for their parents. 256 rather than 64: 64 MiB
/// outboards 0.83x -> 0.88x of hash() (bench/bao.mjs, native, one run each).
const BATCH_CHUNKS: usize = 256;
/// Subtrees from this size hand their halves to two threads.
const JOIN_MIN: usize = 256 * 1024;
/// bao-tree's largest chunk log that we take (groups of 64 MiB).
pub const MAX_CHUNK_LOG: u32 = 16;

/// Bytes of the pre-order tree of `len` content bytes with leaves of
/// 2^chunk_log chunks: its parents, plus the content when `combined`.
pub fn encoded_len(len: u64, chunk_log: u32, combined: bool) -> u64 {
    let block = (CHUNK_LEN as u64) << chunk_log;
    let parents = (len.div_ceil(block).max(1) - 1) * PARENT_LEN as u64;
    parents + if combined { len } else { 0 }
}

/// Writes the pre-order tree of `content` into `out` (exactly
/// `encoded_len` bytes, no length header) and returns the root hash
/// (`root`), or else the chaining value of `content` as the subtree that
/// starts at chunk `first` of a larger input.
#[allow(clippy::too_many_arguments)]
pub fn encode(
    mode: u32,
    key: Option<&[u8]>,
    content: &[u8],
    first: u64,
    chunk_log: u32,
    combined: bool,
    root: bool,
    out: &mut [u8],
) -> Result<[u8; 32], InvalidArg> {
    let params = Params::new(mode, key)?;
    if chunk_log > MAX_CHUNK_LOG {
        return Err(InvalidArg::range("chunkLog", format!("chunkLog must be from 0 to {MAX_CHUNK_LOG}, got {chunk_log}")));
    }
    if root && first != 0 {
        return Err(InvalidArg::range("first", "first must be 0 for the root"));
    }
    if !root {
        check_subtree(first, content.len())?;
    }
    let want = encoded_len(content.len() as u64, chunk_log, combined);
    if out.len() as u64 != want {
        return Err(InvalidArg::range("out", format!("out must be the encoding's {want} bytes, got {}", out.len())));
    }
    let tree = Tree { params, chunk_log, combined };
    let block = CHUNK_LEN << chunk_log;
    if root && content.len() <= block {
        // One leaf: no parents, and the root is the plain hash.
        out.copy_from_slice(if combined { content } else { &[] });
        let mut hash = [0; 32];
        params.hash_alone(content, &mut hash);
        return Ok(hash);
    }
    let pool = pool::current();
    let parallel = pool.rayon_for(content.len());
    if !root {
        return Ok(match parallel {
            Some(rayon) => rayon.install(|| tree.subtree(content, first, out, true)),
            None => tree.subtree(content, first, out, false),
        });
    }
    let (left, right) = match parallel {
        Some(rayon) => rayon.install(|| tree.children(content, 0, out, true)),
        None => tree.children(content, 0, out, false),
    };
    Ok(*hazmat::merge_subtrees_root(&left, &right, params.hazmat_mode()).as_bytes())
}

/// A non-root subtree: not empty, and within the subtree that can start at
/// chunk `first` (upstream's power-of-two rule).
fn check_subtree(first: u64, len: usize) -> Result<(), InvalidArg> {
    let offset = first.checked_mul(CHUNK_LEN as u64).filter(|offset| offset.checked_add(len as u64).is_some());
    let Some(offset) = offset else {
        return Err(InvalidArg::range("first", "first puts the subtree past the 2^64-byte input limit"));
    };
    if len == 0 {
        return Err(InvalidArg::range("content", "content must hold at least one byte for a subtree"));
    }
    if let Some(max) = max_subtree_len(offset)?.filter(|&max| len as u64 > max) {
        return Err(InvalidArg::range(
            "content",
            format!("content of {len} bytes does not fit the subtree at chunk {first}, which holds at most {max}"),
        ));
    }
    Ok(())
}

struct Tree {
    params: Params,
    chunk_log: u32,
    combined: bool,
}

impl Tree {
    /// The bytes a subtree of `len` content bytes takes in the encoding.
    fn region(&self, len: usize) -> usize {
        encoded_len(len as u64, self.chunk_log, self.combined) as usize
    }

    /// The non-root chaining value of `content` (starting at chunk
    /// `first`), its tree written into `out` (`region` bytes).
    fn subtree(&self, content: &[u8], first: u64, out: &mut [u8], parallel: bool) -> ChainingValue {
        let chunks = content.len().div_ceil(CHUNK_LEN);
        if chunks.is_power_of_two() && chunks <= BATCH_CHUNKS {
            return self.batch(content, first, out);
        }
        if chunks <= 1 << self.chunk_log {
            // A leaf group of more chunks than a batch: the crate's Hasher
            // at its offset fills its own lanes.
            out.copy_from_slice(if self.combined { content } else { &[] });
            let mut hasher = self.params.hasher();
            hasher.set_input_offset(first * CHUNK_LEN as u64);
            hasher.update(content);
            return hasher.finalize_non_root();
        }
        let (left, right) = self.children(content, first, out, parallel);
        hazmat::merge_subtrees_non_root(&left, &right, self.params.hazmat_mode())
    }

    /// A parent over `content` (more than one leaf): writes it and its
    /// subtrees into `out`, and returns its children's chaining values.
    fn children(&self, content: &[u8], first: u64, out: &mut [u8], parallel: bool) -> (ChainingValue, ChainingValue) {
        let left_len = left_len(content.len());
        let (node, rest) = out.split_at_mut(PARENT_LEN);
        let (left_out, right_out) = rest.split_at_mut(self.region(left_len));
        let (left_in, right_in) = content.split_at(left_len);
        let right_first = first + (left_len / CHUNK_LEN) as u64;
        let (left, right) = if parallel && content.len() >= JOIN_MIN {
            rayon::join(|| self.subtree(left_in, first, left_out, true), || self.subtree(right_in, right_first, right_out, true))
        } else {
            (self.subtree(left_in, first, left_out, false), self.subtree(right_in, right_first, right_out, false))
        };
        node[..CV_LEN].copy_from_slice(&left);
        node[CV_LEN..].copy_from_slice(&right);
        (left, right)
    }

    /// A subtree of 2^h whole chunks (h <= 8; the last chunk may be short):
    /// its chunk values from one kernel call, then each level's parents from
    /// one more, each written where pre-order puts it.
    fn batch(&self, content: &[u8], first: u64, out: &mut [u8]) -> ChainingValue {
        let chunks = content.len().div_ceil(CHUNK_LEN);
        let height = chunks.trailing_zeros();
        let mut values = [0u8; BATCH_CHUNKS * CV_LEN];
        let mut parents = [0u8; BATCH_CHUNKS / 2 * CV_LEN];
        chunk_values(&self.params, first, content, &mut values[..chunks * CV_LEN]);
        let log = self.chunk_log;
        if self.combined {
            for group in 0..(chunks >> log.min(height)) {
                let start = group << log;
                let bytes = &content[start * CHUNK_LEN..content.len().min((start + (1 << log)) * CHUNK_LEN)];
                let at = self.leaf_offset(start, height);
                out[at..at + bytes.len()].copy_from_slice(bytes);
            }
        }
        for level in 1..=height {
            let count = chunks >> level;
            // Values sit in pairs, left then right: the parents' own bytes.
            let records = &values[..count * PARENT_LEN];
            if level > log {
                for i in 0..count {
                    let at = self.parent_offset(i << level, level, height);
                    out[at..at + PARENT_LEN].copy_from_slice(&records[i * PARENT_LEN..(i + 1) * PARENT_LEN]);
                }
            }
            parent_values(&self.params, records, &mut parents[..count * CV_LEN]);
            values[..count * CV_LEN].copy_from_slice(&parents[..count * CV_LEN]);
        }
        let mut value = [0; CV_LEN];
        value.copy_from_slice(&values[..CV_LEN]);
        value
    }

    /// Where, in a full subtree of 2^height chunks, the parent over the
    /// 2^level chunks from chunk `start` is written: after every parent of
    /// the full subtrees left of it (g - popcount(g) in leaf groups g), its
    /// ancestors, and the content of the groups left of it.
    fn parent_offset(&self, start: usize, level: u32, height: u32) -> usize {
        let group = start >> self.chunk_log;
        let before = group - group.count_ones() as usize + (height - level) as usize;
        before * PARENT_LEN + if self.combined { start * CHUNK_LEN } else { 0 }
    }

    /// Where the leaf group from chunk `start` goes in a combined encoding
    /// of a full subtree of 2^height chunks: after all its ancestors.
    fn leaf_offset(&self, start: usize, height: u32) -> usize {
        let group = start >> self.chunk_log;
        let ancestors = height.saturating_sub(self.chunk_log) as usize;
        (group - group.count_ones() as usize + ancestors) * PARENT_LEN + start * CHUNK_LEN
    }
}

/// Where the tree splits `len` bytes (more than one chunk): the largest
/// power-of-two number of chunks below it.
fn left_len(len: usize) -> usize {
    let chunks = len.div_ceil(CHUNK_LEN);
    (chunks - 1).checked_ilog2().map_or(1, |log| 1 << log) * CHUNK_LEN
}
