//! `rayon-ref SIZE_MIB...`: median MB/s of one thread (`update`) and all
//! threads (`update_rayon`) per size, as JSON lines.

use std::time::Instant;

fn median_rate(bytes: &[u8], threads: bool) -> f64 {
    let mut rates: Vec<f64> = (0..9)
        .map(|_| {
            let start = Instant::now();
            let mut hasher = blake3::Hasher::new();
            if threads {
                hasher.update_rayon(bytes);
            } else {
                hasher.update(bytes);
            }
            std::hint::black_box(hasher.finalize());
            bytes.len() as f64 / start.elapsed().as_secs_f64() / 1e6
        })
        .collect();
    rates.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    rates[rates.len() / 2]
}

fn main() {
    for arg in std::env::args().skip(1) {
        let mib: usize = arg.parse().expect("sizes in MiB");
        let bytes: Vec<u8> = (0..mib << 20).map(|i| (i % 251) as u8).collect();
        let single = median_rate(&bytes, false);
        let multi = median_rate(&bytes, true);
        println!(
            "{{\"mib\":{mib},\"threads\":{},\"single\":{single:.0},\"rayon\":{multi:.0},\"speedup\":{:.2}}}",
            rayon_threads(),
            multi / single
        );
    }
}

fn rayon_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
