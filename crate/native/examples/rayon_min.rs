//! Where `update_rayon` starts to beat `update` on this machine: the evidence
//! for `RAYON_MIN` (src/pool.rs). Throwaway-grade, but kept so the number can
//! be re-measured:
//!
//!   cargo run --release -p blake3-kit-native --example rayon_min [threads]
//!
//! Prints MB/s of one-shot hashing per size, one thread vs the pool, the two
//! measured alternately so machine noise hits both alike: the median and the
//! best of the trials (on a shared machine the best shows what the cores can
//! do, the median what a caller typically gets). Back-to-back calls keep
//! rayon's threads spinning, which flatters small sizes; the "idle" columns
//! time single calls made after 2 ms of idling, when the threads have gone to
//! sleep and must be woken (median of IDLE_CALLS).

use std::time::Instant;

const SIZES_KIB: [usize; 11] = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384];
const TRIALS: usize = 15;
/// Bytes hashed per trial, so each trial takes milliseconds, not microseconds.
const PER_TRIAL: usize = 32 << 20;
const IDLE_CALLS: usize = 100;

fn mbps(bytes: usize, f: &mut dyn FnMut()) -> f64 {
    let start = Instant::now();
    f();
    bytes as f64 / start.elapsed().as_secs_f64() / 1e6
}

/// (median, best)
fn stats(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[v.len() - 1])
}

fn main() {
    let threads = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(2);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
    let input: Vec<u8> = (0..SIZES_KIB[SIZES_KIB.len() - 1] << 10).map(|i| (i % 251) as u8).collect();
    println!("| KiB | update median | rayon({threads}) median | ratio | update best | rayon({threads}) best | ratio | update idle | rayon({threads}) idle | ratio |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for kib in SIZES_KIB {
        let data = &input[..kib << 10];
        let reps = PER_TRIAL / data.len();
        let (mut one, mut many) = (Vec::new(), Vec::new());
        for _ in 0..TRIALS {
            one.push(mbps(reps * data.len(), &mut || {
                for _ in 0..reps {
                    std::hint::black_box(blake3::Hasher::new().update(data).finalize());
                }
            }));
            many.push(mbps(reps * data.len(), &mut || {
                pool.install(|| {
                    for _ in 0..reps {
                        std::hint::black_box(blake3::Hasher::new().update_rayon(data).finalize());
                    }
                })
            }));
        }
        let (mut one_idle, mut many_idle) = (Vec::new(), Vec::new());
        for _ in 0..IDLE_CALLS {
            std::thread::sleep(std::time::Duration::from_millis(2));
            one_idle.push(mbps(data.len(), &mut || {
                std::hint::black_box(blake3::Hasher::new().update(data).finalize());
            }));
            std::thread::sleep(std::time::Duration::from_millis(2));
            many_idle.push(mbps(data.len(), &mut || {
                pool.install(|| std::hint::black_box(blake3::Hasher::new().update_rayon(data).finalize()));
            }));
        }
        let ((one_med, one_best), (many_med, many_best)) = (stats(one), stats(many));
        let ((one_idle, _), (many_idle, _)) = (stats(one_idle), stats(many_idle));
        println!(
            "| {kib} | {one_med:.0} | {many_med:.0} | {:.2} | {one_best:.0} | {many_best:.0} | {:.2} | {one_idle:.0} | {many_idle:.0} | {:.2} |",
            many_med / one_med,
            many_best / one_best,
            many_idle / one_idle
        );
    }
}
