//! File hashing: byte ranges of an fd (read and mapped) and whole paths.

mod common;

use std::fs::File;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::PathBuf;

use blake3_kit_native::{hash_file, new_hasher, update_from_fd, Error, MMAP_MIN, RAYON_MIN};
use common::*;

/// A file in the temp dir removed on drop (no tempfile dependency).
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, contents: &[u8]) -> TempFile {
        let path = std::env::temp_dir().join(format!("blake3-kit-native-{}-{name}", std::process::id()));
        File::create(&path).unwrap().write_all(contents).unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn hash_range(file: &File, mode: u32, offset: u64, length: u64, mmap: bool) -> (u64, Vec<u8>) {
    let key = key_for(mode);
    let mut hasher = new_hasher(mode, key.as_ref().map(|k| &k[..])).unwrap();
    let n = update_from_fd(&mut hasher, file.as_raw_fd(), offset, length, mmap).unwrap();
    let mut out = vec![0; 64];
    hasher.finalize_xof().fill(&mut out);
    (n, out)
}

#[test]
fn fd_ranges_read_and_mapped() {
    // Past RAYON_MIN so a mapped whole-file range also takes the pool's path.
    let len = RAYON_MIN + 3 * MMAP_MIN as usize + 11;
    let data = pattern(len);
    let tmp = TempFile::new("ranges", &data);
    let file = File::open(&tmp.0).unwrap();
    let m = MMAP_MIN;
    let l = len as u64;
    let ranges = [
        (0, 0),
        (0, 1),
        (0, l),
        (1, m - 1),
        (1, m),
        (1023, m + 1),
        (1024, 3 * m),
        (4097, l - 4097),
        (5, l), // asks past EOF: stops there
        (l - m, m),
        (l - 1, 10),
        (l, 10),
        (l + 100, m), // starts past EOF: nothing to hash
        (0, u64::MAX),
    ];
    for (offset, length) in ranges {
        let start = (offset as usize).min(len);
        let end = (offset.saturating_add(length) as usize).min(len);
        for mode in 0..3 {
            let want = official(mode, &data[start..end], 64);
            for mmap in [false, true] {
                let (n, out) = hash_range(&file, mode, offset, length, mmap);
                assert_eq!(n, (end - start) as u64, "offset {offset} length {length} mmap {mmap}");
                assert_eq!(out, want, "offset {offset} length {length} mode {mode} mmap {mmap}");
            }
        }
    }
    // The fd is borrowed: still open and usable afterwards.
    assert!(file.metadata().is_ok());
}

#[test]
fn fd_errors() {
    let mut hasher = new_hasher(0, None).unwrap();
    for mmap in [false, true] {
        let Err(Error::Io(e)) = update_from_fd(&mut hasher, -1, 0, 10, mmap) else { panic!("expected an io error") };
        assert_eq!(e.raw_os_error(), Some(libc::EBADF), "EBADF: {e}");
        // A directory opens but can't be read.
        let dir = File::open(std::env::temp_dir()).unwrap();
        let Err(Error::Io(e)) = update_from_fd(&mut hasher, dir.as_raw_fd(), 0, 2 * MMAP_MIN, mmap) else { panic!("expected an io error") };
        assert_eq!(e.raw_os_error(), Some(libc::EISDIR), "EISDIR: {e}");
    }
    // An offset past what off_t holds: the kernel's EINVAL, not a panic.
    let tmp = TempFile::new("far", b"abc");
    let file = File::open(&tmp.0).unwrap();
    for mmap in [false, true] {
        let Err(Error::Io(e)) = update_from_fd(&mut hasher, file.as_raw_fd(), u64::MAX - 5, 2 * MMAP_MIN, mmap) else {
            panic!("expected an io error")
        };
        assert_eq!(e.raw_os_error(), Some(libc::EINVAL), "EINVAL: {e}");
    }
}

#[test]
fn whole_files_by_path() {
    let pools_off_and_on = [1, 2];
    for len in [0, 1, MMAP_MIN as usize - 1, MMAP_MIN as usize, RAYON_MIN + 1, 2 * RAYON_MIN + 5] {
        let data = pattern(len);
        let tmp = TempFile::new(&format!("whole-{len}"), &data);
        for mode in 0..3 {
            let key = key_for(mode);
            let want = official(mode, &data, 131);
            for threads in pools_off_and_on {
                blake3_kit_native::set_threads(threads).unwrap();
                for mmap in [false, true] {
                    let out = hash_file(&tmp.0, mode, key.as_ref().map(|k| &k[..]), 131, mmap).unwrap();
                    assert_eq!(out, want, "len {len} mode {mode} mmap {mmap} threads {threads}");
                }
            }
        }
    }
    // Any output length, including none.
    let tmp = TempFile::new("outlen", b"abc");
    assert_eq!(hash_file(&tmp.0, 0, None, 0, true).unwrap(), Vec::<u8>::new());
    assert_eq!(hash_file(&tmp.0, 0, None, 1000, false).unwrap(), official(0, b"abc", 1000));
}

#[test]
fn path_errors_keep_the_os_error() {
    for mmap in [false, true] {
        match hash_file(std::path::Path::new("/nonexistent/blake3-kit"), 0, None, 32, mmap) {
            Err(Error::Io(e)) => assert_eq!(e.raw_os_error(), Some(libc::ENOENT), "ENOENT: {e}"),
            other => panic!("{other:?}"),
        }
        match hash_file(&std::env::temp_dir(), 0, None, 32, mmap) {
            Err(Error::Io(e)) => assert_eq!(e.raw_os_error(), Some(libc::EISDIR), "EISDIR: {e}"),
            other => panic!("{other:?}"),
        }
    }
}
