//! Saved-state bodies (state.rs) through the ABI, against the official crate.

use super::*;
use crate::tests::{input, lock, official_xof, prepare, read_staged, stage, update, Rng, MODES};

/// Lengths the brief of the format names: around blocks, chunks, subtrees
/// and the staging buffer.
const LENGTHS: [usize; 16] = [0, 1, 63, 64, 65, 1023, 1024, 1025, 2048, 3072, 3073, 4096, 65 * 1024, 64 * 1024, 128 * 1024 + 1, 300_000];

/// Feeds `bytes` to `slot` in pieces of at most `piece` bytes.
fn feed(slot: u32, bytes: &[u8], piece: usize) {
    for part in bytes.chunks(piece.clamp(1, STAGING_LEN)) {
        stage(part);
        assert_eq!(update(slot, part.len() as u32), OK);
    }
}

fn export(slot: u32) -> Vec<u8> {
    let len = hasher_export_state(slot);
    assert!(len >= state::FIXED_LEN as i32, "export returned {len}");
    read_staged(len as usize)
}

/// Imports `body` in `mode` (whose key `prepare` put in the key area).
fn import(mode: u32, body: &[u8]) -> i32 {
    stage(body);
    hasher_import_state(mode, body.len() as u32)
}

fn finalize(slot: u32, len: usize) -> Vec<u8> {
    assert_eq!(hasher_finalize(slot, len as u32, 0, 0, 0), OK);
    read_staged(len)
}

#[test]
fn saved_states_continue_to_the_official_output() {
    let _guard = lock();
    let mut rng = Rng(0x5eed_0001);
    for mode in MODES {
        for total in LENGTHS {
            let data = input(total);
            let mut official = prepare(mode);
            official.update(&data);
            let expected = official_xof(&official, 0, 131);
            let mut splits = vec![0, total / 2, total];
            splits.extend((0..3).map(|_| rng.below(total as u64 + 1) as usize));
            for split in splits {
                let source = hasher_new(mode) as u32;
                feed(source, &data[..split], 1 + rng.below(STAGING_LEN as u64) as usize);
                let body = export(source);
                assert_eq!(export(source), body, "export changed the hasher");
                let resumed = import(mode, &body);
                assert!(resumed >= 0, "import of a saved state: {resumed}");
                let resumed = resumed as u32;
                assert_eq!(export(resumed), body, "not canonical after a round trip");
                feed(resumed, &data[split..], 1 + rng.below(4096) as usize);
                assert_eq!(finalize(resumed, 131), expected, "mode {mode} total {total} split {split}");
                // The source, exported twice, goes on as if never saved.
                feed(source, &data[split..], STAGING_LEN);
                assert_eq!(finalize(source, 131), expected);
                assert_eq!(hasher_free(source), OK);
                assert_eq!(hasher_free(resumed), OK);
            }
        }
    }
}

/// The body depends only on the input, never on how it was split into
/// updates (or on our lazy merging): the native engine must write the same.
#[test]
fn bodies_are_canonical_whatever_the_update_splits() {
    let _guard = lock();
    let mut rng = Rng(0x5eed_0002);
    prepare(MODE_HASH);
    for total in [1, 1024, 1025, 2048, 4096, 5000, 64 * 1024, 65 * 1024, 200_000] {
        let data = input(total);
        let mut bodies = Vec::new();
        for piece in [STAGING_LEN, 1, 64, 1024, 1 + rng.below(9000) as usize] {
            let slot = hasher_new(MODE_HASH) as u32;
            feed(slot, &data, piece);
            bodies.push(export(slot));
            assert_eq!(hasher_free(slot), OK);
        }
        assert!(bodies.iter().all(|body| *body == bodies[0]), "total {total}");
        let counter = u64::from_le_bytes(bodies[0][..8].try_into().unwrap());
        assert_eq!(counter, (total as u64 - 1) / 1024, "the last chunk stays the current one");
        assert_eq!(bodies[0].len(), 108 + 32 * counter.count_ones() as usize);
    }
}

#[test]
fn an_empty_hasher_is_the_empty_body() {
    let _guard = lock();
    for mode in MODES {
        prepare(mode);
        let slot = hasher_new(mode) as u32;
        let body = export(slot);
        // All zeros: no key (see state.rs), no input.
        assert_eq!(body, [0; 108]);
        assert_eq!(hasher_free(slot), OK);
    }
}

#[test]
fn subtree_hashers_cannot_be_exported() {
    let _guard = lock();
    prepare(MODE_HASH);
    for offset in [0u32, 4096] {
        let slot = hasher_new(MODE_HASH) as u32;
        assert_eq!(hasher_set_input_offset(slot, offset, 0), OK);
        feed(slot, &input(100), 100);
        assert_eq!(hasher_export_state(slot), E_STATE);
        assert_eq!(hasher_free(slot), OK);
    }
    assert_eq!(hasher_export_state(u32::MAX), E_SLOT);
}

fn code(reason: state::BodyError) -> i32 {
    E_BODY - reason as i32
}

/// Each rule of the format, broken alone on a valid body.
#[test]
fn each_rule_is_checked_and_nothing_is_allocated() {
    use state::BodyError::*;
    let _guard = lock();
    prepare(MODE_KEYED);
    let slot = hasher_new(MODE_KEYED) as u32;
    feed(slot, &input(3 * 1024 + 100), STAGING_LEN); // counter 3, 1 block, 36 bytes
    let body = export(slot);
    assert_eq!(hasher_free(slot), OK);
    let in_use = slots_in_use();
    let with = |change: &dyn Fn(&mut Vec<u8>)| {
        let mut bad = body.clone();
        change(&mut bad);
        import(MODE_KEYED, &bad)
    };
    assert_eq!(with(&|b| b.truncate(107)), code(Length));
    assert_eq!(with(&|b| b.push(0)), code(Length));
    assert_eq!(with(&|b| b.truncate(b.len() - 32)), code(Length));
    assert_eq!(with(&|b| b[11] = 1), code(Reserved));
    assert_eq!(with(&|b| b[6] = 0x40), code(Counter)); // 2^54 + 3
    assert_eq!(with(&|b| b[0] = 7), code(StackLen)); // popcount 3, two entries
    assert_eq!(with(&|b| b[8] = 16), code(Blocks));
    assert_eq!(with(&|b| b[9] = 65), code(BlockLen));
    assert_eq!(with(&|b| b[44 + 63] = 1), code(Padding));
    assert_eq!(with(&|b| b[9] = 0), code(Padding)); // its bytes are now past the end
    assert_eq!(with(&|b| b[8] = 0), code(ChunkCv));
    assert_eq!(slots_in_use(), in_use, "a rejected body took a slot");
    // A block of zeros past an emptied block: the rule on an empty block.
    let mut empty = body.clone();
    empty[9] = 0;
    empty[44..108].fill(0);
    assert_eq!(import(MODE_KEYED, &empty), code(EmptyBlock));
    // The chunk value field before a block: zeros, never the key (format
    // v1 kept the key there; src/state.ts turns such a body into this one).
    let mut keyed = body.clone();
    keyed[8] = 0;
    keyed[9] = 64;
    keyed[12..44].copy_from_slice(&crate::tests::KEY);
    assert_eq!(import(MODE_KEYED, &keyed), code(ChunkCv));
    keyed[12..44].fill(0);
    let accepted = import(MODE_KEYED, &keyed);
    assert!(accepted >= 0, "{accepted}");
    assert_eq!(slots_in_use(), in_use + 1);
    assert_eq!(hasher_free(accepted as u32), OK);
    // Which key a body belongs to is the header's key check: an empty body
    // loads in any mode.
    prepare(MODE_HASH);
    let slot = hasher_new(MODE_HASH) as u32;
    let empty = export(slot);
    assert_eq!(hasher_free(slot), OK);
    assert_eq!(import(3, &empty), E_MODE);
    for mode in MODES {
        prepare(mode);
        let accepted = import(mode, &empty);
        assert!(accepted >= 0);
        assert_eq!(hasher_free(accepted as u32), OK);
    }
    assert_eq!(slots_in_use(), in_use);
}

/// Every single-byte change of bodies at several lengths is rejected, or is
/// still a valid state that then updates, finalizes and exports without a
/// panic (a changed chaining value or block byte is a different state).
#[test]
fn mutated_bodies_never_panic() {
    let _guard = lock();
    prepare(MODE_HASH);
    let mut accepted = 0;
    for total in [0, 1, 64, 65, 1024, 1025, 2049, 5 * 1024 + 7, 70_000] {
        let slot = hasher_new(MODE_HASH) as u32;
        feed(slot, &input(total), STAGING_LEN);
        let body = export(slot);
        assert_eq!(hasher_free(slot), OK);
        for at in 0..body.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut bad = body.clone();
                bad[at] ^= flip;
                let result = import(MODE_HASH, &bad);
                if result >= 0 {
                    accepted += 1;
                    let slot = result as u32;
                    assert_eq!(export(slot), bad, "an accepted body is kept as given");
                    feed(slot, &input(3000), 1000);
                    finalize(slot, 64);
                    export(slot);
                    assert_eq!(hasher_free(slot), OK);
                } else {
                    assert!((E_BODY - 9..=E_BODY).contains(&result), "{result}");
                }
            }
        }
    }
    assert!(accepted > 0);
}

#[test]
fn random_bodies_never_panic() {
    let _guard = lock();
    prepare(MODE_DERIVE_KEY);
    let mut rng = Rng(0x5eed_0003);
    for _ in 0..20_000 {
        let stack = rng.below(60) as usize;
        let len = 108 + 32 * stack + rng.below(3) as usize - 1;
        let mut body = rng.bytes(len);
        // Often plausible, so that later checks are reached.
        if rng.below(2) == 0 && body.len() >= 108 {
            body[6] &= 0x3f;
            body[7] = 0;
            body[8] %= 16;
            body[9] %= 65;
            body[10] = stack as u8;
            body[11] = 0;
        }
        let result = import(MODE_DERIVE_KEY, &body);
        if result >= 0 {
            let slot = result as u32;
            feed(slot, &input(2000), 700);
            finalize(slot, 32);
            assert_eq!(hasher_free(slot), OK);
        }
    }
}
