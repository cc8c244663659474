//! Resumable (ours, saveable) vs the official Hasher, single-threaded, by
//! update size: median of 31 trials, each hashing `total` bytes in updates
//! of `step`. `cargo run --release -p blake3-kit-native --example resumable_speed`
//! (results in src/resumable.rs's header).

use std::time::Instant;

use blake3_kit_native::{blake3, Resumable};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let input: Vec<u8> = (0..16usize << 20).map(|i| (i % 251) as u8).collect();
    let cases =
        [(1025, 1 << 20), (16 << 10, 1 << 20), ((16 << 10) + 1, 1 << 20), (64 << 10, 4 << 20), (1 << 20, 16 << 20), (16 << 20, 16 << 20)];
    println!("| update | total | official MB/s | resumable MB/s | ratio |");
    for (step, total) in cases {
        let (mut official, mut ours) = (Vec::new(), Vec::new());
        for _ in 0..31 {
            let t = Instant::now();
            let mut h = blake3::Hasher::new();
            for piece in input[..total].chunks(step) {
                h.update(piece);
            }
            let a = *h.finalize().as_bytes();
            official.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            let mut r = Resumable::new(0, None).unwrap();
            for piece in input[..total].chunks(step) {
                r.update_with(None, piece).unwrap();
            }
            let mut b = [0; 32];
            r.fill(0, &mut b).unwrap();
            ours.push(t.elapsed().as_secs_f64());
            assert_eq!(a, b);
        }
        let (o, r) = (median(official), median(ours));
        let mbps = |s: f64| total as f64 / s / 1e6;
        println!("| {step} | {total} | {:.0} | {:.0} | {:.3} |", mbps(o), mbps(r), r / o);
    }
}
