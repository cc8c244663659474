//! The thread pool hashing runs on: ours, never rayon's global one, so the
//! addon's threads can be sized and replaced without touching anyone else's
//! rayon use in the process.

use std::sync::{Arc, OnceLock, RwLock};

use blake3::Hasher;

use crate::error::InvalidArg;

/// Inputs shorter than this are hashed by the calling thread alone, even when
/// the pool has more. Upstream's rule of thumb is 128 KiB; this machine (a
/// 2-vCPU KVM guest on AMD EPYC Zen 5, AVX-512, shared) says otherwise.
/// `examples/rayon_min.rs`, 2 threads, MB/s (ratio to `update`):
///
/// | KiB   | warm update | warm update_rayon | idle update | idle update_rayon |
/// |------:|------------:|------------------:|------------:|------------------:|
/// |    16 |        7747 |       7556 (0.98) |        2996 |        171 (0.06) |
/// |    64 |        8497 |      12108 (1.42) |        5373 |        707 (0.13) |
/// |   128 |        9134 |      14445 (1.58) |        6903 |       1372 (0.20) |
/// |   512 |        9143 |      16380 (1.79) |        7235 |       3384 (0.47) |
/// |  1024 |        8792 |      16604 (1.89) |        7091 |       4701 (0.66) |
/// |  4096 |        8705 |      16583 (1.90) |        6630 |       6160 (0.93) |
/// | 16384 |        7528 |      14393 (1.91) |        6465 |      11677 (1.81) |
///
/// "warm": best of 15 trials of back-to-back calls (the pool's threads spin
/// between calls; medians are noisier, 0.96x-1.97x, as the second vCPU is
/// shared). "idle": median of 100 single calls each after 2 ms of idling,
/// the common case for a one-shot `hashInto`: waking a sleeping worker costs
/// ~60-100 us here, more when the host has descheduled the idle vCPU. That
/// cost is fixed while the warm gain grows with size (about size / 17 GB/s at
/// 2 threads); the two cross near 1 MiB, so that is the threshold: busy
/// callers get ~1.7-1.9x from 1 MiB on, an idle caller loses at most ~70 us.
pub const RAYON_MIN: usize = 1024 * 1024;

/// More threads than this is a caller bug (a size in bytes passed as a
/// count, say), not a pool anyone wants.
pub const MAX_THREADS: usize = 1024;

pub struct Pool {
    threads: usize,
    /// Built on first use above `RAYON_MIN`, so a process that only hashes
    /// small inputs never starts threads. `None` when single-threaded, or
    /// when the OS refused the threads (then hashing is single-threaded).
    rayon: OnceLock<Option<rayon::ThreadPool>>,
}

impl Pool {
    /// `threads`: 0 = one per available core, 1 = no threads at all.
    pub fn new(threads: usize) -> Result<Pool, InvalidArg> {
        if threads > MAX_THREADS {
            return Err(InvalidArg::range("n", format!("threads must be 0 (one per core) to {MAX_THREADS}, got {threads}")));
        }
        let threads = match threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        Ok(Pool { threads, rayon: OnceLock::new() })
    }

    /// How many threads hash a large input (1 when single-threaded).
    pub fn threads(&self) -> usize {
        self.threads
    }

    fn rayon(&self) -> Option<&rayon::ThreadPool> {
        if self.threads < 2 {
            return None;
        }
        self.rayon
            .get_or_init(|| {
                rayon::ThreadPoolBuilder::new().num_threads(self.threads).thread_name(|i| format!("blake3-kit-{i}")).build().ok()
            })
            .as_ref()
    }

    /// The pool's threads for work on `bytes` bytes, where they pay (from
    /// `RAYON_MIN`) and the pool has any.
    pub(crate) fn rayon_for(&self, bytes: usize) -> Option<&rayon::ThreadPool> {
        if bytes < RAYON_MIN {
            return None;
        }
        self.rayon()
    }

    /// `hasher.update(bytes)`, on the pool's threads when it pays.
    pub fn update(&self, hasher: &mut Hasher, bytes: &[u8]) {
        if bytes.len() >= RAYON_MIN {
            if let Some(pool) = self.rayon() {
                pool.install(|| hasher.update_rayon(bytes));
                return;
            }
        }
        hasher.update(bytes);
    }

    /// Runs `parallel(hasher)` inside the pool, so that upstream's `*_rayon`
    /// methods use our threads; or `serial(hasher)` when single-threaded.
    pub fn run<R: Send>(
        &self,
        hasher: &mut Hasher,
        parallel: impl FnOnce(&mut Hasher) -> R + Send,
        serial: impl FnOnce(&mut Hasher) -> R,
    ) -> R {
        match self.rayon() {
            Some(pool) => pool.install(|| parallel(hasher)),
            None => serial(hasher),
        }
    }
}

/// A hasher that file.rs can feed: the official one, or ours.
pub trait Absorb {
    /// Adds `bytes`, on `pool`'s threads where it pays; bytes that would
    /// take the input past 2^64 - 1 bytes, BLAKE3's limit, are refused
    /// (argument "input") and nothing is added.
    fn absorb(&mut self, pool: &Pool, bytes: &[u8]) -> Result<(), InvalidArg>;
}

impl Absorb for Hasher {
    fn absorb(&mut self, pool: &Pool, bytes: &[u8]) -> Result<(), InvalidArg> {
        if self.count().checked_add(bytes.len() as u64).is_none() {
            return Err(InvalidArg::range("input", "the input would pass 2^64 - 1 bytes, BLAKE3's limit"));
        }
        pool.update(self, bytes);
        Ok(())
    }
}

/// The process-wide pool; `None` until first used or configured.
static CURRENT: RwLock<Option<Arc<Pool>>> = RwLock::new(None);

/// The current pool. Callers keep the `Arc` for a whole operation, so a
/// `set_threads` meanwhile takes effect from the next one; the old pool's
/// threads exit when its last user is done.
pub fn current() -> Arc<Pool> {
    // A poisoned lock only means a panic elsewhere while holding it; the
    // `Option<Arc>` inside is still whole.
    if let Some(pool) = CURRENT.read().unwrap_or_else(|e| e.into_inner()).as_ref() {
        return pool.clone();
    }
    let mut slot = CURRENT.write().unwrap_or_else(|e| e.into_inner());
    slot.get_or_insert_with(|| Arc::new(Pool::new(0).unwrap_or(Pool { threads: 1, rayon: OnceLock::new() }))).clone()
}

/// Replaces the process-wide pool: 0 = one thread per core, 1 = single-threaded.
pub fn set_threads(n: usize) -> Result<(), InvalidArg> {
    let pool = Arc::new(Pool::new(n)?);
    *CURRENT.write().unwrap_or_else(|e| e.into_inner()) = Some(pool);
    Ok(())
}

/// The process-wide pool's size (1 when single-threaded).
pub fn threads() -> usize {
    current().threads()
}

/// `hasher.update(bytes)` on the process-wide pool.
pub fn update(hasher: &mut Hasher, bytes: &[u8]) {
    // Below RAYON_MIN no pool would be used: skip the lock and the Arc.
    if bytes.len() < RAYON_MIN {
        hasher.update(bytes);
        return;
    }
    current().update(hasher, bytes)
}
