//! The two fixed regions of linear memory that JS reads and writes directly:
//! the staging buffer (input in, output out) and the 32-byte key area.
//!
//! Wasm without threads is single-threaded, so plain statics behind an
//! `UnsafeCell` are sound there. Native `cargo test` runs many threads, so the
//! tests serialize on a mutex (see `tests.rs`).

use core::cell::UnsafeCell;

/// Bytes JS may stage per call. 64 KiB: a one-shot of up to this size is a
/// single export call, and the per-slice call cost is negligible next to the
/// time to hash 64 KiB. Tuning belongs to the benchmark issue.
pub const STAGING_LEN: usize = 64 * 1024;

#[repr(C, align(16))]
pub struct Region<const N: usize>(UnsafeCell<[u8; N]>);

// SAFETY: see the module comment: one thread in wasm, a mutex in tests.
unsafe impl<const N: usize> Sync for Region<N> {}

impl<const N: usize> Region<N> {
    const fn new() -> Self {
        Region(UnsafeCell::new([0; N]))
    }

    pub fn ptr(&self) -> *mut u8 {
        self.0.get().cast()
    }

    /// # Safety
    /// No other reference into this region may be alive.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn bytes(&self) -> &mut [u8; N] {
        unsafe { &mut *self.0.get() }
    }
}

pub static STAGING: Region<STAGING_LEN> = Region::new();
pub static KEY: Region<32> = Region::new();

/// The first `len` staged bytes, or `None` if `len` exceeds the buffer.
pub fn staged(len: u32) -> Option<&'static mut [u8]> {
    // SAFETY: exports take at most one view of STAGING at a time.
    let staging = unsafe { STAGING.bytes() };
    staging.get_mut(..len as usize)
}

pub fn key() -> [u8; 32] {
    // SAFETY: copied out; no reference survives.
    unsafe { *KEY.bytes() }
}

pub fn set_key(key: &[u8; 32]) {
    // SAFETY: as above.
    unsafe { *KEY.bytes() = *key }
}
