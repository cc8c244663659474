//! Hashing files: a byte range of a caller's open file, or a whole path.
//!
//! Only Linux maps files (`mapped.rs`, under guard.rs's SIGBUS guard).
//! macOS and Windows read them, in `READ_BUF` pieces hashed on the pool's
//! threads, which measured about as fast as mapping on Linux (`READ_BUF`):
//! - macOS raises SIGBUS for a truncated mapping too, but a signal handler
//!   (si_code, the zero-fill mmap) that nobody has run on a Mac is worse than
//!   none: if it were wrong a truncation could hang or hash zeros unnoticed.
//!   This machine can build for macOS but not run it.
//! - Windows refuses to truncate a file with a mapped view
//!   (ERROR_USER_MAPPED_FILE), but a mapped read that fails underneath (a
//!   network share or a removable disk going away) raises
//!   EXCEPTION_IN_PAGE_ERROR, which kills node.exe unless a vectored
//!   exception handler answers it, and Wine, where this is tested, does not
//!   fail the way Windows does. A mapping would also make other programs'
//!   saves to the file fail while it is hashed.

use std::fs::File;
use std::io::{self, Read};
use std::mem::ManuallyDrop;
use std::path::Path;

use crate::error::{Error, InvalidArg};
use crate::mode::{fill, new_hasher};
use crate::pool::{self, Absorb, Pool};

#[cfg(target_os = "linux")]
mod mapped;
#[cfg(windows)]
mod windows;

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

/// The read buffer for files that report less than `READ_BUF` past the
/// offset (procfs: 0 bytes, sysfs: 4096, pipes: 0): what upstream's
/// `update_reader`, and so b3sum --no-mmap, reads with.
const READ_SMALL: usize = 64 * 1024;

/// Hashes bytes `[offset, offset + length)` of the open file `fd` into
/// `hasher`, stopping early (not failing) at end of file; returns how many
/// bytes were hashed. The fd is borrowed: neither closed nor moved (`pread`
/// and `mmap` ignore the file position). With `mmap`, on Linux, a range of
/// at least `MMAP_MIN` bytes of a regular file is mapped instead of read.
///
/// End of file is where reads end, not the size fstat reports: procfs says
/// 0 bytes and sysfs 4096 for files that hold a few dozen. Pipes, FIFOs and
/// sockets have no positions (`pread` fails with ESPIPE): there the next
/// `length` bytes are read from where the fd stands and `offset` is ignored.
///
/// A mapped file truncated while it is hashed fails with `Error::Truncated`
/// (guard.rs keeps the SIGBUS from killing the process); `hasher` then holds
/// garbage, as after any error part-way.
///
/// Bytes that would take the input past 2^64 - 1 bytes, BLAKE3's limit,
/// are an error (`Error::Arg`), with the hasher part-way as for any error.
#[cfg(unix)]
pub fn update_from_fd(hasher: &mut impl Absorb, fd: std::os::fd::RawFd, offset: u64, length: u64, mmap: bool) -> Result<u64, Error> {
    use std::os::fd::FromRawFd;
    if fd < 0 {
        return Err(io::Error::from_raw_os_error(libc::EBADF).into());
    }
    // SAFETY: fd >= 0; ManuallyDrop keeps the caller's fd open.
    let file = ManuallyDrop::new(unsafe { File::from_raw_fd(fd) });
    update_from_file(hasher, &file, offset, length, mmap)
}

/// `update_from_fd` for a Windows handle (Node's fds become handles in the
/// addon, through node.exe's `uv_get_osfhandle`): read with `seek_read`,
/// never mapped, and the handle's position put back afterwards. Pipes and
/// consoles are read from where they stand, as on Unix.
///
/// # Safety
///
/// `handle` is null, INVALID_HANDLE_VALUE (both fail with
/// ERROR_INVALID_HANDLE) or a handle that stays open until this returns.
/// Unlike an fd, which the kernel checks, a handle is a pointer.
#[cfg(windows)]
pub unsafe fn update_from_handle(
    hasher: &mut impl Absorb,
    handle: std::os::windows::io::RawHandle,
    offset: u64,
    length: u64,
    mmap: bool,
) -> Result<u64, Error> {
    use std::os::windows::io::FromRawHandle;
    // INVALID_HANDLE_VALUE is -1, what uv_get_osfhandle gives for a closed fd.
    if handle.is_null() || handle as isize == -1 {
        return Err(io::Error::from_raw_os_error(windows::ERROR_INVALID_HANDLE).into());
    }
    // SAFETY: open, as the caller promises; ManuallyDrop keeps it open.
    let file = ManuallyDrop::new(unsafe { File::from_raw_handle(handle) });
    update_from_file(hasher, &file, offset, length, mmap)
}

fn update_from_file(hasher: &mut impl Absorb, file: &File, offset: u64, length: u64, mmap: bool) -> Result<u64, Error> {
    if length == 0 {
        return Ok(0);
    }
    let pool = pool::current();
    #[cfg(target_os = "linux")]
    if mmap && length >= MMAP_MIN {
        if let Some(hashed) = mapped::update(&pool, hasher, file, offset, length)? {
            return Ok(hashed);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = mmap; // read either way (see the module comment)
    update_read(&pool, hasher, file, offset, length)
}

fn update_read(pool: &Pool, hasher: &mut impl Absorb, file: &File, offset: u64, length: u64) -> Result<u64, Error> {
    #[cfg(windows)]
    if !windows::has_positions(file) {
        let mut buf = vec![0u8; usize::try_from(length).map_or(READ_SMALL, |l| l.min(READ_SMALL))];
        return update_sequential(pool, hasher, file, length, &mut buf);
    }
    #[cfg(windows)]
    let _kept = windows::KeepPosition::new(file);
    // One buffer for the whole range, READ_BUF only for files that say they
    // hold that much: kernel files refuse large reads (a procfs sysctl file
    // fails a 4 MiB read with ENOMEM, its kmalloc limit). The size is a
    // hint for the buffer alone; reads go on to the end whatever it says.
    let reported = file.metadata().map_or(0, |meta| meta.len().saturating_sub(offset));
    let size = usize::try_from(reported).map_or(READ_BUF, |r| r.clamp(READ_SMALL, READ_BUF));
    let mut buf = vec![0u8; usize::try_from(length).map_or(size, |l| l.min(size))];
    let mut hashed = 0u64;
    while hashed < length {
        let want = usize::try_from(length - hashed).map_or(buf.len(), |l| l.min(buf.len()));
        // An offset past what off_t holds fails in the kernel (EINVAL), not here.
        let at = offset.saturating_add(hashed);
        match read_at(file, &mut buf[..want], at) {
            Ok(0) => break, // end of file
            Ok(n) => {
                hasher.absorb(pool, &buf[..n])?;
                hashed += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            #[cfg(unix)]
            Err(e) if hashed == 0 && e.raw_os_error() == Some(libc::ESPIPE) => {
                return update_sequential(pool, hasher, file, length, &mut buf);
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(hashed)
}

/// A read at `at` that leaves the file's position alone (on Windows,
/// `update_read` puts it back).
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    #[cfg(unix)]
    return std::os::unix::fs::FileExt::read_at(file, buf, at);
    #[cfg(windows)]
    return std::os::windows::fs::FileExt::seek_read(file, buf, at);
}

/// Up to `length` bytes from where `file` stands, for fds without positions.
fn update_sequential(pool: &Pool, hasher: &mut impl Absorb, mut file: &File, length: u64, buf: &mut [u8]) -> Result<u64, Error> {
    let mut hashed = 0u64;
    while hashed < length {
        let want = usize::try_from(length - hashed).map_or(buf.len(), |l| l.min(buf.len()));
        match file.read(&mut buf[..want]) {
            Ok(0) => break,
            Ok(n) => {
                hasher.absorb(pool, &buf[..n])?;
                hashed += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Ok(hashed)
}

/// Hashes the file at `path` the way b3sum does: mapped and on the pool's
/// threads when `mmap` (small or unmappable files read, as upstream's
/// `update_mmap_rayon` does), else read single-threaded. Returns `out_len`
/// bytes of output, or `Error::Truncated` if the mapped file shrank.
///
/// We map the file ourselves rather than calling `update_mmap_rayon`, whose
/// mapping guard.rs can't see; the hashing is the same (`update_rayon` on the
/// whole map, via the pool). Files whose reported size is below `MMAP_MIN`
/// (procfs: 0, sysfs: 4096) or that refuse mapping are read to their end.
/// Opening a FIFO waits for a writer, as b3sum does: the JS side sends only
/// regular files here and reads FIFOs itself, where an abort can end the wait.
///
/// Where nothing is mapped (macOS, Windows), `mmap` reads in `READ_BUF`
/// pieces hashed on the pool's threads instead: the fast way there.
pub fn hash_file(path: &Path, mode: u32, key: Option<&[u8]>, out_len: usize, mmap: bool) -> Result<Vec<u8>, Error> {
    let mut hasher = new_hasher(mode, key)?;
    // Fails here, before any I/O, if the output can't be allocated; never aborts.
    let mut out = Vec::new();
    if out.try_reserve_exact(out_len).is_err() {
        return Err(InvalidArg::range("outLength", format!("cannot allocate {out_len} bytes of output")).into());
    }
    out.resize(out_len, 0);
    let file = open(path)?;
    if !mmap {
        hasher.update_reader(&file)?;
    } else {
        #[cfg(target_os = "linux")]
        if mapped::update(&pool::current(), &mut hasher, &file, 0, u64::MAX)?.is_none() {
            hasher.update_reader(&file)?;
        }
        #[cfg(not(target_os = "linux"))]
        update_read(&pool::current(), &mut hasher, &file, 0, u64::MAX)?;
    }
    fill(&hasher, 0, &mut out)?;
    Ok(out)
}

/// Opens `path` for reading; on Windows as libuv does, so that a directory
/// fails as Node's reads of one do (see `windows::FILE_FLAG_BACKUP_SEMANTICS`).
fn open(path: &Path) -> io::Result<File> {
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        std::fs::OpenOptions::new().read(true).custom_flags(windows::FILE_FLAG_BACKUP_SEMANTICS).open(path)
    }
    #[cfg(not(windows))]
    File::open(path)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use blake3::Hasher;
    use std::io::Write;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

    fn hash_path(path: &str, mmap: bool) -> Vec<u8> {
        hash_file(Path::new(path), 0, None, 32, mmap).unwrap()
    }

    /// (st_size, content) of a kernel file, if this system has it.
    fn lying(path: &str) -> Option<(u64, Vec<u8>)> {
        let size = std::fs::metadata(path).ok()?.len();
        Some((size, std::fs::read(path).ok()?))
    }

    #[test]
    fn kernel_files_are_hashed_to_their_end_not_their_size() {
        // procfs reports 0 bytes, sysfs 4096, for a few dozen bytes; sysctl
        // files also fail reads of 4 MiB (ENOMEM).
        let kernel_files = [
            "/proc/version",
            "/proc/sys/kernel/osrelease",
            "/sys/kernel/mm/transparent_hugepage/enabled",
            "/sys/devices/system/cpu/online",
        ];
        for path in kernel_files {
            let Some((size, content)) = lying(path) else { continue };
            assert_ne!(size, content.len() as u64, "{path} no longer misreports its size");
            let expected = blake3::hash(&content);
            for mmap in [true, false] {
                assert_eq!(hash_path(path, mmap), expected.as_bytes(), "{path} hash_file mmap={mmap}");
                let file = File::open(path).unwrap();
                let mut hasher = Hasher::new();
                let n = update_from_fd(&mut hasher, file.as_raw_fd(), 0, u64::MAX, mmap).unwrap();
                assert_eq!(n, content.len() as u64, "{path} update_from_fd mmap={mmap}");
                assert_eq!(hasher.finalize(), expected);
            }
        }
    }

    #[test]
    fn pipes_are_read_where_they_stand() {
        let data: Vec<u8> = (0..3 * READ_BUF + 17).map(|i| (i % 251) as u8).collect();
        let mut fds = [0; 2];
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: both fds are fresh from pipe() and owned here alone.
        let (read_end, write_end) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        let writer = {
            let data = data.clone();
            std::thread::spawn(move || File::from(write_end).write_all(&data).unwrap())
        };
        // Two calls, the first ending mid-buffer; offsets are ignored.
        let mut hasher = Hasher::new();
        let first = READ_BUF as u64 + 5;
        assert_eq!(update_from_fd(&mut hasher, read_end.as_raw_fd(), 12345, first, true).unwrap(), first);
        let rest = update_from_fd(&mut hasher, read_end.as_raw_fd(), 0, u64::MAX, false).unwrap();
        writer.join().unwrap();
        assert_eq!(first + rest, data.len() as u64);
        assert_eq!(hasher.finalize(), blake3::hash(&data));
    }
}
