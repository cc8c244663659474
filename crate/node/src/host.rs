//! On Windows, what node.exe itself exports to addons: libuv's fd to HANDLE
//! and its names for Win32 errors. Looked up in the process's own module
//! once, so the addon works in any Node without linking to it.
//!
//! Node's fds are its own CRT's (node.exe links the CRT statically), so
//! msvcrt's `_get_osfhandle` does not know them (EBADF); libuv's
//! `uv_get_osfhandle` asks the right CRT. Error names come from libuv too,
//! as Node's own fs errors' do: `ERROR_FILE_NOT_FOUND` and
//! `ERROR_PATH_NOT_FOUND` are both ENOENT, `ERROR_INVALID_FUNCTION` (a read
//! of a directory) is EISDIR, and `errno` is libuv's negative code.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

#[link(name = "kernel32")]
extern "system" {
    fn GetModuleHandleW(name: *const u16) -> *mut c_void;
    fn GetProcAddress(module: *mut c_void, name: *const c_char) -> *mut c_void;
}

struct Exports {
    get_osfhandle: Option<unsafe extern "C" fn(c_int) -> *mut c_void>,
    translate_sys_error: Option<unsafe extern "C" fn(c_int) -> c_int>,
    err_name_r: Option<unsafe extern "C" fn(c_int, *mut c_char, usize) -> *mut c_char>,
    strerror_r: Option<unsafe extern "C" fn(c_int, *mut c_char, usize) -> *mut c_char>,
}

fn exports() -> &'static Exports {
    static EXPORTS: OnceLock<Exports> = OnceLock::new();
    EXPORTS.get_or_init(|| {
        // SAFETY: the null name asks for the process's .exe, which stays
        // loaded; each name is a NUL-terminated literal, and each export is
        // transmuted to its signature in libuv's uv.h (UV_EXTERN is cdecl,
        // which is the one x64 calling convention).
        unsafe {
            let exe = GetModuleHandleW(std::ptr::null());
            let find = |name: &CStr| if exe.is_null() { std::ptr::null_mut() } else { GetProcAddress(exe, name.as_ptr()) };
            let (osf, translate, name, text) =
                (find(c"uv_get_osfhandle"), find(c"uv_translate_sys_error"), find(c"uv_err_name_r"), find(c"uv_strerror_r"));
            Exports {
                get_osfhandle: (!osf.is_null()).then(|| std::mem::transmute::<*mut c_void, _>(osf)),
                translate_sys_error: (!translate.is_null()).then(|| std::mem::transmute::<*mut c_void, _>(translate)),
                err_name_r: (!name.is_null()).then(|| std::mem::transmute::<*mut c_void, _>(name)),
                strerror_r: (!text.is_null()).then(|| std::mem::transmute::<*mut c_void, _>(text)),
            }
        }
    })
}

/// The HANDLE behind Node's fd `fd`: INVALID_HANDLE_VALUE for a closed one
/// (the core then fails with EBADF), or an error if this Node does not
/// export `uv_get_osfhandle`.
pub fn os_handle(fd: i32) -> std::io::Result<*mut c_void> {
    let Some(get) = exports().get_osfhandle else {
        return Err(std::io::Error::other("this Node does not export uv_get_osfhandle, so its fds cannot be read"));
    };
    // SAFETY: libuv's uv_get_osfhandle takes any int and returns
    // INVALID_HANDLE_VALUE for one that is not an open fd.
    Ok(unsafe { get(fd) })
}

/// Node's view of the Win32 error `code`: libuv's code (negative), its name
/// and its message, as Node's fs errors carry them; `None` if this Node does
/// not export libuv's error functions.
pub fn describe(code: i32) -> Option<(i32, String, String)> {
    let e = exports();
    let (translate, name_r, text_r) = (e.translate_sys_error?, e.err_name_r?, e.strerror_r?);
    let mut name = [0 as c_char; 64];
    let mut text = [0 as c_char; 256];
    // SAFETY: libuv's documented signatures; the _r variants write at most
    // `len` bytes, NUL included, into our buffers.
    unsafe {
        let uv = translate(code);
        name_r(uv, name.as_mut_ptr(), name.len());
        text_r(uv, text.as_mut_ptr(), text.len());
        let read = |buf: &[c_char]| CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned();
        Some((uv, read(&name), read(&text)))
    }
}
