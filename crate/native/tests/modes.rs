//! The three modes through our hasher, pool and one-shot against the
//! official vectors (extended output) and, past their sizes, the official
//! crate; plus XOF positions.

mod common;

use blake3_kit_native::{fill, hash_into, new_hasher, Pool, RAYON_MIN};
use common::*;

const OUT: usize = 131;

/// Hashes `input` through `pool` in pieces cut at pseudo-random points.
fn split_hash(pool: &Pool, mode: u32, input: &[u8], rng: &mut Rng, pieces: usize) -> Vec<u8> {
    let key = key_for(mode);
    let mut hasher = new_hasher(mode, key.as_ref().map(|k| &k[..])).unwrap();
    let mut cuts: Vec<usize> = (0..pieces.saturating_sub(1)).map(|_| rng.below(input.len() + 1)).collect();
    cuts.push(0);
    cuts.push(input.len());
    cuts.sort_unstable();
    for w in cuts.windows(2) {
        pool.update(&mut hasher, &input[w[0]..w[1]]);
    }
    let mut out = vec![0; OUT];
    fill(&hasher, 0, &mut out).unwrap();
    out
}

#[test]
fn official_vectors_one_shot() {
    for case in vectors() {
        let input = pattern(case.input_len);
        for mode in 0..3 {
            let key = key_for(mode);
            let mut out = vec![0; OUT];
            hash_into(mode, key.as_ref().map(|k| &k[..]), &input, &mut out).unwrap();
            assert_eq!(out, case.outputs[mode as usize], "len {} mode {mode}", case.input_len);
            // The default length is a prefix of the extended output.
            let mut short = [0; 32];
            hash_into(mode, key.as_ref().map(|k| &k[..]), &input, &mut short).unwrap();
            assert_eq!(short[..], case.outputs[mode as usize][..32]);
        }
    }
}

#[test]
fn official_vectors_split_updates_with_and_without_threads() {
    let pools = [Pool::new(1).unwrap(), Pool::new(2).unwrap()];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for case in vectors() {
        let input = pattern(case.input_len);
        for mode in 0..3 {
            for pool in &pools {
                for pieces in [1, 2, 7] {
                    let out = split_hash(pool, mode, &input, &mut rng, pieces);
                    assert_eq!(
                        out,
                        case.outputs[mode as usize],
                        "len {} mode {mode} threads {} pieces {pieces}",
                        case.input_len,
                        pool.threads()
                    );
                }
            }
        }
    }
}

#[test]
fn large_inputs_use_the_pool_and_match_the_official_crate() {
    // Moderate sizes: this also runs under qemu. Both straddle RAYON_MIN, and
    // pieces of 1 see whole inputs ≥ RAYON_MIN on the threaded path.
    let pools = [Pool::new(1).unwrap(), Pool::new(2).unwrap(), Pool::new(3).unwrap()];
    let mut rng = Rng(42);
    for len in [RAYON_MIN, RAYON_MIN + 1025, 3 * RAYON_MIN + 7] {
        let input = pattern(len);
        for mode in 0..3 {
            let want = official(mode, &input, OUT);
            for pool in &pools {
                for pieces in [1, 3] {
                    assert_eq!(split_hash(pool, mode, &input, &mut rng, pieces), want, "len {len} mode {mode} threads {}", pool.threads());
                }
            }
            let key = key_for(mode);
            let mut out = vec![0; OUT];
            hash_into(mode, key.as_ref().map(|k| &k[..]), &input, &mut out).unwrap();
            assert_eq!(out, want, "hash_into len {len} mode {mode}");
        }
    }
}

#[test]
fn xof_at_a_position_is_a_window_of_the_stream() {
    let case = &vectors()[20];
    let input = pattern(case.input_len);
    for mode in 0..3 {
        let key = key_for(mode);
        let mut hasher = new_hasher(mode, key.as_ref().map(|k| &k[..])).unwrap();
        hasher.update(&input);
        let want = &case.outputs[mode as usize];
        for (pos, len) in [(0, 131), (1, 130), (63, 5), (64, 64), (65, 66), (100, 31), (131, 0)] {
            let mut out = vec![0; len];
            fill(&hasher, pos as u64, &mut out).unwrap();
            assert_eq!(out[..], want[pos..pos + len], "mode {mode} pos {pos}");
        }
        // Filling does not consume the hasher: same answer twice.
        let mut again = vec![0; 131];
        fill(&hasher, 0, &mut again).unwrap();
        assert_eq!(&again, want);
    }
}

#[test]
fn xof_near_the_end_of_the_stream() {
    let hasher = new_hasher(0, None).unwrap();
    let mut reader = blake3_kit_native::blake3::Hasher::new().finalize_xof();
    for pos in [(1u64 << 32) + 5, u64::MAX - 64, u64::MAX - 100] {
        let mut out = [0u8; 64];
        fill(&hasher, pos, &mut out).unwrap();
        let mut want = [0u8; 64];
        reader.set_position(pos);
        reader.fill(&mut want);
        assert_eq!(out, want, "pos {pos}");
    }
    // The stream ends at 2^64 - 1 bytes.
    assert!(fill(&hasher, u64::MAX - 10, &mut [0; 10]).is_ok());
    assert!(fill(&hasher, u64::MAX - 10, &mut [0; 11]).is_err());
    assert!(fill(&hasher, u64::MAX, &mut []).is_ok());
    assert!(fill(&hasher, u64::MAX, &mut [0; 1]).is_err());
}
