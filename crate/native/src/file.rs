//! Hashing files: a byte range of a caller's fd, or a whole path.

use std::fs::File;
use std::io;
use std::mem::ManuallyDrop;
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::fs::FileExt;
use std::path::Path;

use blake3::Hasher;

use crate::error::{Error, InvalidArg};
use crate::mode::{fill, new_hasher};
use crate::pool::{self, Pool};

/// Ranges shorter than this are read, not mapped: upstream's own threshold
/// for `update_mmap` (mapping a small file costs more than reading it).
pub const MMAP_MIN: u64 = 16 * 1024;

/// The most `pread` reads at once; at least `RAYON_MIN`, so a full read can
/// go to the pool. Hashing a cached 512 MiB file by `updateFromFd` with
/// mmap = false (Node, median of 7, MB/s, 1 / 2 threads):
/// 1 MiB 5786 / 5055, 4 MiB 6252 / 6162, 16 MiB 4941 / 4359 (a buffer that
/// big no longer stays in cache between the read and the hash). Reading is
/// the bottleneck, so the second thread barely helps; mapping measured about
/// the same (4359 / 6002).
pub const READ_BUF: usize = 4 * 1024 * 1024;

/// Hashes bytes `[offset, offset + length)` of the open file `fd` into
/// `hasher`, stopping early (not failing) at end of file; returns how many
/// bytes were hashed. The fd is borrowed: neither closed nor moved (`pread`
/// and `mmap` ignore the file position). With `mmap`, a range of at least
/// `MMAP_MIN` bytes of a regular file is mapped instead of read.
///
/// As with any mmap, a file truncated while it is hashed can kill the
/// process with SIGBUS; pass `mmap = false` for files that may shrink.
pub fn update_from_fd(hasher: &mut Hasher, fd: RawFd, offset: u64, length: u64, mmap: bool) -> io::Result<u64> {
    if fd < 0 {
        return Err(io::Error::from_raw_os_error(libc::EBADF));
    }
    // SAFETY: fd >= 0; ManuallyDrop keeps the caller's fd open.
    let file = ManuallyDrop::new(unsafe { File::from_raw_fd(fd) });
    if length == 0 {
        return Ok(0);
    }
    let pool = pool::current();
    if mmap && length >= MMAP_MIN {
        if let Some(hashed) = update_mapped(&pool, hasher, &file, offset, length)? {
            return Ok(hashed);
        }
    }
    update_read(&pool, hasher, &file, offset, length)
}

/// The mapped path; `None` when the range is not worth or not able to be
/// mapped (not a regular file, too short after EOF, or mmap refused).
fn update_mapped(pool: &Pool, hasher: &mut Hasher, file: &File, offset: u64, length: u64) -> io::Result<Option<u64>> {
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
    // SAFETY: see the SIGBUS note on update_from_fd; the map is read-only and
    // never leaves this function.
    let Ok(map) = (unsafe { memmap2::MmapOptions::new().offset(offset).len(len).map(file) }) else {
        return Ok(None);
    };
    pool.update(hasher, &map);
    Ok(Some(available))
}

fn update_read(pool: &Pool, hasher: &mut Hasher, file: &File, offset: u64, length: u64) -> io::Result<u64> {
    // One buffer for the whole range, no larger than the range.
    let mut buf = vec![0u8; usize::try_from(length).map_or(READ_BUF, |l| l.min(READ_BUF))];
    let mut hashed = 0u64;
    while hashed < length {
        let want = usize::try_from(length - hashed).map_or(buf.len(), |l| l.min(buf.len()));
        // An offset past what off_t holds fails in the kernel (EINVAL), not here.
        let at = offset.saturating_add(hashed);
        match file.read_at(&mut buf[..want], at) {
            Ok(0) => break, // end of file
            Ok(n) => {
                pool.update(hasher, &buf[..n]);
                hashed += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(hashed)
}

/// Hashes the file at `path` the way b3sum does: mapped and on the pool's
/// threads when `mmap` (upstream falls back to reads for small or unmappable
/// files), else read single-threaded. Returns `out_len` bytes of output.
pub fn hash_file(path: &Path, mode: u32, key: Option<&[u8]>, out_len: usize, mmap: bool) -> Result<Vec<u8>, Error> {
    let mut hasher = new_hasher(mode, key)?;
    // Fails here, before any I/O, if the output can't be allocated; never aborts.
    let mut out = Vec::new();
    if out.try_reserve_exact(out_len).is_err() {
        return Err(InvalidArg::range("outLength", format!("cannot allocate {out_len} bytes of output")).into());
    }
    out.resize(out_len, 0);
    if mmap {
        let pool = pool::current();
        pool.run(&mut hasher, |h| h.update_mmap_rayon(path).map(drop), |h| h.update_mmap(path).map(drop))?;
    } else {
        hasher.update_reader(File::open(path)?)?;
    }
    fill(&hasher, 0, &mut out)?;
    Ok(out)
}
