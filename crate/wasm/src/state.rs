//! A hasher as the BODY of a saved state: the canonical form that the wasm
//! and native engines both write and read, so that a state saved by one
//! loads in the other (src/state.ts adds and checks the header and trailer).
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | chunk counter (u64 LE): whole chunks before the current one |
//! | 8 | 1 | blocks of the current chunk compressed, 0..=15 |
//! | 9 | 1 | bytes of the current block, 0..=64 |
//! | 10 | 1 | stack length: popcount(chunk counter) |
//! | 11 | 1 | zero |
//! | 12 | 32 | the current chunk's chaining value once a block of it is compressed; zeros before (it would be the key) |
//! | 44 | 64 | the current block, zero past its length |
//! | 108 | 32 each | the stack, fully merged: the chaining values of the binary decomposition of the chunks before, largest first |
//!
//! Our `Hasher` merges its stack lazily (see tree.rs); export merges a copy.
//! Import checks every rule before it builds anything, and reads the body
//! with `get`, so no bytes make it panic.
//!
//! No key is written: before a chunk's first block is compressed its
//! chaining value is the key itself (format v1 wrote it there, and a keyed
//! state held its key in clear). Import takes the key from the hasher that
//! loads the body. A body stays inside BLAKE3's domain, input of at most
//! 2^64 - 1 bytes, with room for one more byte: a full one is refused by
//! both export and import.

use crate::kernel::{self, Kernel, Words, BLOCK_LEN, CHUNK_LEN};
use crate::slots::Live;
use crate::tree::{Hasher, MAX_DEPTH};

pub const FIXED_LEN: usize = 108;
const CV_AT: usize = 12;
const BLOCK_AT: usize = 44;
/// The longest body: a stack of 54 entries (a chunk counter below 2^54).
pub const MAX_LEN: usize = FIXED_LEN + 32 * MAX_DEPTH;
/// 2^54 chunks are 2^64 bytes, past BLAKE3's input limit.
const COUNTER_LIMIT: u64 = 1 << MAX_DEPTH;
/// The chunk value field of a chunk with no block compressed.
const NO_CV: Words = [0; 8];
const MAX_BLOCKS: u8 = (CHUNK_LEN / BLOCK_LEN - 1) as u8;

/// Why a hasher cannot be exported.
#[derive(Debug, PartialEq, Eq)]
pub enum ExportError {
    /// It hashes a subtree at an input offset: only its chaining value exists.
    Subtree,
    /// Its state breaks the invariants update keeps (not from our own code).
    Inconsistent,
    /// It holds 2^64 - 1 bytes, all BLAKE3 takes: a saved state is for more
    /// input, and import would refuse it.
    Full,
}

/// Why bytes are not a body. The order is the ABI: lib.rs returns
/// `E_BODY - reason` and src/wasm/engine.ts names each one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyError {
    Length = 0,
    Reserved,
    Counter,
    StackLen,
    Blocks,
    BlockLen,
    Padding,
    EmptyBlock,
    ChunkCv,
    Full,
}

/// Writes `live`'s body to the start of `out`; returns its length.
// Cold: LLVM then optimizes for size; saving is rare next to hashing.
#[cold]
#[inline(never)]
pub fn export(live: &Live, kernel: Kernel, out: &mut [u8]) -> Result<usize, ExportError> {
    let hasher = &live.hasher;
    if live.subtree_max.is_some() || hasher.initial_counter != 0 {
        return Err(ExportError::Subtree);
    }
    let chunk = &hasher.chunk;
    let counter = chunk.counter;
    // update() leaves input in the chunk state whenever there is any (see
    // tree.rs): the canonical form needs it, since the last chunk is the root's.
    let empty_chunk = chunk.buf_len == 0 && chunk.blocks_compressed == 0;
    if counter >= COUNTER_LIMIT || (counter > 0 && chunk.buf_len == 0) || (empty_chunk && hasher.stack_len != 0) {
        return Err(ExportError::Inconsistent);
    }
    if hasher.room() == 0 {
        return Err(ExportError::Full);
    }
    // The stack goes straight into `out` and is merged there: a local
    // array of 55 entries cost 1.8 KB of wasm to zero. Written with `get`
    // and fixed-size arrays throughout: no panic path (see lib.rs).
    let mut len = hasher.stack_len();
    let body = out.get_mut(..FIXED_LEN + 32 * len).ok_or(ExportError::Inconsistent)?;
    let (fixed, entries) = body.split_first_chunk_mut::<FIXED_LEN>().ok_or(ExportError::Inconsistent)?;
    for (i, bytes) in entries.chunks_exact_mut(32).enumerate() {
        let cv = hasher.entry(i).ok_or(ExportError::Inconsistent)?;
        put_words(bytes, &cv);
    }
    // The lazy stack holds at least one entry per set bit of the counter;
    // merging its top pairs leaves exactly those.
    let keep = counter.count_ones() as usize;
    while len > keep {
        let top = 32 * len.wrapping_sub(2);
        // hash_parents rather than parent_cv: its out-of-line code, not
        // another inlined copy of the compression.
        let mut pair = [words_at(entries, top), words_at(entries, top + 32)];
        kernel.hash_parents(&mut pair, &hasher.key, hasher.flags());
        put_words(entries.get_mut(top..).unwrap_or_default(), &pair[0]);
        len -= 1;
    }
    if len != keep {
        return Err(ExportError::Inconsistent);
    }
    *fixed = [0; FIXED_LEN];
    let (counter_bytes, rest) = fixed.split_first_chunk_mut::<8>().ok_or(ExportError::Inconsistent)?;
    *counter_bytes = counter.to_le_bytes();
    if let [blocks, block_len, stack_len, _, ..] = rest {
        (*blocks, *block_len, *stack_len) = (chunk.blocks_compressed, chunk.buf_len, len as u8);
    }
    // Before its first block the chunk's value is the key: never written.
    let cv = if chunk.blocks_compressed == 0 { &NO_CV } else { &chunk.cv };
    put_words(fixed.get_mut(CV_AT..).unwrap_or_default(), cv);
    for (byte, from) in fixed.iter_mut().skip(BLOCK_AT).zip(&chunk.buf).take(chunk.buf_len as usize) {
        *byte = *from;
    }
    Ok(FIXED_LEN + 32 * len)
}

/// Writes `words` little-endian over the start of `bytes` (as far as it goes).
fn put_words(bytes: &mut [u8], words: &Words) {
    for (bytes, word) in bytes.chunks_exact_mut(4).zip(words) {
        bytes.copy_from_slice(&word.to_le_bytes());
    }
}

/// A hasher from `body`, in the mode of `key` and `flags` (KEYED_HASH,
/// DERIVE_KEY_MATERIAL or none), if `body` keeps every rule.
#[cold]
#[inline(never)]
pub fn import(body: &[u8], key: &Words, flags: u32) -> Result<Hasher, BodyError> {
    let (fixed, entries) = body.split_first_chunk::<FIXED_LEN>().ok_or(BodyError::Length)?;
    let stack_len = fixed[10] as usize;
    if entries.len() != 32 * stack_len {
        return Err(BodyError::Length);
    }
    if fixed[11] != 0 {
        return Err(BodyError::Reserved);
    }
    let counter = u64::from_le_bytes([fixed[0], fixed[1], fixed[2], fixed[3], fixed[4], fixed[5], fixed[6], fixed[7]]);
    if counter >= COUNTER_LIMIT {
        return Err(BodyError::Counter);
    }
    if stack_len != counter.count_ones() as usize {
        return Err(BodyError::StackLen);
    }
    let (blocks, block_len) = (fixed[8], fixed[9]);
    if blocks > MAX_BLOCKS {
        return Err(BodyError::Blocks);
    }
    if block_len as usize > BLOCK_LEN {
        return Err(BodyError::BlockLen);
    }
    let mut block = [0u8; BLOCK_LEN];
    for (byte, from) in block.iter_mut().zip(fixed.iter().skip(BLOCK_AT)) {
        *byte = *from;
    }
    if block.iter().skip(block_len as usize).any(|&b| b != 0) {
        return Err(BodyError::Padding);
    }
    if (counter > 0 || blocks > 0) && block_len == 0 {
        return Err(BodyError::EmptyBlock);
    }
    let cv = words_at(fixed, CV_AT);
    if blocks == 0 && cv != NO_CV {
        return Err(BodyError::ChunkCv);
    }
    // Bytes taken: counter < 2^54 chunks, plus up to a whole chunk, which
    // can make 2^64 itself (None). A state needs room for one more byte.
    let in_chunk = u64::from(blocks) * BLOCK_LEN as u64 + u64::from(block_len);
    if (counter * CHUNK_LEN as u64).checked_add(in_chunk).is_none_or(|taken| taken == u64::MAX) {
        return Err(BodyError::Full);
    }
    let mut hasher = Hasher::new(key, flags);
    hasher.chunk.cv = if blocks == 0 { *key } else { cv };
    hasher.chunk.counter = counter;
    hasher.chunk.buf = block;
    hasher.chunk.buf_len = block_len;
    hasher.chunk.blocks_compressed = blocks;
    for (entry, bytes) in hasher.stack.iter_mut().zip(entries.chunks_exact(32)) {
        entry.write(words_at(bytes, 0));
    }
    hasher.stack_len = stack_len as u8;
    Ok(hasher)
}

/// The eight LE words at `at` (callers check the length first; short bytes
/// read as zero rather than panic).
fn words_at(bytes: &[u8], at: usize) -> Words {
    let mut value = [0u8; 32];
    if let Some(source) = bytes.get(at..at + 32) {
        value.copy_from_slice(source);
    }
    kernel::words_from_key(&value)
}
