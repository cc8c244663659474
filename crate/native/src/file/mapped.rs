//! Mapped hashing, Linux only: the mapping is safe only under guard.rs's
//! SIGBUS guard, which is tested on Linux (natively and under qemu), and
//! nowhere else. See file.rs for why macOS and Windows read instead.

use std::fs::File;

use crate::error::Error;
use crate::guard::Guard;
use crate::pool::{Absorb, Pool};

use super::MMAP_MIN;

/// The mapped path; `None` when the range is not worth or not able to be
/// mapped safely (not a regular file, too short after EOF, mmap refused, or
/// no guard to be had), and the caller reads instead.
pub(super) fn update(pool: &Pool, hasher: &mut impl Absorb, file: &File, offset: u64, length: u64) -> Result<Option<u64>, Error> {
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Ok(None);
    }
    // Map only what exists: mapping past EOF would fault when touched.
    let available = meta.len().saturating_sub(offset).min(length);
    if available < MMAP_MIN {
        return Ok(None);
    }
    let Ok(len) = usize::try_from(available) else { return Ok(None) };
    // SAFETY: the map is read-only, never leaves this function, and is only
    // read while `guard` covers it, so a truncation faults into guard.rs's
    // handler, which maps zeros there, instead of killing the process.
    let Ok(map) = (unsafe { memmap2::MmapOptions::new().offset(offset).len(len).map(file) }) else {
        return Ok(None);
    };
    let Some(guard) = Guard::new(&map) else { return Ok(None) };
    // Returns after the pool joined: no thread reads the map any more.
    let absorbed = hasher.absorb(pool, &map);
    // Unregistered before `map` is dropped (unmapped), so the range is never
    // registered while the addresses could belong to someone else's mapping.
    // munmap then removes the file pages and any zero pages alike.
    if guard.finish() {
        return Err(Error::Truncated);
    }
    absorbed?;
    // A cut inside the range's last page raises no SIGBUS: the kernel zeroes
    // that page's tail and it stays mapped. Only the size tells.
    if file.metadata()?.len() < offset + available {
        return Err(Error::Truncated);
    }
    Ok(Some(available))
}
