//! The Node addon: a thin napi-rs layer over `blake3-kit-native`. It turns
//! JS values into Rust ones (checking them), calls the core, and turns
//! failures into JS errors (errors.rs). Loaded by our own TypeScript loader,
//! which checks `abiVersion()` first.

mod errors;
mod hasher;
#[cfg(windows)]
mod host;
mod tasks;

use blake3_kit_native as kit;
use kit::{new_hasher, MAX_THREADS};
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::errors::{integer, invalid_arg, range_error, MAX_SAFE_INTEGER};
use crate::tasks::{signal, FileTask};

pub use hasher::NativeHasher;

/// Bumped on any change the loader must know about: it refuses other versions.
const ABI_VERSION: u32 = 8;

/// The largest output we hand back as one Uint8Array (Node 20's
/// buffer.constants.MAX_LENGTH is 2^32).
const MAX_OUT: f64 = u32::MAX as f64;

#[napi]
pub fn abi_version() -> u32 {
    ABI_VERSION
}

/// Puts the addon's SIGBUS handler back in front (chaining to whichever
/// replaced it) so that mapped hashes keep surviving truncation; the loader
/// calls it whenever a `process.on('SIGBUS')` listener comes or goes. Always
/// false off Linux, where no file is mapped and there is no handler.
#[napi(catch_unwind)]
pub fn reclaim_sigbus() -> bool {
    blake3_kit_native::reclaim_sigbus()
}

/// The CPU features that pick the official kernels, e.g. "avx512f avx512vl
/// avx2 sse4.1 sse2" or "neon".
#[napi(catch_unwind)]
pub fn cpu_features() -> String {
    kit::cpu_features()
}

/// 0 = one thread per core, 1 = single-threaded; replaces the pool.
#[napi(catch_unwind)]
pub fn set_threads(env: &Env, n: f64) -> Result<()> {
    let n = integer(env, "n", n, MAX_THREADS as f64)?;
    kit::set_threads(n as usize).map_err(|e| invalid_arg(env, e))
}

#[napi(catch_unwind)]
pub fn threads() -> u32 {
    kit::threads() as u32
}

/// The 32-byte key that derive_key mode (2) takes in place of `context`.
#[napi(catch_unwind)]
pub fn context_key(context: String) -> Uint8Array {
    Uint8Array::new(kit::context_key(&context).to_vec())
}

/// One-shot: hashes `input` and fills all of `out` from output position 0.
/// Borrows both (no copy); `out` may even overlap `input` or `key`.
#[napi(catch_unwind)]
pub fn hash_into(env: &Env, mode: f64, key: Option<Uint8ArraySlice>, input: Uint8ArraySlice, mut out: Uint8ArraySlice) -> Result<()> {
    let mode = integer(env, "mode", mode, u32::MAX as f64)? as u32;
    let key = key.as_deref();
    let input = &input[..];
    // Rust must never hold `&mut` to bytes that another live reference also
    // sees, so an out that overlaps input or key is filled via a copy.
    let overlaps = |other: Option<&[u8]>| other.is_some_and(|o| ranges_overlap(o, &out));
    if !overlaps(Some(input)) && !overlaps(key) {
        // SAFETY: checked above: no other live reference sees these bytes.
        let out = unsafe { out.as_mut() };
        return kit::hash_into(mode, key, input, out).map_err(|e| invalid_arg(env, e));
    }
    let mut tmp = Vec::new();
    if tmp.try_reserve_exact(out.len()).is_err() {
        return Err(range_error(env, format!("cannot allocate {} bytes of output", out.len())));
    }
    tmp.resize(out.len(), 0);
    kit::hash_into(mode, key, input, &mut tmp).map_err(|e| invalid_arg(env, e))?;
    // SAFETY: `input` and `key` are no longer used.
    unsafe { out.as_mut() }.copy_from_slice(&tmp);
    Ok(())
}

/// Many inputs in one call: `data` holds them back to back, each
/// `itemLength` bytes, or ending where `ends` says; each gets `outLength`
/// bytes of output, one after another in `out`. Checked before anything is
/// written: a failed call leaves `out` as it was.
#[allow(clippy::too_many_arguments)]
#[napi(catch_unwind)]
pub fn hash_many(
    env: &Env,
    mode: f64,
    key: Option<Uint8ArraySlice>,
    data: Uint8ArraySlice,
    item_length: f64,
    ends: Option<Uint32ArraySlice>,
    out_length: f64,
    mut out: Uint8ArraySlice,
) -> Result<()> {
    let mode = integer(env, "mode", mode, u32::MAX as f64)? as u32;
    let out_len = integer(env, "outLength", out_length, MAX_OUT)? as usize;
    let key = key.as_deref();
    let data = &data[..];
    let ends = ends.as_deref();
    let items = match ends {
        Some(ends) => kit::Items::ends(data, ends),
        None => {
            let len = integer(env, "itemLength", item_length, MAX_OUT)? as usize;
            let count = data.len().checked_div(len).unwrap_or(0);
            kit::Items::equal(data, len, count)
        }
    }
    .map_err(|e| invalid_arg(env, e))?;
    let overlaps = ranges_overlap(data, &out)
        || key.is_some_and(|k| ranges_overlap(k, &out))
        || ends.is_some_and(|e| ranges_overlap(bytes_of(e), &out));
    if !overlaps {
        // SAFETY: checked above: no other live reference sees these bytes.
        let out = unsafe { out.as_mut() };
        return kit::hash_many(mode, key, &items, out_len, out).map_err(|e| invalid_arg(env, e));
    }
    let mut tmp = Vec::new();
    if tmp.try_reserve_exact(out.len()).is_err() {
        return Err(range_error(env, format!("cannot allocate {} bytes of output", out.len())));
    }
    tmp.resize(out.len(), 0);
    kit::hash_many(mode, key, &items, out_len, &mut tmp).map_err(|e| invalid_arg(env, e))?;
    // SAFETY: `data`, `key` and `ends` are no longer used.
    unsafe { out.as_mut() }.copy_from_slice(&tmp);
    Ok(())
}

fn bytes_of(words: &[u32]) -> &[u8] {
    // SAFETY: the same memory, viewed as bytes (u8 has no alignment).
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast(), std::mem::size_of_val(words)) }
}

/// The non-root chaining value of `input`, which starts at byte
/// `offsetHi * 2^32 + offsetLo` of the whole input (a chunk boundary).
#[napi(catch_unwind)]
pub fn subtree_chaining_value(
    env: &Env,
    mode: f64,
    key: Option<&[u8]>,
    offset_lo: f64,
    offset_hi: f64,
    input: Uint8ArraySlice,
) -> Result<Uint8Array> {
    let mode = integer(env, "mode", mode, u32::MAX as f64)? as u32;
    let offset = integer(env, "offsetLo", offset_lo, u32::MAX as f64)? | integer(env, "offsetHi", offset_hi, u32::MAX as f64)? << 32;
    let cv = kit::subtree_chaining_value(mode, key, offset, &input).map_err(|e| invalid_arg(env, e))?;
    Ok(Uint8Array::new(cv.to_vec()))
}

/// Chaining values of the chunks of `input` numbered from chunk
/// `counterHi * 2^32 + counterLo`, 32 bytes each (never roots).
#[napi(catch_unwind)]
pub fn chunk_chaining_values(
    env: &Env,
    mode: f64,
    key: Option<&[u8]>,
    counter_lo: f64,
    counter_hi: f64,
    input: &[u8],
) -> Result<Uint8Array> {
    let mode = integer(env, "mode", mode, u32::MAX as f64)? as u32;
    let counter = integer(env, "counterLo", counter_lo, u32::MAX as f64)? | integer(env, "counterHi", counter_hi, u32::MAX as f64)? << 32;
    Ok(Uint8Array::new(kit::chunk_chaining_values(mode, key, counter, input).map_err(|e| invalid_arg(env, e))?))
}

/// A Bao tree in pre-order into all of `out` (no length header): the
/// parents over leaves of 2^`chunkLog` chunks, with the content in place
/// when `combined`. Returns the root hash (`root`), else the chaining value
/// of `content` as the subtree from chunk `first`.
#[allow(clippy::too_many_arguments)]
#[napi(catch_unwind)]
pub fn bao_encode(
    env: &Env,
    mode: f64,
    key: Option<Uint8ArraySlice>,
    content: Uint8ArraySlice,
    first: f64,
    chunk_log: f64,
    combined: bool,
    root: bool,
    mut out: Uint8ArraySlice,
) -> Result<Uint8Array> {
    let mode = integer(env, "mode", mode, u32::MAX as f64)? as u32;
    let first = integer(env, "first", first, MAX_SAFE_INTEGER)?;
    let chunk_log = integer(env, "chunkLog", chunk_log, u32::MAX as f64)? as u32;
    let key = key.as_deref();
    let content = &content[..];
    if ranges_overlap(content, &out) || key.is_some_and(|k| ranges_overlap(k, &out)) {
        return Err(range_error(env, "out must not overlap content or key".to_string()));
    }
    // SAFETY: checked above: no other live reference sees these bytes.
    let out = unsafe { out.as_mut() };
    let root = kit::bao_encode(mode, key, content, first, chunk_log, combined, root, out).map_err(|e| invalid_arg(env, e))?;
    Ok(Uint8Array::new(root.to_vec()))
}

/// Parent chaining values of 64-byte (left, right) records (never roots).
#[napi(catch_unwind)]
pub fn parent_chaining_values(env: &Env, mode: f64, key: Option<&[u8]>, records: &[u8]) -> Result<Uint8Array> {
    let mode = integer(env, "mode", mode, u32::MAX as f64)? as u32;
    Ok(Uint8Array::new(kit::parent_chaining_values(mode, key, records).map_err(|e| invalid_arg(env, e))?))
}

/// The parent of two chaining values: its chaining value (`root` false,
/// `outLength` 32), or `outLength` bytes of root output from byte
/// `positionHi * 2^32 + positionLo` on.
#[allow(clippy::too_many_arguments)]
#[napi(catch_unwind)]
pub fn merge_subtrees(
    env: &Env,
    mode: f64,
    key: Option<&[u8]>,
    left: &[u8],
    right: &[u8],
    root: bool,
    out_length: f64,
    position_lo: f64,
    position_hi: f64,
) -> Result<Uint8Array> {
    let mode = integer(env, "mode", mode, u32::MAX as f64)? as u32;
    let out_len = integer(env, "outLength", out_length, MAX_OUT)? as usize;
    let position =
        integer(env, "positionLo", position_lo, u32::MAX as f64)? | integer(env, "positionHi", position_hi, u32::MAX as f64)? << 32;
    let mut out = Vec::new();
    if out.try_reserve_exact(out_len).is_err() {
        return Err(range_error(env, format!("cannot allocate {out_len} bytes of output")));
    }
    out.resize(out_len, 0);
    kit::merge_subtrees(mode, key, left, right, root, position, &mut out).map_err(|e| invalid_arg(env, e))?;
    Ok(Uint8Array::new(out))
}

fn ranges_overlap(a: &[u8], b: &[u8]) -> bool {
    let (a, b) = (a.as_ptr_range(), b.as_ptr_range());
    !a.is_empty() && !b.is_empty() && a.start < b.end && b.start < a.end
}

/// Hashes the file at `path` as b3sum does (mapped and threaded when
/// `mmap`), off the JS thread; resolves to `outLength` bytes of output.
#[napi(catch_unwind, ts_return_type = "Promise<Uint8Array>")]
pub fn hash_file(
    env: &Env,
    path: String,
    mode: f64,
    key: Option<&[u8]>,
    out_length: f64,
    mmap: bool,
    signal: Option<Object>,
) -> Result<AsyncTask<FileTask>> {
    let mode = integer(env, "mode", mode, u32::MAX as f64)? as u32;
    let out_len = integer(env, "outLength", out_length, MAX_OUT)? as usize;
    // Argument errors throw now, before any I/O is queued.
    new_hasher(mode, key).map_err(|e| invalid_arg(env, e))?;
    let (abort, cancel) = self::signal(env, signal)?;
    let task = FileTask { path, mode, key: key.map(<[u8]>::to_vec), out_len, mmap, cancel };
    Ok(AsyncTask::with_optional_signal(task, abort))
}
