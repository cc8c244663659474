//! A mapped file truncated while it is hashed: the hash fails with
//! `Error::Truncated` or, if it finished first, gives the full file's digest;
//! the process never dies of SIGBUS. Its own test binary, as it sets the
//! process-wide pool's size.

mod common;

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::Instant;

use blake3_kit_native::{hash_file, new_hasher, set_threads, update_from_fd, Error};
use common::*;

/// Big enough that hashing takes milliseconds (about 10 ms natively, far more
/// under qemu), so a truncation lands mid-hash most of the time.
const LEN: usize = 64 * 1024 * 1024;
const RUNS: usize = 20;

struct TempPath(PathBuf);

impl Drop for TempPath {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn write_file(path: &Path, data: &[u8]) {
    // Real bytes, not a sparse file: zeros past the cut would hash the same
    // as a hole, and a wrong digest could pass for the right one.
    File::create(path).unwrap().write_all(data).unwrap();
}

/// How a run hashes: the fd path (`updateFromFd`) or the whole-path one (`hashFile`).
fn hash(path: &Path, whole: bool) -> Result<Vec<u8>, Error> {
    if whole {
        return hash_file(path, 0, None, 32, true);
    }
    let file = File::open(path).unwrap();
    let mut hasher = new_hasher(0, None).unwrap();
    let n = update_from_fd(&mut hasher, file.as_raw_fd(), 0, LEN as u64, true)?;
    // A truncation before the map was made shows up as a short count.
    if n < LEN as u64 {
        return Err(Error::Truncated);
    }
    Ok(hasher.finalize().as_bytes().to_vec())
}

/// Private read-only mappings of nothing, as the guard's zero fill makes
/// them (thread stacks and malloc arenas are writable, so they don't count).
fn zero_mappings() -> Vec<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    maps.lines()
        .filter(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.len() == 5 && f[1] == "r--p" && f[3] == "00:00"
        })
        .map(String::from)
        .collect()
}

#[test]
fn truncated_while_mapped_fails_or_finishes_never_dies() {
    // More threads than cores: several workers fault at once.
    set_threads(4).unwrap();
    let data = pattern(LEN);
    let want = official(0, &data, 32);
    let tmp = TempPath(std::env::temp_dir().join(format!("blake3-kit-native-{}-truncation", std::process::id())));
    let mut rng = Rng(0x5eed_b1a3_cafe_f00d);
    let (mut cut, mut finished) = (0, 0);
    let mut before = None;
    for run in 0..RUNS {
        let whole = run % 2 == 0;
        write_file(&tmp.0, &data);
        // Untruncated first, to time a hash here (native or qemu) and to let the
        // pool's threads start before the mappings are counted.
        let started = Instant::now();
        assert_eq!(hash(&tmp.0, whole).unwrap(), want, "run {run}: untruncated");
        let took = started.elapsed();
        before.get_or_insert_with(zero_mappings);
        // Cut at a random moment up to a hash's time, to a random length
        // (often 0, often mid-file, sometimes within the last page, never the
        // full length).
        let delay = took.mul_f64(rng.below(1000) as f64 / 1000.0);
        let new_len = match rng.below(4) {
            0 => 0,
            // Inside the last page: no SIGBUS, only zeros; the size tells.
            1 => (LEN - 1 - rng.below(4000)) as u64,
            _ => rng.below(LEN) as u64,
        };
        let cutter = {
            let path = tmp.0.clone();
            std::thread::spawn(move || {
                std::thread::sleep(delay);
                OpenOptions::new().write(true).open(&path).unwrap().set_len(new_len).unwrap();
            })
        };
        match hash(&tmp.0, whole) {
            Ok(digest) => {
                assert_eq!(digest, want, "run {run}: a digest must be the full file's");
                finished += 1;
            }
            Err(Error::Truncated) => cut += 1,
            Err(e) => panic!("run {run}: {e}"),
        }
        cutter.join().unwrap();
    }
    eprintln!("truncation: {RUNS} runs, {cut} truncated mid-hash, {finished} finished first");
    assert!(cut > 0, "no run was cut mid-hash: the guard was never exercised");
    // Each fault maps zeros over part of a map; munmap must take those along
    // with the file pages, leaving nothing behind.
    let (before, after) = (before.unwrap(), zero_mappings());
    assert!(after.len() <= before.len(), "read-only anonymous mappings left behind: {before:?} then {after:?}");
}
