//! The ABI against the official crate, and its error codes. The exports share
//! static memory, so every test holds `LOCK`.

use super::*;
use blake3::hazmat::{self, HasherExt};
use std::sync::{Mutex, MutexGuard};

static LOCK: Mutex<()> = Mutex::new(());

pub(crate) fn lock() -> MutexGuard<'static, ()> {
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub(crate) const KEY: [u8; 32] = *b"whats the Elvish word for friend";
pub(crate) const CONTEXT: &str = "BLAKE3 2019-12-27 16:29:52 test vectors context";

pub(crate) fn input(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}

pub(crate) fn stage(bytes: &[u8]) {
    staged(bytes.len() as u32).unwrap().copy_from_slice(bytes);
}

/// `hasher_update`, with `OK_MEMORY_GREW` (which only JS acts on) as `OK`.
pub(crate) fn update(slot: u32, len: u32) -> i32 {
    match hasher_update(slot, len) {
        OK_MEMORY_GREW => OK,
        code => code,
    }
}

/// `hasher_finalize` at output byte `position`.
pub(crate) fn finalize_at(slot: u32, len: u32, position: u64) -> i32 {
    let counter = position / 64;
    hasher_finalize(slot, len, counter as u32, (counter >> 32) as u32, (position % 64) as u32)
}

pub(crate) fn read_staged(len: usize) -> Vec<u8> {
    staged(len as u32).unwrap().to_vec()
}

/// Puts the mode's key in the key area; returns the official hasher for it.
pub(crate) fn prepare(mode: u32) -> blake3::Hasher {
    match mode {
        MODE_HASH => blake3::Hasher::new(),
        MODE_KEYED => {
            memory::set_key(&KEY);
            blake3::Hasher::new_keyed(&KEY)
        }
        _ => {
            stage(CONTEXT.as_bytes());
            assert_eq!(derive_context_key(CONTEXT.len() as u32), OK);
            blake3::Hasher::new_derive_key(CONTEXT)
        }
    }
}

pub(crate) fn official_xof(hasher: &blake3::Hasher, position: u64, len: usize) -> Vec<u8> {
    let mut reader = hasher.finalize_xof();
    reader.set_position(position);
    let mut out = vec![0; len];
    reader.fill(&mut out);
    out
}

pub(crate) const MODES: [u32; 3] = [MODE_HASH, MODE_KEYED, MODE_DERIVE_KEY];
const LENGTHS: [usize; 12] = [0, 1, 63, 64, 65, 1023, 1024, 1025, 4095, 4096, 4097, STAGING_LEN];

#[test]
fn oneshot_matches_official_crate_in_every_mode() {
    let _guard = lock();
    for mode in MODES {
        for len in LENGTHS {
            let mut official = prepare(mode);
            official.update(&input(len));
            stage(&input(len));
            assert_eq!(hash_oneshot(mode, len as u32, 131), OK);
            assert_eq!(read_staged(131), official_xof(&official, 0, 131), "mode {mode} len {len}");
        }
    }
}

#[test]
fn streaming_matches_official_crate_in_every_mode() {
    let _guard = lock();
    for mode in MODES {
        let mut official = prepare(mode);
        let slot = hasher_new(mode) as u32;
        let data = input(3 * STAGING_LEN + 17);
        for piece in data.chunks(STAGING_LEN - 5) {
            stage(piece);
            assert_eq!(update(slot, piece.len() as u32), OK);
        }
        official.update(&data);
        let position = (1u64 << 40) + 3;
        assert_eq!(finalize_at(slot, 200, position), OK);
        assert_eq!(read_staged(200), official_xof(&official, position, 200));

        // A clone is independent of its original.
        let copy = hasher_clone(slot) as u32;
        stage(b"more");
        assert_eq!(update(copy, 4), OK);
        assert_eq!(hasher_finalize(slot, 32, 0, 0, 0), OK);
        assert_eq!(read_staged(32), official_xof(&official, 0, 32));
        official.update(b"more");
        assert_eq!(hasher_finalize(copy, 32, 0, 0, 0), OK);
        assert_eq!(read_staged(32), official_xof(&official, 0, 32));

        // Reset keeps the mode and key.
        assert_eq!(hasher_reset(copy), OK);
        assert_eq!(hasher_finalize(copy, 32, 0, 0, 0), OK);
        assert_eq!(read_staged(32), official_xof(&prepare(mode), 0, 32));
        assert_eq!(hasher_free(slot), OK);
        assert_eq!(hasher_free(copy), OK);
    }
}

#[test]
fn subtrees_merge_to_the_official_root_in_every_mode() {
    let _guard = lock();
    let data = input(8 * 1024 + 300);
    // 8 KiB splits as 4 + 4 KiB on the left and the remainder on the right.
    let split = hazmat::left_subtree_len(data.len() as u64) as usize;
    for mode in MODES {
        let mut official = prepare(mode);
        official.update(&data);
        let mut cvs = Vec::new();
        for (offset, part) in [(0, &data[..split]), (split, &data[split..])] {
            let slot = hasher_new(mode) as u32;
            assert_eq!(hasher_set_input_offset(slot, offset as u32, 0), OK);
            stage(part);
            assert_eq!(update(slot, part.len() as u32), OK);
            assert_eq!(hasher_finalize_non_root(slot), OK);
            cvs.extend(read_staged(32));
            assert_eq!(hasher_free(slot), OK);
        }
        stage(&cvs);
        assert_eq!(merge_root(mode, 131, 0, 0), OK);
        assert_eq!(read_staged(131), official_xof(&official, 0, 131));

        // Non-root merge of the two halves of the left subtree.
        let quarter = split / 2;
        let mut halves = Vec::new();
        for (offset, part) in [(0, &data[..quarter]), (quarter, &data[quarter..split])] {
            let slot = hasher_new(mode) as u32;
            assert_eq!(hasher_set_input_offset(slot, offset as u32, 0), OK);
            stage(part);
            assert_eq!(update(slot, part.len() as u32), OK);
            assert_eq!(hasher_finalize_non_root(slot), OK);
            halves.extend(read_staged(32));
            assert_eq!(hasher_free(slot), OK);
        }
        stage(&halves);
        assert_eq!(merge_non_root(mode), OK);
        assert_eq!(read_staged(32), cvs[..32].to_vec());
    }
}

#[test]
fn bad_arguments_return_error_codes() {
    let _guard = lock();
    let too_long = STAGING_LEN as u32 + 1;
    assert_eq!(hash_oneshot(3, 0, 32), E_MODE);
    assert_eq!(hash_oneshot(MODE_HASH, too_long, 32), E_LENGTH);
    assert_eq!(hash_oneshot(MODE_HASH, 0, too_long), E_LENGTH);
    assert_eq!(hash_oneshot(MODE_HASH, u32::MAX, u32::MAX), E_LENGTH);
    assert_eq!(derive_context_key(too_long), E_LENGTH);
    stage(&[0xff, 0xfe]);
    assert_eq!(derive_context_key(2), E_UTF8);
    assert_eq!(hasher_new(7), E_MODE);
    assert_eq!(merge_non_root(9), E_MODE);
    assert_eq!(merge_root(9, 32, 0, 0), E_MODE);
    assert_eq!(merge_root(MODE_HASH, too_long, 0, 0), E_LENGTH);

    for bad_slot in [u32::MAX, 1 << 31, 123_456] {
        assert_eq!(update(bad_slot, 0), E_SLOT);
        assert_eq!(hasher_finalize(bad_slot, 32, 0, 0, 0), E_SLOT);
        assert_eq!(hasher_reset(bad_slot), E_SLOT);
        assert_eq!(hasher_clone(bad_slot), E_SLOT);
        assert_eq!(hasher_free(bad_slot), E_SLOT);
        assert_eq!(hasher_set_input_offset(bad_slot, 0, 0), E_SLOT);
        assert_eq!(hasher_finalize_non_root(bad_slot), E_SLOT);
    }

    let slot = hasher_new(MODE_HASH) as u32;
    assert_eq!(update(slot, too_long), E_LENGTH);
    assert_eq!(hasher_finalize(slot, too_long, 0, 0, 0), E_LENGTH);
    // Output goes on past 2^64 - 1 bytes, block counter and all, as the
    // official OutputReader's (b3sum's --seek there): the last block and
    // past it are as the official crate gives them.
    for (position, len) in [(u64::MAX, 1), (u64::MAX - 16, 48), (u64::MAX - 63, 200)] {
        assert_eq!(finalize_at(slot, len as u32, position), OK);
        assert_eq!(read_staged(len), official_xof(&prepare(MODE_HASH), position, len), "at {position}");
    }
    assert_eq!(hasher_finalize(slot, 1, u32::MAX, u32::MAX, 63), OK);
    assert_eq!(hasher_finalize(slot, 1, 0, 0, 64), E_POSITION);
    assert_eq!(hasher_finalize_non_root(slot), E_STATE);
    assert_eq!(hasher_set_input_offset(slot, 1000, 0), E_ALIGN);
    stage(&[1; 2048]);
    assert_eq!(hasher_set_input_offset(slot, 1024, 0), OK);
    assert_eq!(hasher_set_input_offset(slot, 1024, 0), E_STATE);
    // The subtree at offset 1024 is one chunk at most, and has no root.
    assert_eq!(update(slot, 1025), E_STATE);
    assert_eq!(update(slot, 1024), OK);
    assert_eq!(update(slot, 1), E_STATE);
    assert_eq!(hasher_finalize(slot, 32, 0, 0, 0), E_STATE);
    assert_eq!(hasher_finalize_non_root(slot), OK);
    // A reset drops the offset: it is an ordinary hasher again.
    assert_eq!(hasher_reset(slot), OK);
    assert_eq!(hasher_finalize(slot, 32, 0, 0, 0), OK);
    assert_eq!(read_staged(32), blake3::hash(b"").as_bytes().to_vec());
    assert_eq!(hasher_free(slot), OK);
    assert_eq!(hasher_free(slot), E_SLOT, "double free");
    assert_eq!(update(slot, 0), E_SLOT, "use after free");
}

#[test]
fn slots_are_recycled_without_growth() {
    let _guard = lock();
    let before = slots_in_use();
    let held: Vec<u32> = (0..1000).map(|_| hasher_new(MODE_HASH) as u32).collect();
    assert_eq!(slots_in_use(), before + 1000);
    let used = slots().heads_used();
    for slot in held {
        assert_eq!(hasher_free(slot), OK);
    }
    for _ in 0..100_000 {
        let slot = hasher_new(MODE_KEYED);
        assert!(slot >= 0);
        assert_eq!(hasher_free(slot as u32), OK);
    }
    assert_eq!(slots().heads_used(), used);
    assert_eq!(slots_in_use(), before);
}

/// Hashers whose stacks outgrow their slot's head: a tail is taken while the
/// stack is deep, copied by a clone, and given back by reset and free; the
/// digests stay the official ones.
#[test]
fn deep_stacks_spill_into_tails_and_back() {
    let _guard = lock();
    assert_eq!(slots::INLINE_ENTRIES, 10);
    let tails_before = slots().tails_in_use();
    let mut official = blake3::Hasher::new();
    let slot = hasher_new(MODE_HASH) as u32;
    // 4095 chunks: 12 set bits, so 12 stack entries before the last chunk.
    let data = input(4095 * 1024 + 5);
    for piece in data.chunks(STAGING_LEN - 7) {
        stage(piece);
        assert_eq!(update(slot, piece.len() as u32), OK);
    }
    official.update(&data);
    assert_eq!(slots().tails_in_use(), tails_before + 1);
    assert_eq!(hasher_finalize(slot, 64, 0, 0, 0), OK);
    assert_eq!(read_staged(64), official_xof(&official, 0, 64));

    let copy = hasher_clone(slot) as u32;
    assert_eq!(slots().tails_in_use(), tails_before + 2);
    assert_eq!(hasher_free(slot), OK);
    assert_eq!(slots().tails_in_use(), tails_before + 1);
    stage(b"tail");
    assert_eq!(update(copy, 4), OK);
    official.update(b"tail");
    assert_eq!(hasher_finalize(copy, 32, 0, 0, 0), OK);
    assert_eq!(read_staged(32), official_xof(&official, 0, 32));

    // 4096 chunks merge into one entry: the stack fits the head again.
    let more = input(1019);
    stage(&more);
    assert_eq!(update(copy, more.len() as u32), OK);
    stage(&[7]);
    assert_eq!(update(copy, 1), OK);
    official.update(&more);
    official.update(&[7]);
    assert_eq!(slots().tails_in_use(), tails_before);
    assert_eq!(hasher_finalize(copy, 32, 0, 0, 0), OK);
    assert_eq!(read_staged(32), official_xof(&official, 0, 32));
    assert_eq!(hasher_free(copy), OK);
}

/// A hasher saved out of its slot and restored into another goes on as if it
/// had stayed: shallow and deep stacks (a tail), subtree hashers (their
/// bound), every mode. Bytes that are not a saved hasher are refused and
/// leave the slot as it was.
#[test]
fn saved_hashers_restore_anywhere() {
    let _guard = lock();
    for mode in MODES {
        for len in [0, 1, 1025, 11 * 1024, 4095 * 1024 + 5] {
            let mut official = prepare(mode);
            let slot = hasher_new(mode) as u32;
            for piece in input(len).chunks(STAGING_LEN - 7) {
                stage(piece);
                assert_eq!(update(slot, piece.len() as u32), OK);
            }
            official.update(&input(len));
            let saved_len = hasher_save(slot);
            assert!(saved_len > 0 && saved_len as usize <= slots::SAVED_MAX, "{saved_len}");
            let saved = read_staged(saved_len as usize);
            assert_eq!(hasher_free(slot), OK);
            let other = hasher_new(MODE_HASH) as u32;
            stage(&saved);
            assert!(matches!(hasher_restore(other, saved_len as u32), OK | OK_MEMORY_GREW));
            stage(b"more");
            assert_eq!(update(other, 4), OK);
            official.update(b"more");
            assert_eq!(hasher_finalize(other, 40, 0, 0, 0), OK);
            assert_eq!(read_staged(40), official_xof(&official, 0, 40), "mode {mode} len {len}");
            assert_eq!(hasher_free(other), OK);
        }
    }

    // A subtree hasher keeps its bound.
    let slot = hasher_new(MODE_HASH) as u32;
    assert_eq!(hasher_set_input_offset(slot, 2048, 0), OK);
    let saved_len = hasher_save(slot);
    let saved = read_staged(saved_len as usize);
    stage(&saved);
    assert_eq!(hasher_restore(slot, saved_len as u32), OK);
    assert_eq!(hasher_finalize(slot, 32, 0, 0, 0), E_STATE);
    stage(&input(2049));
    assert_eq!(update(slot, 2049), E_STATE);

    // Refused: wrong lengths, a stack past its array, a block past its buffer.
    stage(&input(1025));
    assert_eq!(update(slot, 1025), OK);
    assert_eq!(hasher_finalize_non_root(slot), OK);
    let want = read_staged(32);
    let saved_len = hasher_save(slot) as usize;
    let saved = read_staged(saved_len);
    let stack_len_at = 8 + tree::Hasher::STACK_LEN_OFFSET;
    let mut bad_stack = saved.clone();
    bad_stack[stack_len_at] = 200;
    let mut bad_block = saved.clone();
    bad_block[8 + 32 + 32 + 8 + 64] = 65;
    for (bytes, len) in [(&saved, saved_len - 1), (&saved, saved_len + 32), (&saved, 3), (&bad_stack, saved_len), (&bad_block, saved_len)] {
        stage(bytes);
        assert_eq!(hasher_restore(slot, len as u32), E_STATE);
    }
    assert_eq!(hasher_restore(slot, STAGING_LEN as u32 + 1), E_LENGTH);
    assert_eq!(hasher_restore(u32::MAX, saved_len as u32), E_SLOT);
    assert_eq!(hasher_save(u32::MAX), E_SLOT);
    assert_eq!(hasher_finalize_non_root(slot), OK);
    assert_eq!(read_staged(32), want);
    assert_eq!(hasher_free(slot), OK);
}

/// The arenas grow geometrically: 200,000 live hashers cost a few dozen
/// grows, not one per 64 KiB page (1,600 of them at 512 bytes a slot), and
/// a second generation reuses the first one's slots.
#[test]
fn growth_is_geometric_and_freed_slots_are_reused() {
    let _guard = lock();
    let grows_before = slots().grows();
    for generation in 0..2 {
        let held: Vec<i32> = (0..200_000).map(|_| hasher_new(MODE_HASH)).collect();
        assert!(held.iter().all(|&slot| slot >= 0));
        let grows = slots().grows() - grows_before;
        assert!(grows <= 30, "generation {generation}: {grows} grows");
        let used = slots().heads_used();
        for slot in held {
            assert_eq!(hasher_free(slot as u32), OK);
        }
        if generation == 1 {
            assert_eq!(slots().grows() - grows_before, grows);
            assert_eq!(slots().heads_used(), used);
        }
    }
}

// ---------------------------------------------------------------------------
// Our tree and kernels against the official crate. Natively these run the
// portable kernel; test/node/kernels.test.ts holds the simd128 kernel to the
// portable one in wasm.

/// xorshift64: deterministic, so a failure reproduces.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub(crate) fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

/// Every length within ±64 of each multiple of 1024 (so of 4096 too) up to
/// 64 KiB: one-shot through the ABI in a rotating mode, and streamed in two
/// pieces split at a varying point.
/// Restoring random bytes never panics: what `is_consistent` lets through
/// (random stacks, blocks, counters and bounds of a plausible length) can be
/// updated, finalized and saved again, with wrong digests but no trap.
#[test]
fn restoring_random_bytes_never_panics() {
    let _guard = lock();
    let mut rng = Rng(0xbe54_66cf_34e9_0c6c);
    let slot = hasher_new(MODE_HASH) as u32;
    let mut accepted = 0;
    for round in 0..3000 {
        let depth = rng.below(60) as usize;
        let len = 8 + tree::Hasher::STACK_OFFSET + depth * 32 + if round % 8 == 0 { rng.below(40) as usize } else { 0 };
        let mut bytes = rng.bytes(len);
        if let Some(stack_len) = bytes.get_mut(8 + tree::Hasher::STACK_LEN_OFFSET) {
            *stack_len = depth as u8;
        }
        // Plausible block fields half the time, so some get past the checks.
        let chunk = 8 + 32;
        if round % 2 == 0 && len > chunk + 32 + 8 + 64 + 2 {
            bytes[chunk + 32 + 8 + 64] = rng.below(65) as u8;
            bytes[chunk + 32 + 8 + 64 + 1] = rng.below(16) as u8;
            bytes[chunk + 32..][..8].fill(0xff);
            bytes[chunk + 112..][..8].fill(0);
        }
        stage(&bytes);
        match hasher_restore(slot, len as u32) {
            OK | OK_MEMORY_GREW => accepted += 1,
            code => {
                assert_eq!(code, E_STATE);
                continue;
            }
        }
        let more_len = rng.below(3000) as usize;
        let more = rng.bytes(more_len);
        stage(&more);
        let _ = update(slot, more.len() as u32);
        let _ = hasher_finalize(slot, 64, 0, 0, 0);
        let _ = hasher_finalize_non_root(slot);
        assert!(hasher_save(slot) > 0);
    }
    assert!(accepted > 100, "{accepted} accepted");
    assert_eq!(hasher_free(slot), OK);
}

#[test]
fn every_length_near_chunk_multiples_matches_official() {
    let _guard = lock();
    let mut rng = Rng(0x243f_6a88_85a3_08d3);
    let source = rng.bytes(64 * 1024 + 64 + 61);
    for multiple in (1024..=64 * 1024).step_by(1024) {
        for len in multiple - 64..=multiple + 64 {
            let data = &source[len % 61..][..len];
            let mode = MODES[len % 3];
            let mut official = prepare(mode);
            official.update(data);
            let expected = official_xof(&official, 0, 32);
            if len <= STAGING_LEN {
                stage(data);
                assert_eq!(hash_oneshot(mode, len as u32, 32), OK);
                assert_eq!(read_staged(32), expected, "one-shot, mode {mode}, length {len}");
            }
            let split = (len * 7 / 13) & !63;
            let slot = hasher_new(mode) as u32;
            for piece in [&data[..split], &data[split..]] {
                stage(piece);
                assert_eq!(update(slot, piece.len() as u32), OK);
            }
            assert_eq!(hasher_finalize(slot, 32, 0, 0, 0), OK);
            assert_eq!(read_staged(32), expected, "streamed, mode {mode}, length {len}, split {split}");
            assert_eq!(hasher_free(slot), OK);
        }
    }
}

/// Lengths up to 1 MiB in every mode: one-shot in our tree directly (past the
/// staging buffer, where `hash_all` hands over to a `Hasher`), and through
/// the ABI in random updates, 1-byte and empty ones included, read back at
/// random XOF positions.
#[test]
fn random_lengths_and_update_splits_match_official() {
    let _guard = lock();
    let mut rng = Rng(0x1319_8a2e_0370_7344);
    let source = rng.bytes(1 << 20);
    for round in 0..60 {
        let mode = MODES[round % 3];
        let len = match round % 4 {
            0 => rng.below(2048) as usize,
            1 => rng.below(70_000) as usize,
            _ => rng.below((1 << 20) + 1) as usize,
        };
        let data = &source[..len];
        let mut official = prepare(mode);
        official.update(data);

        let (key, flags) = mode_key(mode).unwrap();
        let mut ours = [0u8; 64];
        tree::hash_all(Kernel::detect(), data, &key, flags).root_fill(Kernel::detect(), 0, &mut ours);
        assert_eq!(ours.to_vec(), official_xof(&official, 0, 64), "hash_all, mode {mode}, length {len}");

        let slot = hasher_new(mode) as u32;
        let mut fed = 0;
        while fed < len {
            let piece = match rng.below(6) {
                0 => 0,
                1 => 1,
                2 => rng.below(64) as usize,
                3 => rng.below(4096) as usize,
                _ => rng.below(STAGING_LEN as u64 + 1) as usize,
            }
            .min(len - fed);
            stage(&data[fed..fed + piece]);
            assert_eq!(update(slot, piece as u32), OK);
            fed += piece;
        }
        for _ in 0..3 {
            let position = match rng.below(3) {
                0 => rng.below(1 << 20),
                1 => rng.next() >> rng.below(64),
                _ => u64::MAX - rng.below(5000),
            };
            // Some reads go on past 2^64 - 1 bytes, as the official reader's do.
            let out_len = rng.below(300) as usize;
            assert_eq!(finalize_at(slot, out_len as u32, position), OK);
            assert_eq!(read_staged(out_len), official_xof(&official, position, out_len), "mode {mode}, length {len}, XOF at {position}");
        }
        assert_eq!(hasher_free(slot), OK);
    }
}

/// Large single updates in our `Hasher` (subtrees past one batch, which the
/// 64 KiB staging buffer never reaches), after an odd start.
#[test]
fn large_updates_in_one_call_match_official() {
    let mut rng = Rng(0xa409_3822_299f_31d0);
    let source = rng.bytes(3 << 20);
    for (head, body) in [(0, 1 << 20), (1, 2 << 20), (1024, (1 << 20) + 1), (3000, 3 << 19), (0, 3 << 20)] {
        let data = &source[..head + body];
        let mut ours = tree::Hasher::new(&IV, 0);
        ours.update(Kernel::detect(), &data[..head]);
        ours.update(Kernel::detect(), &data[head..]);
        let mut out = [0u8; 32];
        ours.final_output(Kernel::detect()).root_fill(Kernel::detect(), 0, &mut out);
        assert_eq!(out, *blake3::hash(data).as_bytes(), "head {head}, body {body}");
    }
}

/// Subtrees at random chunk-aligned offsets (any size up to the maximum the
/// offset allows) give the official chaining values, in every mode; merging
/// random pairs gives the official parents and roots.
#[test]
fn subtrees_at_random_offsets_and_merges_match_official() {
    let _guard = lock();
    let mut rng = Rng(0x082e_fa98_ec4e_6c89);
    let source = rng.bytes(300 * 1024);
    for round in 0..200 {
        let mode = MODES[round % 3];
        let offset = match rng.below(4) {
            0 => 0,
            1 => rng.below(1 << 20) * 1024,
            2 => (rng.next() >> 10) << 10,
            _ => (rng.below(64) + 1) << (10 + rng.below(54)),
        };
        let max = hazmat::max_subtree_len(offset).unwrap_or(u64::MAX).min(source.len() as u64);
        let len = 1 + rng.below(max) as usize;
        let data = &source[..len];

        let mut official = prepare(mode);
        official.set_input_offset(offset);
        official.update(data);
        let expected = official.finalize_non_root();

        let slot = hasher_new(mode) as u32;
        assert_eq!(hasher_set_input_offset(slot, offset as u32, (offset >> 32) as u32), OK);
        for piece in data.chunks(1 + rng.below(STAGING_LEN as u64) as usize) {
            stage(piece);
            assert_eq!(update(slot, piece.len() as u32), OK);
        }
        assert_eq!(hasher_finalize_non_root(slot), OK);
        assert_eq!(read_staged(32), expected.to_vec(), "mode {mode}, offset {offset}, length {len}");
        assert_eq!(hasher_free(slot), OK);

        let (left, right) = (rng.bytes(32), rng.bytes(32));
        let (left32, right32): ([u8; 32], [u8; 32]) = (left[..].try_into().unwrap(), right[..].try_into().unwrap());
        let context_key = hazmat::hash_derive_key_context(CONTEXT);
        let official_mode = match mode {
            MODE_HASH => hazmat::Mode::Hash,
            MODE_KEYED => hazmat::Mode::KeyedHash(&KEY),
            _ => hazmat::Mode::DeriveKeyMaterial(&context_key),
        };
        stage(&[left.clone(), right.clone()].concat());
        assert_eq!(merge_non_root(mode), OK);
        assert_eq!(read_staged(32), hazmat::merge_subtrees_non_root(&left32, &right32, official_mode).to_vec());

        let position = if rng.below(2) == 0 { rng.below(1 << 30) } else { u64::MAX - 200 - rng.below(1000) };
        let mut reader = hazmat::merge_subtrees_root_xof(&left32, &right32, official_mode);
        reader.set_position(position);
        let mut expected = [0u8; 200];
        reader.fill(&mut expected);
        stage(&[left, right].concat());
        assert_eq!(merge_root(mode, 200, position as u32, (position >> 32) as u32), OK);
        assert_eq!(read_staged(200), expected.to_vec(), "mode {mode}, root at {position}");
    }
}

/// Contexts of every length through the staging buffer's one-shot paths.
#[test]
fn derive_key_contexts_match_official() {
    let _guard = lock();
    let mut rng = Rng(0x4528_21e6_38d0_1377);
    for len in [0, 1, 63, 64, 65, 1023, 1024, 1025, 5000, STAGING_LEN] {
        let context: String = (0..len).map(|_| char::from(b'a' + rng.below(26) as u8)).collect();
        stage(context.as_bytes());
        assert_eq!(derive_context_key(len as u32), OK);
        assert_eq!(memory::key(), hazmat::hash_derive_key_context(&context), "context length {len}");
    }
}

/// The official chunk chaining value of `chunk` at chunk index `index`.
fn official_chunk_cv(mode: u32, chunk: &[u8], index: u64) -> [u8; 32] {
    let mut hasher = prepare(mode);
    hasher.set_input_offset(index * CHUNK_LEN as u64);
    hasher.update(chunk);
    hasher.finalize_non_root()
}

#[test]
fn chunk_cvs_are_the_official_chunk_chaining_values() {
    let _guard = lock();
    for mode in [MODE_HASH, MODE_KEYED, MODE_DERIVE_KEY] {
        for len in [1, 63, 1023, 1024, 1025, 4096, 5000, STAGING_LEN - 1, STAGING_LEN] {
            for counter in [0u64, 1, 7, 1 << 40] {
                let data = input(len);
                prepare(mode);
                stage(&data);
                let (lo, hi) = ((counter & 0xffff_ffff) as u32, (counter >> 32) as u32);
                let count = len.div_ceil(CHUNK_LEN);
                assert_eq!(chunk_cvs(mode, len as u32, lo, hi), count as i32, "mode {mode} len {len}");
                let found = read_staged(32 * count);
                for (i, chunk) in data.chunks(CHUNK_LEN).enumerate() {
                    let expected = official_chunk_cv(mode, chunk, counter + i as u64);
                    assert_eq!(found[32 * i..32 * i + 32], expected, "mode {mode} len {len} counter {counter} chunk {i}");
                }
            }
        }
    }
}

#[test]
fn parent_cvs_are_the_official_merges() {
    let _guard = lock();
    for mode in [MODE_HASH, MODE_KEYED, MODE_DERIVE_KEY] {
        for pairs in [1usize, 2, 3, 63, 64, 65, 200, STAGING_LEN / 64] {
            let records: Vec<u8> = (0..pairs * 64).map(|i| (i * 7 + pairs) as u8).collect();
            prepare(mode);
            stage(&records);
            assert_eq!(parent_cvs(mode, pairs as u32), pairs as i32);
            let found = read_staged(32 * pairs);
            let context_key = hazmat::hash_derive_key_context(CONTEXT);
            let hazmat_mode = match mode {
                MODE_HASH => hazmat::Mode::Hash,
                MODE_KEYED => hazmat::Mode::KeyedHash(&KEY),
                _ => hazmat::Mode::DeriveKeyMaterial(&context_key),
            };
            for (i, record) in records.chunks(64).enumerate() {
                let (left, right) = (record[..32].try_into().unwrap(), record[32..].try_into().unwrap());
                assert_eq!(
                    found[32 * i..32 * i + 32],
                    hazmat::merge_subtrees_non_root(&left, &right, hazmat_mode),
                    "mode {mode} pairs {pairs} pair {i}"
                );
            }
        }
    }
}

#[test]
fn batch_exports_reject_bad_arguments() {
    let _guard = lock();
    assert_eq!(chunk_cvs(3, 1024, 0, 0), E_MODE);
    assert_eq!(chunk_cvs(MODE_HASH, 0, 0, 0), E_LENGTH);
    assert_eq!(chunk_cvs(MODE_HASH, STAGING_LEN as u32 + 1, 0, 0), E_LENGTH);
    assert_eq!(chunk_cvs(MODE_HASH, u32::MAX, 0, 0), E_LENGTH);
    // The last chunk of a 2^64 - 1 byte input, and one past it.
    let last = u64::MAX / CHUNK_LEN as u64;
    assert_eq!(chunk_cvs(MODE_HASH, 1023, last as u32, (last >> 32) as u32), 1);
    assert_eq!(chunk_cvs(MODE_HASH, 1024, last as u32, (last >> 32) as u32), E_POSITION);
    assert_eq!(chunk_cvs(MODE_HASH, 1, u32::MAX, u32::MAX), E_POSITION);
    assert_eq!(parent_cvs(3, 1), E_MODE);
    assert_eq!(parent_cvs(MODE_HASH, (STAGING_LEN / 64) as u32 + 1), E_LENGTH);
    assert_eq!(parent_cvs(MODE_HASH, u32::MAX), E_LENGTH);
    assert_eq!(parent_cvs(MODE_HASH, 0), 0);
}

#[test]
fn hash_many_matches_official_for_equal_and_mixed_lengths() {
    let _guard = lock();
    for mode in MODES {
        for (len, count) in [(0, 3), (1, 5), (64, 9), (1024, 6), (4096, 5), (3072, 4), (100, 2)] {
            for out_len in [32usize, 7, 100] {
                let official = prepare(mode);
                let data: Vec<u8> = (0..len * count).map(|i| (i * 7 % 253) as u8).collect();
                let out_at = len * count;
                stage(&data);
                assert_eq!(hash_many(mode, count as u32, len as u32, 0, out_at as u32, out_len as u32), OK);
                let out = read_staged(out_at + count * out_len)[out_at..].to_vec();
                for i in 0..count {
                    let mut hasher = official.clone();
                    hasher.update(&data[i * len..(i + 1) * len]);
                    assert_eq!(out[i * out_len..(i + 1) * out_len], official_xof(&hasher, 0, out_len), "mode {mode} len {len} item {i}");
                }
            }
        }
    }
    // Mixed: the ends after the data, the output after the ends.
    let lens = [64usize, 64, 0, 5000, 1024, 1024, 1024, 1024, 1025];
    let data = input(lens.iter().sum());
    let mut staged_bytes = data.clone();
    let mut end = 0u32;
    for len in lens {
        end += len as u32;
        staged_bytes.extend_from_slice(&end.to_le_bytes());
    }
    stage(&staged_bytes);
    let out_at = staged_bytes.len() as u32;
    assert_eq!(hash_many(MODE_HASH, lens.len() as u32, u32::MAX, data.len() as u32, out_at, 32), OK);
    let out = read_staged(out_at as usize + 32 * lens.len())[out_at as usize..].to_vec();
    let mut start = 0;
    for (i, len) in lens.iter().enumerate() {
        assert_eq!(out[32 * i..32 * i + 32], *blake3::hash(&data[start..start + len]).as_bytes(), "item {i}");
        start += len;
    }
}

#[test]
fn hash_many_rejects_bad_layouts() {
    let _guard = lock();
    let n = STAGING_LEN as u32;
    assert_eq!(hash_many(3, 1, 1, 0, 1, 32), E_MODE);
    assert_eq!(hash_many(MODE_HASH, 2, 1024, 0, 1024, 32), E_LENGTH); // data runs into the output
    assert_eq!(hash_many(MODE_HASH, 2, 32, 0, n - 32, 32), E_LENGTH); // output past the end
    assert_eq!(hash_many(MODE_HASH, u32::MAX, 0, 0, 0, 0), E_LENGTH);
    assert_eq!(hash_many(MODE_HASH, 1 << 20, 0, 0, 0, 32), E_LENGTH);
    assert_eq!(hash_many(MODE_HASH, 2, u32::MAX, 100, 104, 32), E_LENGTH); // ends run into the output
    stage(&[0; 8]);
    staged(16).unwrap()[8..16].copy_from_slice(&[9, 0, 0, 0, 5, 0, 0, 0]);
    assert_eq!(hash_many(MODE_HASH, 2, u32::MAX, 8, 16, 32), E_LENGTH); // an end past the data
    staged(16).unwrap()[8..16].copy_from_slice(&[5, 0, 0, 0, 4, 0, 0, 0]);
    assert_eq!(hash_many(MODE_HASH, 2, u32::MAX, 8, 16, 32), E_LENGTH); // ends out of order
    staged(16).unwrap()[8..16].copy_from_slice(&[5, 0, 0, 0, 8, 0, 0, 0]);
    assert_eq!(hash_many(MODE_HASH, 2, u32::MAX, 8, 16, 32), OK);
}

/// The official pre-order parents (over groups of `block` bytes) and
/// chaining value of the subtree `bytes` at input byte `offset`.
fn official_subtree(mode: u32, bytes: &[u8], offset: u64, block: usize) -> (Vec<u8>, [u8; 32]) {
    if bytes.len() <= block {
        let mut hasher = prepare(mode);
        hasher.set_input_offset(offset);
        hasher.update(bytes);
        return (Vec::new(), hasher.finalize_non_root());
    }
    let left = hazmat::left_subtree_len(bytes.len() as u64) as usize;
    let (l_parents, l) = official_subtree(mode, &bytes[..left], offset, block);
    let (r_parents, r) = official_subtree(mode, &bytes[left..], offset + left as u64, block);
    let context_key = hazmat::hash_derive_key_context(CONTEXT);
    let hazmat_mode = match mode {
        MODE_HASH => hazmat::Mode::Hash,
        MODE_KEYED => hazmat::Mode::KeyedHash(&KEY),
        _ => hazmat::Mode::DeriveKeyMaterial(&context_key),
    };
    ([&l[..], &r[..], &l_parents, &r_parents].concat(), hazmat::merge_subtrees_non_root(&l, &r, hazmat_mode))
}

#[test]
fn subtree_parents_are_the_official_pre_order_tree() {
    let _guard = lock();
    for mode in [MODE_HASH, MODE_KEYED, MODE_DERIVE_KEY] {
        for chunks in [1usize, 2, 4, 8, 16, 32, 64] {
            for len in [chunks * CHUNK_LEN, chunks * CHUNK_LEN - 1, (chunks - 1) * CHUNK_LEN + 1] {
                for counter in [0, chunks as u64, 5 * chunks as u64 * (1 << 30)] {
                    for chunk_log in [0, 1, 2, 4, 6, 7, u32::MAX] {
                        let data = input(len);
                        let block = if chunk_log >= 32 { usize::MAX } else { CHUNK_LEN << chunk_log };
                        // Before staging: prepare() stages the derive_key context.
                        let (parents, cv) = official_subtree(mode, &data, counter * CHUNK_LEN as u64, block);
                        prepare(mode);
                        stage(&data);
                        let (lo, hi) = ((counter & 0xffff_ffff) as u32, (counter >> 32) as u32);
                        let what = format!("mode {mode} len {len} counter {counter} chunk_log {chunk_log}");
                        assert_eq!(subtree_parents(mode, len as u32, lo, hi, chunk_log), (parents.len() / 64) as i32, "{what}");
                        let found = read_staged(32 + parents.len());
                        assert_eq!(found[..32], cv, "{what}");
                        assert!(found[32..] == parents[..], "{what}");
                    }
                }
            }
        }
    }
}

#[test]
fn subtree_parents_rejects_what_is_not_one_subtree() {
    let _guard = lock();
    stage(&input(STAGING_LEN));
    assert_eq!(subtree_parents(3, 1024, 0, 0, 0), E_MODE);
    assert_eq!(subtree_parents(MODE_HASH, 0, 0, 0, 0), E_LENGTH);
    assert_eq!(subtree_parents(MODE_HASH, 3 * 1024, 0, 0, 0), E_LENGTH);
    assert_eq!(subtree_parents(MODE_HASH, STAGING_LEN as u32 + 1, 0, 0, 0), E_LENGTH);
    assert_eq!(subtree_parents(MODE_HASH, 4 * 1024, 2, 0, 0), E_ALIGN);
    let last = u64::MAX / CHUNK_LEN as u64;
    assert_eq!(subtree_parents(MODE_HASH, 1023, last as u32, (last >> 32) as u32, 0), 0);
    assert_eq!(subtree_parents(MODE_HASH, 1024, last as u32, (last >> 32) as u32, 0), E_POSITION);
}
