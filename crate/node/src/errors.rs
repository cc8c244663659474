//! How failures become JS errors: bad arguments as TypeError/RangeError with
//! Node's codes, OS errors with the errno name as `code` (like `fs`), aborts
//! as AbortError, a file that shrank while mapped with ERR_FILE_TRUNCATED
//! (src/node/file.ts makes it a FileTruncatedError). Each is built as a JS
//! object and handed back to napi-rs, which throws or rejects with that same
//! object.

use std::io;

use blake3_kit_native::{ArgKind, InvalidArg};
use napi::bindgen_prelude::*;

/// JS `Number.MAX_SAFE_INTEGER`: the largest byte offset or count we accept.
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

pub fn range_error(env: &Env, message: String) -> Error {
    Error::from(JsRangeError::from(Error::new("ERR_OUT_OF_RANGE", message)).into_unknown(*env))
}

pub fn type_error(env: &Env, message: String) -> Error {
    Error::from(JsTypeError::from(Error::new("ERR_INVALID_ARG_TYPE", message)).into_unknown(*env))
}

pub fn invalid_arg(env: &Env, e: InvalidArg) -> Error {
    match e.kind {
        ArgKind::Type => type_error(env, e.message),
        ArgKind::Range => range_error(env, e.message),
    }
}

/// A plain Error with `code` = errno name and a message naming the operation
/// and path, as Node's fs does: "ENOENT: no such file or directory, hashFile '/x'".
pub fn io_error(env: &Env, e: &io::Error, op: &str, path: Option<&str>) -> Error {
    let (code, errno, text) = describe(e);
    let message = match path {
        Some(p) => format!("{code}: {text}, {op} '{p}'"),
        None => format!("{code}: {text}, {op}"),
    };
    let value = JsError::from(Error::new(code, message)).into_unknown(*env);
    if let (Ok(mut obj), Some(errno)) = (value.coerce_to_object(), errno) {
        // Node's fs errors carry these too; best effort.
        let _ = obj.set_named_property("errno", errno);
        let _ = obj.set_named_property("syscall", op);
        if let Some(p) = path {
            let _ = obj.set_named_property("path", p);
        }
    }
    Error::from(value)
}

/// `e` as Node's fs names it: the code ("ENOENT"), `errno` (libuv's
/// negative number) and the message's text.
#[cfg(not(windows))]
fn describe(e: &io::Error) -> (String, Option<i32>, String) {
    let code = e.raw_os_error().map_or("UNKNOWN", errno_name);
    (code.to_owned(), e.raw_os_error().map(|errno| -errno), std_text(e))
}

/// On Windows `raw_os_error` is a Win32 error (GetLastError), which
/// node.exe's own libuv names (host.rs), as it does for Node's fs.
#[cfg(windows)]
fn describe(e: &io::Error) -> (String, Option<i32>, String) {
    match e.raw_os_error().and_then(crate::host::describe) {
        Some((errno, code, text)) => (code, Some(errno), text),
        None => ("UNKNOWN".to_owned(), None, std_text(e)),
    }
}

/// std's text for `e` as Node writes it: lower case, without std's " (os error N)".
fn std_text(e: &io::Error) -> String {
    let mut text = e.to_string();
    if let Some(cut) = text.find(" (os error") {
        text.truncate(cut);
    }
    text.to_lowercase()
}

/// A mapped file shrank while it was hashed (core `Error::Truncated`):
/// `code` ERR_FILE_TRUNCATED, as src/node/file.ts's FileTruncatedError, which
/// it becomes there once the current size is known.
pub fn truncated_error(env: &Env, op: &str, path: Option<&str>) -> Error {
    let message = match path {
        Some(p) => format!("{p} was truncated while it was mapped, {op}"),
        None => format!("the file was truncated while it was mapped, {op}"),
    };
    let value = JsError::from(Error::new("ERR_FILE_TRUNCATED", message)).into_unknown(*env);
    if let (Ok(mut obj), Some(p)) = (value.coerce_to_object(), path) {
        let _ = obj.set_named_property("path", p);
    }
    Error::from(value)
}

/// `name` "AbortError", `code` "ABORT_ERR", as Node's own aborts. (napi-rs's
/// cancel of a task that had not started yet rejects with its own
/// AbortError, whose code is "Cancelled": check `name`.)
pub fn abort_error(env: &Env) -> Error {
    let value = JsError::from(Error::new("ABORT_ERR", "The operation was aborted")).into_unknown(*env);
    if let Ok(mut obj) = value.coerce_to_object() {
        let _ = obj.set_named_property("name", "AbortError");
    }
    Error::from(value)
}

/// A Rust panic, caught: a bug of ours, reported rather than crashing Node.
pub fn internal_error(what: &str) -> Error {
    Error::new(Status::GenericFailure, format!("blake3-kit native addon: internal error: {what}"))
}

/// `value` as an integer in [0, max], or a RangeError naming `name`.
pub fn integer(env: &Env, name: &str, value: f64, max: f64) -> Result<u64> {
    if value.fract() == 0.0 && (0.0..=max).contains(&value) {
        return Ok(value as u64);
    }
    Err(range_error(env, format!("{name} must be an integer from 0 to {max}, got {value}")))
}

#[cfg(not(windows))]
fn errno_name(errno: i32) -> &'static str {
    match errno {
        libc::ENOENT => "ENOENT",
        libc::EACCES => "EACCES",
        libc::EPERM => "EPERM",
        libc::EISDIR => "EISDIR",
        libc::ENOTDIR => "ENOTDIR",
        libc::EBADF => "EBADF",
        libc::EINVAL => "EINVAL",
        libc::EIO => "EIO",
        libc::ELOOP => "ELOOP",
        libc::ENAMETOOLONG => "ENAMETOOLONG",
        libc::EMFILE => "EMFILE",
        libc::ENFILE => "ENFILE",
        libc::ENOMEM => "ENOMEM",
        libc::ESPIPE => "ESPIPE",
        libc::ENXIO => "ENXIO",
        libc::ENODEV => "ENODEV",
        libc::EOVERFLOW => "EOVERFLOW",
        libc::EFBIG => "EFBIG",
        libc::EAGAIN => "EAGAIN",
        libc::EINTR => "EINTR",
        libc::EBUSY => "EBUSY",
        libc::ETXTBSY => "ETXTBSY",
        libc::EFAULT => "EFAULT",
        libc::EROFS => "EROFS",
        // As Node names an errno libuv doesn't know.
        _ => "UNKNOWN",
    }
}
