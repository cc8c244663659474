//! Windows: positioned reads that leave a borrowed handle's position where
//! it was, and which handles have positions at all.

use std::ffi::c_void;
use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::os::windows::io::AsRawHandle;

/// What a value that is no open handle gives (libuv names it EBADF).
pub const ERROR_INVALID_HANDLE: i32 = 6;

/// Lets CreateFileW open a directory, as libuv's open does: hashing one then
/// fails at the read with ERROR_INVALID_FUNCTION, which Node names EISDIR,
/// instead of at the open with access denied (EPERM).
pub const FILE_FLAG_BACKUP_SEMANTICS: u32 = 0x0200_0000;

const FILE_TYPE_DISK: u32 = 1;

#[link(name = "kernel32")]
extern "system" {
    fn GetFileType(file: *mut c_void) -> u32;
}

/// Whether reads of `file` can be positioned: disk files (and directories)
/// can; on pipes, consoles and NUL ReadFile ignores the offset.
pub fn has_positions(file: &File) -> bool {
    // SAFETY: a handle the caller keeps open; GetFileType only reads it.
    unsafe { GetFileType(file.as_raw_handle()) == FILE_TYPE_DISK }
}

/// The handle's position, put back on drop. ReadFile at an offset moves a
/// synchronous handle's position (pread never moves an fd's), and the
/// caller's handle is only borrowed; libuv's positioned reads put it back
/// the same way.
pub struct KeepPosition<'a> {
    file: &'a File,
    at: Option<u64>,
}

impl<'a> KeepPosition<'a> {
    pub fn new(mut file: &'a File) -> Self {
        let at = file.stream_position().ok();
        KeepPosition { file, at }
    }
}

impl Drop for KeepPosition<'_> {
    fn drop(&mut self) {
        if let Some(at) = self.at {
            let _ = (&mut self.file).seek(SeekFrom::Start(at));
        }
    }
}
