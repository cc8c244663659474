//! `Resumable` against the official `blake3::Hasher`: every length up to
//! three chunks and past it, sizes around the pool's threshold, random
//! update splits, output at any position, and saved states (BODY) that load
//! back to the same digests. Since `Resumable` compresses with upstream's
//! doc-hidden `blake3::platform`, these are also the check that the pinned
//! crate still behaves as we use it.
//!
//! Then every validity rule of the BODY, each a `state` error, and mutated
//! bodies, none of which may panic.

mod common;

use blake3_kit_native::{blake3, ArgKind, Pool, Resumable, BODY_HEAD, RAYON_MIN};
use common::{key_for, official, pattern, Rng, KEY};

const MODES: [u32; 3] = [0, 1, 2];
const OUT: usize = 131;

fn new(mode: u32) -> Resumable {
    Resumable::new(mode, key_for(mode).as_ref().map(|k| &k[..])).unwrap()
}

fn digest(hasher: &Resumable) -> Vec<u8> {
    let mut out = vec![0; OUT];
    hasher.fill(0, &mut out).unwrap();
    out
}

fn reload(mode: u32, hasher: &Resumable) -> Resumable {
    let body = hasher.export_state().unwrap();
    let loaded = Resumable::import_state(mode, key_for(mode).as_ref().map(|k| &k[..]), &body).unwrap();
    assert_eq!(loaded.export_state().unwrap(), body, "export(import(body)) == body");
    loaded
}

#[test]
fn every_length_to_three_chunks_and_saved_at_each() {
    let input = pattern(3 * 1024 + 1 + 1025);
    for mode in MODES {
        for len in 0..=3 * 1024 + 1 {
            let mut hasher = new(mode);
            hasher.update(&input[..len]).unwrap();
            let want = official(mode, &input[..len], OUT);
            assert_eq!(digest(&hasher), want, "mode {mode} len {len}");
            let mut loaded = reload(mode, &hasher);
            assert_eq!(digest(&loaded), want, "mode {mode} len {len} reloaded");
            // A loaded state goes on as the original would (a chunk and a byte more).
            loaded.update(&input[len..len + 1025]).unwrap();
            assert_eq!(digest(&loaded), official(mode, &input[..len + 1025], OUT), "mode {mode} len {len} + 1025 after reload");
        }
    }
}

#[test]
fn large_sizes_in_random_splits_with_saves_between() {
    let pool = Pool::new(2).unwrap();
    let mut rng = Rng(0x5be0_cd19_137e_2179);
    let sizes = [4096, 64 * 1024 - 1, 64 * 1024, 64 * 1024 + 1, RAYON_MIN + 1, 4 * RAYON_MIN + 1025];
    let input = pattern(*sizes.iter().max().unwrap());
    for mode in MODES {
        for &len in &sizes {
            let want = official(mode, &input[..len], OUT);
            // One pass, with and without the pool.
            let mut alone = new(mode);
            alone.update_with(None, &input[..len]).unwrap();
            assert_eq!(digest(&alone), want, "mode {mode} len {len} single-threaded");
            let mut pooled = new(mode);
            pooled.update_with(Some(&pool), &input[..len]).unwrap();
            assert_eq!(digest(&pooled), want, "mode {mode} len {len} on the pool");
            // Random splits, reloading from a saved state at every split.
            for _ in 0..3 {
                let mut hasher = new(mode);
                let mut at = 0;
                while at < len {
                    let step = match rng.below(4) {
                        0 => rng.below(64) + 1,
                        1 => rng.below(4096) + 1,
                        _ => rng.below(len - at) + 1,
                    }
                    .min(len - at);
                    hasher.update_with(Some(&pool), &input[at..at + step]).unwrap();
                    at += step;
                    hasher = reload(mode, &hasher);
                }
                assert_eq!(digest(&hasher), want, "mode {mode} len {len} in random splits");
            }
        }
    }
}

#[test]
fn output_from_any_position() {
    let input = pattern(5000);
    let positions = [0u64, 1, 63, 64, 65, 127, 1000, 1 << 32, (1 << 32) + 63, u64::MAX - 200];
    for mode in MODES {
        for len in [0, 1, 64, 1024, 1025, 5000] {
            let mut hasher = new(mode);
            hasher.update(&input[..len]).unwrap();
            let mut reference = match mode {
                0 => blake3::Hasher::new(),
                1 => blake3::Hasher::new_keyed(KEY),
                _ => blake3::Hasher::new_derive_key(common::CONTEXT),
            };
            reference.update(&input[..len]);
            for position in positions {
                for out_len in [0, 1, 63, 64, 65, 130, 200] {
                    let mut want = vec![0; out_len];
                    let mut reader = reference.finalize_xof();
                    reader.set_position(position);
                    reader.fill(&mut want);
                    let mut got = vec![0; out_len];
                    hasher.fill(position, &mut got).unwrap();
                    assert_eq!(got, want, "mode {mode} len {len} position {position} out {out_len}");
                }
            }
        }
        let mut out = [0; 2];
        let err = new(mode).fill(u64::MAX - 1, &mut out).unwrap_err();
        assert_eq!(err.arg, "position");
    }
}

/// Past 2^64 - 1 output bytes, by block counter, as the official
/// OutputReader goes on (b3sum's --seek there).
#[test]
fn output_by_block_goes_on_past_the_end() {
    let input = pattern(1025);
    for mode in MODES {
        let mut hasher = new(mode);
        hasher.update(&input).unwrap();
        let mut reference = match mode {
            0 => blake3::Hasher::new(),
            1 => blake3::Hasher::new_keyed(KEY),
            _ => blake3::Hasher::new_derive_key(common::CONTEXT),
        };
        reference.update(&input);
        for (position, len) in [(u64::MAX - 15, 48), (u64::MAX, 130), (u64::MAX - 63, 64 * 5 + 1)] {
            let mut want = vec![0; len];
            let mut reader = reference.finalize_xof();
            reader.set_position(position);
            reader.fill(&mut want);
            let mut got = vec![0; len];
            hasher.fill_blocks(position / 64, (position % 64) as u8, &mut got);
            assert_eq!(got, want, "mode {mode} position {position} length {len}");
        }
    }
}

#[test]
fn reset_forgets_input_and_keeps_the_mode() {
    for mode in MODES {
        let mut hasher = new(mode);
        hasher.update(&pattern(3000)).unwrap();
        hasher.reset();
        hasher.update(b"abc").unwrap();
        assert_eq!(digest(&hasher), official(mode, b"abc", OUT));
        assert_eq!(hasher.count(), 3);
    }
}

/// A state of `len` bytes of the pattern, in mode 1.
fn body_after(len: usize) -> Vec<u8> {
    let mut hasher = new(1);
    hasher.update(&pattern(len)).unwrap();
    hasher.export_state().unwrap()
}

fn rejects(body: &[u8], mode: u32, what: &str) {
    let err = match Resumable::import_state(mode, key_for(mode).as_ref().map(|k| &k[..]), body) {
        Ok(_) => panic!("{what}: accepted"),
        Err(err) => err,
    };
    assert_eq!((err.arg, err.kind), ("state", ArgKind::Range), "{what}: {err}");
}

#[test]
fn every_validity_rule_is_an_error() {
    let empty = body_after(0);
    assert_eq!(empty.len(), BODY_HEAD);
    let three = body_after(3 * 1024 + 100); // counter 3: two subtrees, 1 block compressed
    assert_eq!(three[10], 2);
    assert_eq!(three[8], 1);
    // Length: short, long, shorter than the head, a stack byte off.
    rejects(&three[..three.len() - 1], 1, "one byte short");
    rejects(&[three.clone(), vec![0]].concat(), 1, "one byte long");
    rejects(&three[..50], 1, "shorter than the head");
    rejects(&[], 1, "empty");
    // Reserved byte.
    let mut b = three.clone();
    b[11] = 1;
    rejects(&b, 1, "reserved byte");
    // Chunk counter at 2^54 (with a matching stack of one).
    let mut b = empty.clone();
    b[..8].copy_from_slice(&(1u64 << 54).to_le_bytes());
    b[9] = 1;
    b[10] = 1;
    b.extend_from_slice(&[0; 32]);
    rejects(&b, 1, "counter 2^54");
    // Stack length != popcount (with the body length following it).
    let mut b = three.clone();
    b[10] = 1;
    b.truncate(BODY_HEAD + 32);
    rejects(&b, 1, "stack of 1 for counter 3");
    // blocks_compressed 16, block_len 65.
    let mut b = three.clone();
    b[8] = 16;
    rejects(&b, 1, "16 blocks compressed");
    let mut b = three.clone();
    b[9] = 65;
    rejects(&b, 1, "block length 65");
    // A non-zero byte past block_len (36 bytes in the block here).
    let mut b = three.clone();
    assert_eq!(b[9], 36);
    b[44 + 63] = 1;
    rejects(&b, 1, "byte past block_len");
    // block_len 0 after input.
    let mut b = body_after(1024 * 2 + 64);
    b[9] = 0;
    b[44..108].fill(0);
    rejects(&b, 1, "empty block after a compressed block");
    let mut b = three.clone();
    b[8] = 0;
    b[9] = 0;
    b[44..108].fill(0);
    b[12..44].fill(0);
    rejects(&b, 1, "empty block after whole chunks");
    // A chunk value field that is not zero when no block is compressed
    // (format v1 kept the key there). Which key a state belongs to is the
    // header's key check (src/state.ts), not the body's.
    let mut b = body_after(50);
    assert_eq!(&b[12..44], &[0; 32]);
    b[12] ^= 1;
    rejects(&b, 1, "chunk cv field not zero");
    b[12..44].copy_from_slice(KEY);
    rejects(&b, 1, "the key in the chunk cv field");
    // The mode's own checks come first.
    let err = Resumable::import_state(1, None, &empty).err().unwrap();
    assert_eq!(err.arg, "key");
    // And the unmutated ones load.
    for body in [empty, three] {
        Resumable::import_state(1, Some(KEY), &body).unwrap();
    }
}

#[test]
fn mutated_bodies_never_panic() {
    let mut rng = Rng(0x9b05_688c_2b3e_6c1f);
    let bases: Vec<Vec<u8>> = [0, 1, 64, 65, 1024, 1025, 3000, 70_000].iter().map(|&len| body_after(len)).collect();
    let mut loaded = 0;
    for round in 0..200_000 {
        let mut body = bases[round % bases.len()].clone();
        for _ in 0..=rng.below(3) {
            match rng.below(6) {
                0 if !body.is_empty() => {
                    let at = rng.below(body.len());
                    body[at] ^= 1 << rng.below(8);
                }
                1 if !body.is_empty() => {
                    let at = rng.below(body.len().min(BODY_HEAD));
                    body[at] = rng.below(256) as u8;
                }
                2 => body.truncate(rng.below(body.len() + 1)),
                3 => body.extend((0..rng.below(70)).map(|_| rng.below(256) as u8)),
                4 => {
                    let at = 8 + rng.below(3);
                    if at < body.len() {
                        body[at] = rng.below(70) as u8;
                    }
                }
                _ => {}
            }
        }
        let mode = rng.below(3) as u32;
        if let Ok(mut hasher) = Resumable::import_state(mode, key_for(mode).as_ref().map(|k| &k[..]), &body) {
            loaded += 1;
            assert_eq!(hasher.export_state().unwrap(), body);
            let mut out = [0; 65];
            hasher.fill(rng.below(1000) as u64, &mut out).unwrap();
            let more = pattern(rng.below(5000));
            if let Err(e) = hasher.update(&more) {
                assert!(hasher.room() < more.len() as u64, "{e}");
            }
            hasher.fill(0, &mut out).unwrap();
        }
    }
    // The loop also reached valid bodies, so both branches ran.
    assert!(loaded > 1000, "{loaded} bodies loaded");
}

/// Runs of updates of one size after a prefix, without reloading: the raw
/// last chunk joining the next batch, unaligned heads before subtrees, the
/// kernel's and the subtrees' shares of a run.
#[test]
fn update_runs_after_any_prefix() {
    let pool = Pool::new(2).unwrap();
    let input = pattern(4 * 1024 * 1024);
    for mode in MODES {
        for prefix in [0, 1, 1000, 1024, 5000, 64 * 1024 + 7, 129 * 1024] {
            for step in [1024, 1025, 16 * 1024, 16 * 1024 + 1, 64 * 1024, 130 * 1024, 1024 * 1024] {
                for pool in [None, Some(&pool)] {
                    let mut hasher = new(mode);
                    hasher.update_with(pool, &input[..prefix]).unwrap();
                    let mut end = prefix;
                    for _ in 0..3 {
                        hasher.update_with(pool, &input[end..end + step]).unwrap();
                        end += step;
                    }
                    let want = official(mode, &input[..end], OUT);
                    assert_eq!(hasher.count(), end as u64);
                    assert_eq!(digest(&hasher), want, "mode {mode} prefix {prefix} step {step}");
                    assert_eq!(digest(&reload(mode, &hasher)), want, "mode {mode} prefix {prefix} step {step} reloaded");
                }
            }
        }
    }
}
