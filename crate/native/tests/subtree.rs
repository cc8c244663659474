//! Subtree chaining values and merges against the official crate's plain
//! hash: every tree shape we build from them must give the same root, in
//! all three modes; every misuse upstream would panic on is an error.

mod common;

use blake3_kit_native::{max_subtree_len, merge_subtrees, subtree_chaining_value, ArgKind, CV_LEN};
use common::*;

const OUT: usize = 131;

/// The chaining value of input[offset..offset + size], cut into subtrees
/// down to a random depth (a subtree stops splitting at random).
fn cv(mode: u32, key: Option<&[u8]>, input: &[u8], offset: usize, size: usize, rng: &mut Rng) -> [u8; CV_LEN] {
    if size <= 1024 || rng.below(3) == 0 {
        return subtree_chaining_value(mode, key, offset as u64, &input[offset..offset + size]).unwrap();
    }
    let left = left_len(size);
    let mut out = [0; CV_LEN];
    let (l, r) = (cv(mode, key, input, offset, left, rng), cv(mode, key, input, offset + left, size - left, rng));
    merge_subtrees(mode, key, &l, &r, false, 0, &mut out).unwrap();
    out
}

/// Where the tree splits an input of `size` bytes (> 1 chunk).
fn left_len(size: usize) -> usize {
    blake3::hazmat::left_subtree_len(size as u64) as usize
}

#[test]
fn merged_subtrees_give_the_plain_hash() {
    let mut rng = Rng(0x5eed_0001);
    let sizes = [1025, 2048, 2049, 3072, 4095, 4096, 4097, 8192, 9000, 65_536, 65_537, 300_001, 1 << 20];
    for &size in &sizes {
        let input = pattern(size);
        for mode in 0..3 {
            let key = key_for(mode);
            let key = key.as_ref().map(|k| &k[..]);
            let left = left_len(size);
            let l = cv(mode, key, &input, 0, left, &mut rng);
            let r = cv(mode, key, &input, left, size - left, &mut rng);
            let mut out = vec![0; OUT];
            merge_subtrees(mode, key, &l, &r, true, 0, &mut out).unwrap();
            assert_eq!(out, official(mode, &input, OUT), "size {size} mode {mode}");
            // Output at a position: the tail of a longer read.
            let mut tail = vec![0; 40];
            merge_subtrees(mode, key, &l, &r, true, 91, &mut tail).unwrap();
            assert_eq!(tail, out[91..], "size {size} mode {mode} at 91");
        }
    }
}

#[test]
fn the_whole_input_at_offset_zero_is_one_subtree() {
    // A chunk's chaining value equals the left half of its parent's input.
    let input = pattern(2048);
    let left = subtree_chaining_value(0, None, 0, &input[..1024]).unwrap();
    let right = subtree_chaining_value(0, None, 1024, &input[1024..]).unwrap();
    let whole = subtree_chaining_value(0, None, 0, &input).unwrap();
    let mut merged = [0; CV_LEN];
    merge_subtrees(0, None, &left, &right, false, 0, &mut merged).unwrap();
    assert_eq!(whole, merged);
}

#[test]
fn misuse_is_an_error_not_a_panic() {
    let input = pattern(4096);
    let range = |e: blake3_kit_native::InvalidArg, arg: &str| {
        assert_eq!((e.kind, e.arg), (ArgKind::Range, arg), "{}", e.message);
    };
    range(subtree_chaining_value(0, None, 1000, &input[..10]).unwrap_err(), "offset");
    range(max_subtree_len(1).unwrap_err(), "offset");
    range(subtree_chaining_value(0, None, 0, &[]).unwrap_err(), "input");
    range(subtree_chaining_value(0, None, 1024, &input[..2048]).unwrap_err(), "input"); // chunk 1 holds 1 chunk
    range(subtree_chaining_value(0, None, 3072, &input[..1025]).unwrap_err(), "input");
    assert!(subtree_chaining_value(0, None, 2048, &input[..2048]).is_ok());
    range(subtree_chaining_value(0, None, u64::MAX - 1023, &input[..1024]).unwrap_err(), "input");
    let cv = [7; CV_LEN];
    let mut out = [0; CV_LEN];
    range(merge_subtrees(0, None, &cv[..31], &cv, false, 0, &mut out).unwrap_err(), "left");
    range(merge_subtrees(0, None, &cv, &input[..33], false, 0, &mut out).unwrap_err(), "right");
    range(merge_subtrees(0, None, &cv, &cv, false, 0, &mut out[..16]).unwrap_err(), "out");
    range(merge_subtrees(0, None, &cv, &cv, true, u64::MAX - 10, &mut out).unwrap_err(), "position");
    range(merge_subtrees(3, None, &cv, &cv, true, 0, &mut out).unwrap_err(), "mode");
    assert_eq!(merge_subtrees(1, None, &cv, &cv, true, 0, &mut out).unwrap_err().kind, ArgKind::Type);
    range(merge_subtrees(1, Some(&[0; 31]), &cv, &cv, true, 0, &mut out).unwrap_err(), "key");
    assert_eq!(subtree_chaining_value(0, Some(KEY), 0, &input).unwrap_err().kind, ArgKind::Type);
}

#[test]
fn batches_equal_one_call_each() {
    use blake3_kit_native::{chunk_chaining_values, parent_chaining_values};
    // Past 1 MiB (RAYON_MIN) the batches run on the pool's threads; the
    // kernel takes the whole chunks, a Hasher the short last one.
    let input = pattern((2 << 20) + 1000);
    for mode in 0..3 {
        let key = key_for(mode);
        let key = key.as_ref().map(|k| &k[..]);
        for counter in [0u64, 5, 1 << 30] {
            for len in [1, 1023, 1024, 1025, 64 * 1024, 70_001, input.len()] {
                let input = &input[..len];
                let batch = chunk_chaining_values(mode, key, counter, input).unwrap();
                assert_eq!(batch.len(), len.div_ceil(1024) * CV_LEN);
                for (i, chunk) in input.chunks(1024).enumerate() {
                    let one = subtree_chaining_value(mode, key, (counter + i as u64) * 1024, chunk).unwrap();
                    assert_eq!(batch[32 * i..32 * i + 32], one, "mode {mode} counter {counter} len {len} chunk {i}");
                }
            }
        }
        for count in [1, 100, (1 << 20) / 64 + 77] {
            let records = &input[..64 * count];
            let parents = parent_chaining_values(mode, key, records).unwrap();
            assert_eq!(parents.len(), count * CV_LEN);
            for (i, record) in records.chunks(64).enumerate() {
                let mut one = [0; CV_LEN];
                merge_subtrees(mode, key, &record[..32], &record[32..], false, 0, &mut one).unwrap();
                assert_eq!(parents[32 * i..32 * i + 32], one, "mode {mode} count {count} parent {i}");
            }
        }
    }
    assert!(parent_chaining_values(0, None, &[]).unwrap().is_empty());
    assert_eq!(chunk_chaining_values(0, None, 0, &[]).unwrap_err().arg, "input");
    assert_eq!(chunk_chaining_values(0, None, u64::MAX / 1024, &input[..1024]).unwrap_err().arg, "counter");
    assert_eq!(parent_chaining_values(0, None, &input[..65]).unwrap_err().arg, "records");
}
