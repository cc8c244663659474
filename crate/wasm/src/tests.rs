//! The ABI against the official crate, and its error codes. The exports share
//! static memory, so every test holds `LOCK`.

use super::*;
use std::sync::{Mutex, MutexGuard};

static LOCK: Mutex<()> = Mutex::new(());

fn lock() -> MutexGuard<'static, ()> {
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

const KEY: [u8; 32] = *b"whats the Elvish word for friend";
const CONTEXT: &str = "BLAKE3 2019-12-27 16:29:52 test vectors context";

fn input(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}

fn stage(bytes: &[u8]) {
    staged(bytes.len() as u32).unwrap().copy_from_slice(bytes);
}

fn read_staged(len: usize) -> Vec<u8> {
    staged(len as u32).unwrap().to_vec()
}

/// Puts the mode's key in the key area; returns the official hasher for it.
fn prepare(mode: u32) -> blake3::Hasher {
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

fn official_xof(hasher: &blake3::Hasher, position: u64, len: usize) -> Vec<u8> {
    let mut reader = hasher.finalize_xof();
    reader.set_position(position);
    let mut out = vec![0; len];
    reader.fill(&mut out);
    out
}

const MODES: [u32; 3] = [MODE_HASH, MODE_KEYED, MODE_DERIVE_KEY];
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
            assert_eq!(hasher_update(slot, piece.len() as u32), OK);
        }
        official.update(&data);
        let position = (1u64 << 40) + 3;
        assert_eq!(hasher_finalize(slot, 200, position as u32, (position >> 32) as u32), OK);
        assert_eq!(read_staged(200), official_xof(&official, position, 200));

        // A clone is independent of its original.
        let copy = hasher_clone(slot) as u32;
        stage(b"more");
        assert_eq!(hasher_update(copy, 4), OK);
        assert_eq!(hasher_finalize(slot, 32, 0, 0), OK);
        assert_eq!(read_staged(32), official_xof(&official, 0, 32));
        official.update(b"more");
        assert_eq!(hasher_finalize(copy, 32, 0, 0), OK);
        assert_eq!(read_staged(32), official_xof(&official, 0, 32));

        // Reset keeps the mode and key.
        assert_eq!(hasher_reset(copy), OK);
        assert_eq!(hasher_finalize(copy, 32, 0, 0), OK);
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
            assert_eq!(hasher_update(slot, part.len() as u32), OK);
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
            assert_eq!(hasher_update(slot, part.len() as u32), OK);
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
        assert_eq!(hasher_update(bad_slot, 0), E_SLOT);
        assert_eq!(hasher_finalize(bad_slot, 32, 0, 0), E_SLOT);
        assert_eq!(hasher_reset(bad_slot), E_SLOT);
        assert_eq!(hasher_clone(bad_slot), E_SLOT);
        assert_eq!(hasher_free(bad_slot), E_SLOT);
        assert_eq!(hasher_set_input_offset(bad_slot, 0, 0), E_SLOT);
        assert_eq!(hasher_finalize_non_root(bad_slot), E_SLOT);
    }

    let slot = hasher_new(MODE_HASH) as u32;
    assert_eq!(hasher_update(slot, too_long), E_LENGTH);
    assert_eq!(hasher_finalize(slot, too_long, 0, 0), E_LENGTH);
    // The last output byte is at 2^64 - 2: BLAKE3 outputs at most 2^64 - 1.
    assert_eq!(hasher_finalize(slot, 1, u32::MAX, u32::MAX), E_POSITION);
    assert_eq!(hasher_finalize(slot, 2, u32::MAX - 1, u32::MAX), E_POSITION);
    assert_eq!(hasher_finalize(slot, 1, u32::MAX - 1, u32::MAX), OK);
    assert_eq!(hasher_finalize(slot, 0, u32::MAX, u32::MAX), OK);
    assert_eq!(hasher_finalize_non_root(slot), E_STATE);
    assert_eq!(hasher_set_input_offset(slot, 1000, 0), E_ALIGN);
    stage(&[1; 2048]);
    assert_eq!(hasher_set_input_offset(slot, 1024, 0), OK);
    assert_eq!(hasher_set_input_offset(slot, 1024, 0), E_STATE);
    // The subtree at offset 1024 is one chunk at most, and has no root.
    assert_eq!(hasher_update(slot, 1025), E_STATE);
    assert_eq!(hasher_update(slot, 1024), OK);
    assert_eq!(hasher_update(slot, 1), E_STATE);
    assert_eq!(hasher_finalize(slot, 32, 0, 0), E_STATE);
    assert_eq!(hasher_finalize_non_root(slot), OK);
    // A reset drops the offset: it is an ordinary hasher again.
    assert_eq!(hasher_reset(slot), OK);
    assert_eq!(hasher_finalize(slot, 32, 0, 0), OK);
    assert_eq!(read_staged(32), blake3::hash(b"").as_bytes().to_vec());
    assert_eq!(hasher_free(slot), OK);
    assert_eq!(hasher_free(slot), E_SLOT, "double free");
    assert_eq!(hasher_update(slot, 0), E_SLOT, "use after free");
}

#[test]
fn slots_are_recycled_without_growth() {
    let _guard = lock();
    let before = slots_in_use();
    let held: Vec<u32> = (0..1000).map(|_| hasher_new(MODE_HASH) as u32).collect();
    assert_eq!(slots_in_use(), before + 1000);
    let capacity = slots().capacity();
    for slot in held {
        assert_eq!(hasher_free(slot), OK);
    }
    for _ in 0..100_000 {
        let slot = hasher_new(MODE_KEYED);
        assert!(slot >= 0);
        assert_eq!(hasher_free(slot as u32), OK);
    }
    assert_eq!(slots().capacity(), capacity);
    assert_eq!(slots_in_use(), before);
}

/// Every export with arbitrary integers, as a careless or hostile caller might
/// pass them: each call returns (an error code or a result) instead of
/// panicking. Lengths are drawn mostly near the interesting edges.
#[test]
fn random_arguments_never_panic() {
    let _guard = lock();
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut pick = |n: &mut dyn FnMut() -> u64| -> u32 {
        match n() % 6 {
            0 => n() as u32,
            1 => (n() % 4) as u32,
            2 => STAGING_LEN as u32 - 2 + (n() % 4) as u32,
            3 => (n() % 2048) as u32 * 512,
            4 => u32::MAX - (n() % 3) as u32,
            _ => (n() % 70_000) as u32,
        }
    };
    let mut live = Vec::new();
    for _ in 0..200_000 {
        let (a, b, c, d) = (pick(&mut next), pick(&mut next), pick(&mut next), pick(&mut next));
        let slot = if live.is_empty() || next() % 3 == 0 { a } else { live[(next() % live.len() as u64) as usize] };
        let result = match next() % 13 {
            0 => hash_oneshot(a % 4, b, c),
            1 => derive_context_key(b),
            2 => hasher_new(a % 4),
            3 => hasher_update(slot, b),
            4 => hasher_finalize(slot, b, c, d),
            5 => hasher_reset(slot),
            6 => hasher_clone(slot),
            7 => hasher_free(slot),
            8 => hasher_set_input_offset(slot, b, c),
            9 => hasher_finalize_non_root(slot),
            10 => merge_non_root(a % 4),
            11 => merge_root(a % 4, b, c, d),
            _ => hasher_free(slot),
        };
        if result >= 0 && next() % 2 == 0 {
            // Keep some new slots around so that later calls hit live hashers.
            live.push(result as u32);
        }
        live.retain(|&s| slots().get(s).is_ok());
        if live.len() > 64 {
            live.drain(..32);
        }
    }
    for slot in live {
        hasher_free(slot);
    }
}
