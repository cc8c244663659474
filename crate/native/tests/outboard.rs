//! One-pass Bao trees against a plain recursive reference built on the
//! official crate's `hazmat`: every length around chunk, group, batch and
//! thread boundaries, chunk logs 0 to 16, outboard and combined, all modes.

mod common;

use blake3::hazmat::{self, ChainingValue, HasherExt};
use blake3_kit_native::{bao_encode, bao_encoded_len, blake3, new_hasher, ArgKind, MAX_CHUNK_LOG};
use common::*;

fn mode_of(mode: u32, key: Option<&[u8]>) -> hazmat::Mode<'_> {
    match (mode, key) {
        (1, Some(key)) => hazmat::Mode::KeyedHash(key.try_into().unwrap()),
        (2, Some(key)) => hazmat::Mode::DeriveKeyMaterial(key.try_into().unwrap()),
        _ => hazmat::Mode::Hash,
    }
}

/// (pre-order bytes, chaining value) of the subtree `content` at byte `offset`.
fn node(mode: u32, key: Option<&[u8]>, content: &[u8], offset: u64, block: usize, combined: bool) -> (Vec<u8>, ChainingValue) {
    if content.len() <= block {
        let mut hasher = new_hasher(mode, key).unwrap();
        hasher.set_input_offset(offset);
        hasher.update(content);
        return (if combined { content.to_vec() } else { vec![] }, hasher.finalize_non_root());
    }
    let left = hazmat::left_subtree_len(content.len() as u64) as usize;
    let (l_bytes, l) = node(mode, key, &content[..left], offset, block, combined);
    let (r_bytes, r) = node(mode, key, &content[left..], offset + left as u64, block, combined);
    let bytes = [&l[..], &r[..], &l_bytes, &r_bytes].concat();
    (bytes, hazmat::merge_subtrees_non_root(&l, &r, mode_of(mode, key)))
}

fn reference(mode: u32, key: Option<&[u8]>, content: &[u8], chunk_log: u32, combined: bool) -> (Vec<u8>, [u8; 32]) {
    let block = 1024 << chunk_log;
    let mut hasher = new_hasher(mode, key).unwrap();
    hasher.update(content);
    let root = *hasher.finalize().as_bytes();
    if content.len() <= block {
        return (if combined { content.to_vec() } else { vec![] }, root);
    }
    let left = hazmat::left_subtree_len(content.len() as u64) as usize;
    let (l_bytes, l) = node(mode, key, &content[..left], 0, block, combined);
    let (r_bytes, r) = node(mode, key, &content[left..], left as u64, block, combined);
    assert_eq!(*hazmat::merge_subtrees_root(&l, &r, mode_of(mode, key)).as_bytes(), root);
    ([&l[..], &r[..], &l_bytes, &r_bytes].concat(), root)
}

fn check(mode: u32, key: Option<&[u8]>, content: &[u8], chunk_log: u32, combined: bool) {
    let (want, want_root) = reference(mode, key, content, chunk_log, combined);
    let mut out = vec![0xA5; bao_encoded_len(content.len() as u64, chunk_log, combined) as usize];
    let root = bao_encode(mode, key, content, 0, chunk_log, combined, true, &mut out).unwrap();
    let what = format!("mode {mode} len {} chunk_log {chunk_log} combined {combined}", content.len());
    assert_eq!(root, want_root, "{what}");
    assert!(out == want, "{what}");
}

#[test]
fn matches_the_reference_around_every_boundary() {
    let input = pattern(200 * 1024 + 1);
    let mut lens = vec![0, 1, 1023, 1024, 1025, 2047, 2048, 2049, 3 * 1024, 5 * 1024 + 7];
    for chunks in [16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 200] {
        lens.extend([chunks * 1024 - 1, chunks * 1024, chunks * 1024 + 1]);
    }
    for len in lens {
        for chunk_log in [0, 1, 2, 3, 4, 6, 7, MAX_CHUNK_LOG] {
            for combined in [false, true] {
                check(0, None, &input[..len], chunk_log, combined);
            }
        }
    }
}

#[test]
fn matches_the_reference_in_every_mode_and_on_the_pool() {
    // Past 1 MiB the halves of large subtrees go to the pool's threads.
    let input = pattern((3 << 20) + 12_345);
    for mode in 0..3 {
        let key = key_for(mode);
        let key = key.as_ref().map(|k| &k[..]);
        for len in [70_001, (1 << 20) + 1, input.len()] {
            for (chunk_log, combined) in [(0, false), (0, true), (4, false), (4, true)] {
                check(mode, key, &input[..len], chunk_log, combined);
            }
        }
    }
}

#[test]
fn the_root_is_the_plain_hash() {
    let input = pattern(300_000);
    let mut out = vec![0; bao_encoded_len(input.len() as u64, 0, false) as usize];
    assert_eq!(bao_encode(0, None, &input, 0, 0, false, true, &mut out).unwrap(), *blake3::hash(&input).as_bytes());
}

#[test]
fn misuse_is_an_error_not_a_panic() {
    let input = pattern(5000);
    let mut out = vec![0; bao_encoded_len(5000, 0, false) as usize];
    let error = bao_encode(0, None, &input, 0, 0, false, true, &mut out[1..]).unwrap_err();
    assert_eq!((error.kind, error.arg), (ArgKind::Range, "out"));
    let error = bao_encode(0, None, &input, 0, MAX_CHUNK_LOG + 1, false, true, &mut out).unwrap_err();
    assert_eq!((error.kind, error.arg), (ArgKind::Range, "chunkLog"));
    assert_eq!(bao_encode(3, None, &input, 0, 0, false, true, &mut out).unwrap_err().arg, "mode");
    assert_eq!(bao_encode(0, None, &input, 4, 0, false, true, &mut out).unwrap_err().arg, "first");
    // Chunk 4 starts a subtree of at most 4 chunks; 5000 bytes are 5.
    assert_eq!(bao_encode(0, None, &input, 4, 0, false, false, &mut out).unwrap_err().arg, "content");
    assert_eq!(bao_encode(0, None, &[], 4, 0, false, false, &mut []).unwrap_err().arg, "content");
    assert_eq!(bao_encode(0, None, &input[..1024], u64::MAX / 1024, 0, false, false, &mut []).unwrap_err().arg, "first");
}

#[test]
fn subtrees_give_their_chaining_value_and_their_part_of_the_tree() {
    // Subtree (first, chunks) of a larger input: its bytes in the whole
    // encoding, and the value its parent holds for it.
    let input = pattern(300 * 1024 + 77);
    for chunk_log in [0, 2, 4] {
        for combined in [false, true] {
            for (first, chunks) in [(0, 1), (1, 1), (2, 2), (64, 64), (256, 44), (128, 128), (0, 256)] {
                let start = first * 1024;
                let content = &input[start..input.len().min(start + chunks * 1024)];
                let (want, want_cv) = node(0, None, content, start as u64, 1024 << chunk_log, combined);
                let mut out = vec![0; bao_encoded_len(content.len() as u64, chunk_log, combined) as usize];
                let cv = bao_encode(0, None, content, first as u64, chunk_log, combined, false, &mut out).unwrap();
                let what = format!("chunk_log {chunk_log} combined {combined} first {first} chunks {chunks}");
                assert_eq!(cv, want_cv, "{what}");
                assert!(out == want, "{what}");
            }
        }
    }
}
