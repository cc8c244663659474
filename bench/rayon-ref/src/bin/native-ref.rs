//! `native-ref [--rounds N] [--min-ms M] SIZE_BYTES...`: the official crate
//! natively, for bench/native/vs-crate.mjs. For each size, N samples of
//! `blake3::hash` (one thread) and of `Hasher::update_rayon` (all threads,
//! rayon's default pool), alternating; each sample is k calls, k chosen so a
//! sample takes at least M ms. Prints one JSON line per size with every
//! sample's MB/s (10^6 bytes/s); the caller takes medians.
//!
//! Same crate, pins and release profile as the package's addon (lto,
//! codegen-units = 1, no target-cpu: the crate picks its assembly at run time).

use std::hint::black_box;
use std::time::Instant;

fn one(bytes: &[u8], rayon: bool) -> blake3::Hash {
    if rayon {
        let mut hasher = blake3::Hasher::new();
        hasher.update_rayon(bytes);
        hasher.finalize()
    } else {
        blake3::hash(bytes)
    }
}

/// Seconds for k calls.
fn batch(bytes: &[u8], rayon: bool, k: u32) -> f64 {
    let start = Instant::now();
    for _ in 0..k {
        black_box(one(black_box(bytes), rayon));
    }
    start.elapsed().as_secs_f64()
}

fn calls_per_sample(bytes: &[u8], rayon: bool, min_secs: f64) -> u32 {
    let mut k = 1u32;
    loop {
        let t = batch(bytes, rayon, k).min(batch(bytes, rayon, k));
        if t >= min_secs || k >= 1 << 24 {
            return k;
        }
        k = if t < min_secs / 16.0 { k * 8 } else { ((k as f64 * min_secs * 1.2 / t).ceil() as u32).max(k + 1) };
    }
}

fn main() {
    let mut rounds = 9usize;
    let mut min_ms = 5.0f64;
    let mut sizes = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--rounds" => rounds = args.next().and_then(|v| v.parse().ok()).expect("--rounds N"),
            "--min-ms" => min_ms = args.next().and_then(|v| v.parse().ok()).expect("--min-ms M"),
            size => sizes.push(size.parse::<usize>().expect("sizes in bytes")),
        }
    }
    for size in sizes {
        let bytes: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
        let k_hash = calls_per_sample(&bytes, false, min_ms / 1e3);
        let k_rayon = calls_per_sample(&bytes, true, min_ms / 1e3);
        let mut hash = Vec::with_capacity(rounds);
        let mut rayon = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            hash.push(size as f64 * k_hash as f64 / batch(&bytes, false, k_hash) / 1e6);
            rayon.push(size as f64 * k_rayon as f64 / batch(&bytes, true, k_rayon) / 1e6);
        }
        let list = |v: &[f64]| v.iter().map(|x| format!("{x:.1}")).collect::<Vec<_>>().join(",");
        println!(
            "{{\"size\":{size},\"threads\":{},\"digest\":\"{}\",\"hash\":[{}],\"rayon\":[{}]}}",
            rayon_threads(),
            one(&bytes, false).to_hex(),
            list(&hash),
            list(&rayon)
        );
    }
}

fn rayon_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
