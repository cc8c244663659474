//! Fuzzes the addon's core: random sequences over its public API (hashers in
//! every mode, updates on the pool, output at any position, one-shots,
//! context keys, pools and the process-wide thread count, fd ranges and
//! whole files) with random arguments, valid and not. Every call must give
//! what the official crate gives, used serially, or the argument error the
//! inputs call for, and nothing may panic.
//!
//! By default a fixed seed and a fixed number of calls, kept small because
//! `npm test` also runs this under qemu for aarch64. Long mode:
//! `BLAKE3_KIT_FUZZ_SECONDS=600 cargo test -p blake3-kit-native --test
//! fuzz` runs rounds with fresh seeds until that many seconds have passed;
//! each round prints its seed, and `BLAKE3_KIT_FUZZ_SEED=<seed>` replays it.

use std::fs::File;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use blake3_kit_native::blake3::{self, hazmat};
use blake3_kit_native::{
    context_key, fill, hash_file, hash_into, new_hasher, set_threads, threads, update, update_from_fd, ArgKind, Error, Pool, MAX_OUTPUT,
    MAX_THREADS, RAYON_MIN,
};

const DEFAULT_SEED: u64 = 0xbb67_ae85_84ca_a73b;
const DEFAULT_CALLS: usize = 8_000;
const MAX_LIVE: usize = 16;
/// The fuzz file: long enough for mapped ranges (`MMAP_MIN`) and a few reads.
const FILE_LEN: usize = 300 * 1024;

/// xorshift64*: deterministic, so a seed replays a failure.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// An input or output length: mostly small, sometimes past the pool's
    /// threshold (rarely: qemu is slow).
    fn length(&mut self) -> usize {
        match self.below(100) {
            0 => RAYON_MIN + self.below(RAYON_MIN as u64) as usize,
            1..=30 => self.below(65) as usize,
            31..=60 => self.below(4097) as usize,
            _ => self.below(70_000) as usize,
        }
    }

    /// A 64-bit position or offset: small, huge or any.
    fn wide(&mut self) -> u64 {
        match self.below(5) {
            0 => self.next(),
            1 => u64::MAX - self.below(300),
            2 => self.below(2 * FILE_LEN as u64),
            3 => self.next() >> self.below(64),
            _ => self.below(5000),
        }
    }
}

struct Live {
    ours: blake3::Hasher,
    official: blake3::Hasher,
}

/// The fuzz file, removed when dropped.
struct TempFile {
    path: PathBuf,
    file: File,
    bytes: Vec<u8>,
}

impl TempFile {
    fn new(rng: &mut Rng) -> TempFile {
        let path = std::env::temp_dir().join(format!("blake3-kit-native-{}-fuzz", std::process::id()));
        let bytes: Vec<u8> = (0..FILE_LEN).map(|_| rng.next() as u8).collect();
        File::create(&path).and_then(|mut f| f.write_all(&bytes)).expect("write the fuzz file");
        let file = File::open(&path).expect("open the fuzz file");
        TempFile { path, file, bytes }
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

struct Fuzz {
    rng: Rng,
    source: Vec<u8>,
    live: Vec<Live>,
    temp: TempFile,
}

/// The official hasher for mode and key, built without our code.
fn official(mode: u32, key: Option<&[u8]>) -> Option<blake3::Hasher> {
    match (mode, key) {
        (0, None) => Some(blake3::Hasher::new()),
        (1, Some(key)) => Some(blake3::Hasher::new_keyed(key.try_into().ok()?)),
        (2, Some(key)) => Some(<blake3::Hasher as hazmat::HasherExt>::new_from_context_key(key.try_into().ok()?)),
        _ => None,
    }
}

fn xof(hasher: &blake3::Hasher, position: u64, len: usize) -> Vec<u8> {
    let mut reader = hasher.finalize_xof();
    reader.set_position(position);
    let mut out = vec![0; len];
    reader.fill(&mut out);
    out
}

impl Fuzz {
    fn new(seed: u64) -> Fuzz {
        let mut rng = Rng(seed | 1);
        let source = (0..2 * RAYON_MIN + 70_000).map(|_| rng.next() as u8).collect();
        let temp = TempFile::new(&mut rng);
        Fuzz { rng, source, live: Vec::new(), temp }
    }

    fn input(&mut self, len: usize) -> &[u8] {
        let start = self.rng.below(4096) as usize;
        &self.source[start..start + len]
    }

    fn mode(&mut self) -> u32 {
        if self.rng.chance(90) {
            self.rng.below(3) as u32
        } else {
            self.rng.next() as u32
        }
    }

    /// A key argument: mostly right for the mode, else missing, extra or of a
    /// wrong length.
    fn key(&mut self, mode: u32) -> Option<Vec<u8>> {
        let len = match self.rng.below(10) {
            0 => return None,
            1 => self.rng.below(70) as usize,
            _ if mode == 0 => return None,
            _ => 32,
        };
        Some((0..len).map(|_| self.rng.next() as u8).collect())
    }

    fn step(&mut self) {
        match self.rng.below(12) {
            0 | 1 => self.new_hasher(),
            2..=4 => self.update(),
            5 | 6 => self.fill(),
            7 => self.hash_into(),
            8 => self.context_key(),
            9 => self.pools(),
            10 => self.update_from_fd(),
            _ => self.hash_file(),
        }
    }

    fn new_hasher(&mut self) {
        let mode = self.mode();
        let key = self.key(mode);
        let ours = new_hasher(mode, key.as_deref());
        match (ours, official(mode, key.as_deref())) {
            (Ok(ours), Some(official)) => {
                if self.live.len() == MAX_LIVE {
                    self.live.swap_remove(self.rng.below(MAX_LIVE as u64) as usize);
                }
                self.live.push(Live { ours, official });
            }
            (Err(e), None) => {
                let expected = match (mode, &key) {
                    (3.., _) => ("mode", ArgKind::Range),
                    (0, Some(_)) | (_, None) => ("key", ArgKind::Type),
                    _ => ("key", ArgKind::Range),
                };
                assert_eq!((e.arg, e.kind), expected, "mode {mode}, key {:?}: {e}", key.map(|k| k.len()));
            }
            (ours, official) => panic!("mode {mode}, key {key:?}: ours {:?}, official {}", ours.err(), official.is_some()),
        }
    }

    fn pick(&mut self) -> Option<usize> {
        (!self.live.is_empty()).then(|| self.rng.below(self.live.len() as u64) as usize)
    }

    fn update(&mut self) {
        let Some(i) = self.pick() else { return };
        let len = self.rng.length();
        let start = self.rng.below(4096) as usize;
        let input = &self.source[start..start + len];
        let live = &mut self.live[i];
        update(&mut live.ours, input);
        live.official.update(input);
        assert_eq!(live.ours.count(), live.official.count());
    }

    fn fill(&mut self) {
        let Some(i) = self.pick() else { return };
        let (position, len) = (self.rng.wide(), self.rng.length().min(70_000));
        let mut out = vec![0; len];
        let result = fill(&self.live[i].ours, position, &mut out);
        if position as u128 + len as u128 > MAX_OUTPUT as u128 {
            let e = result.expect_err("past the end of output");
            return assert_eq!((e.arg, e.kind), ("position", ArgKind::Range));
        }
        result.expect("in range");
        assert!(out == xof(&self.live[i].official, position, len), "fill at {position}, {len} bytes");
    }

    fn hash_into(&mut self) {
        let mode = self.mode();
        let key = self.key(mode);
        let (len, out_len) = (self.rng.length(), self.rng.below(300) as usize);
        let input = self.input(len).to_vec();
        let mut out = vec![0; out_len];
        let result = hash_into(mode, key.as_deref(), &input, &mut out);
        let Some(mut official) = official(mode, key.as_deref()) else {
            return assert!(result.is_err(), "mode {mode}");
        };
        result.expect("valid arguments");
        official.update(&input);
        assert!(out == xof(&official, 0, out_len), "hash_into mode {mode}, {len} bytes");
    }

    fn context_key(&mut self) {
        let len = self.rng.below(300) as usize;
        let context: String = (0..len).map(|_| char::from_u32(self.rng.below(0x800) as u32).unwrap_or('?')).collect();
        assert_eq!(context_key(&context), hazmat::hash_derive_key_context(&context));
    }

    /// Pools of any size, the process-wide thread count, and `Pool::update`.
    fn pools(&mut self) {
        let n = match self.rng.below(4) {
            0 => MAX_THREADS + 1 + self.rng.below(u64::MAX - MAX_THREADS as u64 - 1) as usize,
            1 => MAX_THREADS - 1 + self.rng.below(3) as usize,
            _ => self.rng.below(4) as usize,
        };
        // The process-wide pool only small or invalid: it starts its threads
        // on the next large update.
        if self.rng.chance(50) && !(4..=MAX_THREADS).contains(&n) {
            match set_threads(n) {
                Ok(()) => assert!(n <= MAX_THREADS && threads() >= 1),
                Err(e) => assert!(n > MAX_THREADS && e.arg == "n", "{n}: {e}"),
            }
            return;
        }
        match Pool::new(n) {
            Err(e) => assert!(n > MAX_THREADS && (e.arg, e.kind) == ("n", ArgKind::Range), "{n}: {e}"),
            // A fresh pool of up to 1024 threads would be slow to start: use
            // small ones only.
            Ok(pool) if n <= 3 => {
                let Some(i) = self.pick() else { return };
                let len = self.rng.length();
                let start = self.rng.below(4096) as usize;
                let input = &self.source[start..start + len];
                pool.update(&mut self.live[i].ours, input);
                self.live[i].official.update(input);
                assert_eq!(self.live[i].ours.count(), self.live[i].official.count());
            }
            Ok(_) => assert!(n <= MAX_THREADS),
        }
    }

    /// A range of the fuzz file, or a bad fd: hashes exactly the bytes that
    /// exist in the range.
    fn update_from_fd(&mut self) {
        let Some(i) = self.pick() else { return };
        let (offset, length, mmap) = (self.rng.wide(), self.rng.wide(), self.rng.chance(50));
        let fd = match self.rng.below(10) {
            // Never 0-2: a random fd could be a terminal that blocks.
            0 => -1 - self.rng.below(1000) as i32,
            1 => 1_000_000,
            _ => self.temp.file.as_raw_fd(),
        };
        let result = update_from_fd(&mut self.live[i].ours, fd, offset, length, mmap);
        if fd < 0 || (fd != self.temp.file.as_raw_fd() && length > 0) {
            return assert!(matches!(result, Err(Error::Io(_))), "fd {fd}: {result:?}");
        }
        let start = offset.min(FILE_LEN as u64) as usize;
        let end = (start as u64).saturating_add(length).min(FILE_LEN as u64) as usize;
        match result {
            Ok(hashed) => {
                assert_eq!(hashed, (end - start) as u64, "offset {offset}, length {length}, mmap {mmap}");
                self.live[i].official.update(&self.temp.bytes[start..end]);
            }
            // An offset past what off_t holds: the kernel's EINVAL, before
            // any byte is read.
            Err(Error::Io(e)) if offset > i64::MAX as u64 && length > 0 => {
                assert_eq!(e.raw_os_error(), Some(libc::EINVAL), "{e}");
            }
            Err(e) => panic!("offset {offset}, length {length}, mmap {mmap}: {e:?}"),
        }
        assert_eq!(self.live[i].ours.count(), self.live[i].official.count());
    }

    fn hash_file(&mut self) {
        let mode = self.mode();
        let key = self.key(mode);
        let out_len = if self.rng.chance(5) { usize::MAX - self.rng.below(3) as usize } else { self.rng.below(300) as usize };
        let mmap = self.rng.chance(50);
        let missing = self.rng.chance(10);
        let path: &Path = if missing { Path::new("/nonexistent/blake3-kit-fuzz") } else { &self.temp.path };
        let result = hash_file(path, mode, key.as_deref(), out_len, mmap);
        let Some(mut official) = official(mode, key.as_deref()) else {
            return assert!(matches!(result, Err(Error::Arg(_))), "mode {mode}: {result:?}");
        };
        if out_len > isize::MAX as usize {
            return assert!(matches!(result, Err(Error::Arg(ref e)) if e.arg == "outLength"), "{result:?}");
        }
        if missing {
            return assert!(matches!(result, Err(Error::Io(_))), "{result:?}");
        }
        official.update(&self.temp.bytes);
        assert!(result.expect("hash_file") == xof(&official, 0, out_len), "hash_file mode {mode}, mmap {mmap}");
    }
}

fn env_number(name: &str) -> Option<u64> {
    let value = std::env::var(name).ok()?;
    Some(value.parse().unwrap_or_else(|_| panic!("{name}={value} is not a number")))
}

/// The one test in this binary: it changes the process-wide pool.
#[test]
fn random_calls_match_the_official_crate_and_never_panic() {
    let replay = env_number("BLAKE3_KIT_FUZZ_SEED");
    let Some(seconds) = env_number("BLAKE3_KIT_FUZZ_SECONDS") else {
        let mut fuzz = Fuzz::new(replay.unwrap_or(DEFAULT_SEED));
        for _ in 0..DEFAULT_CALLS {
            fuzz.step();
        }
        return;
    };
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| since.as_nanos() as u64);
    let mut seed = replay.unwrap_or(now ^ DEFAULT_SEED);
    let mut calls = 0u64;
    while Instant::now() < deadline {
        eprintln!("fuzz: round with BLAKE3_KIT_FUZZ_SEED={seed}");
        let mut fuzz = Fuzz::new(seed);
        for _ in 0..DEFAULT_CALLS {
            fuzz.step();
        }
        calls += DEFAULT_CALLS as u64;
        seed = fuzz.rng.next();
    }
    eprintln!("fuzz: {calls} calls in {seconds} s");
}
