//! blake3-kit's wasm core: a fixed-memory, integer-only ABI over the official
//! `blake3` crate.
//!
//! JS copies input into the staging buffer (`staging_ptr`, `staging_len`),
//! calls an export with lengths and slot indices, and copies output back out of
//! the same buffer. Keys and derive-key context keys go through the 32-byte
//! key area (`key_ptr`). Nothing is allocated per call; hasher slots are
//! recycled (see `slots.rs`).
//!
//! Every export returns a non-negative value on success or one of the `E_*`
//! codes. No argument JS can pass makes this code panic or trap: every
//! precondition of the crate's `hazmat` API is checked here first.

use blake3::hazmat::{self, HasherExt, Mode};
use blake3::Hasher;
use core::cell::UnsafeCell;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen::prelude::wasm_bindgen;

pub mod memory;
pub mod slots;
#[cfg(test)]
mod tests;

use memory::{key, staged, STAGING, STAGING_LEN};
use slots::{Live, SlotError, Slots};

/// Bumped whenever an export changes meaning; the TS loader checks it.
pub const ABI_VERSION: u32 = 1;

pub const MODE_HASH: u32 = 0;
pub const MODE_KEYED: u32 = 1;
pub const MODE_DERIVE_KEY: u32 = 2;

pub const OK: i32 = 0;
/// The slot index names no live hasher.
pub const E_SLOT: i32 = -1;
/// A length exceeds the staging buffer.
pub const E_LENGTH: i32 = -2;
/// The mode is not one of `MODE_*`.
pub const E_MODE: i32 = -3;
/// A new slot page could not be allocated.
pub const E_NO_MEMORY: i32 = -4;
/// A derive_key context is not valid UTF-8.
pub const E_UTF8: i32 = -5;
/// The operation does not fit the hasher's state: an input offset on a hasher
/// that has input, a root finalize of a subtree hasher, a chaining value of an
/// empty hasher, or more input than the subtree at that offset can hold.
pub const E_STATE: i32 = -6;
/// An input offset that is not a multiple of the 1024-byte chunk length.
pub const E_ALIGN: i32 = -7;
/// Reading `len` bytes at `position` would pass the 2^64-byte output limit.
pub const E_POSITION: i32 = -8;

struct Global<T>(UnsafeCell<T>);
// SAFETY: wasm here is single-threaded; native tests hold a mutex.
unsafe impl<T> Sync for Global<T> {}

static SLOTS: Global<Slots> = Global(UnsafeCell::new(Slots::new()));

fn slots() -> &'static mut Slots {
    // SAFETY: each export takes this reference once and drops it on return.
    unsafe { &mut *SLOTS.0.get() }
}

fn slot_error(error: SlotError) -> i32 {
    match error {
        SlotError::NoSuchSlot => E_SLOT,
        SlotError::OutOfMemory => E_NO_MEMORY,
    }
}

fn u64_from(lo: u32, hi: u32) -> u64 {
    (u64::from(hi) << 32) | u64::from(lo)
}

fn new_hasher(mode: u32, key: &[u8; 32]) -> Option<Hasher> {
    match mode {
        MODE_HASH => Some(Hasher::new()),
        MODE_KEYED => Some(Hasher::new_keyed(key)),
        MODE_DERIVE_KEY => Some(Hasher::new_from_context_key(key)),
        _ => None,
    }
}

/// Writes `out_len` bytes of the root output at `position` to the staging
/// buffer. BLAKE3 output ends after 2^64 - 1 bytes, so `position + out_len`
/// may be at most `u64::MAX`.
fn fill_output(mut reader: blake3::OutputReader, out_len: u32, position: u64) -> i32 {
    if position.checked_add(u64::from(out_len)).is_none() {
        return E_POSITION;
    }
    let Some(out) = staged(out_len) else { return E_LENGTH };
    reader.set_position(position);
    reader.fill(out);
    OK
}

macro_rules! exports {
    ($($(#[$meta:meta])* pub fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty $body:block)*) => {
        $(
            $(#[$meta])*
            #[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
            pub fn $name($($arg: $ty),*) -> $ret $body
        )*
    };
}

exports! {
    pub fn abi_version() -> u32 { ABI_VERSION }

    /// 1 in the simd128 flavour, so a user-supplied module reports truly.
    pub fn is_simd() -> u32 { cfg!(feature = "simd") as u32 }

    /// Address of the staging buffer in linear memory.
    pub fn staging_ptr() -> u32 { STAGING.ptr() as usize as u32 }

    pub fn staging_len() -> u32 { STAGING_LEN as u32 }

    /// Address of the 32-byte key area: the key for `MODE_KEYED`, the context
    /// key (see `derive_context_key`) for `MODE_DERIVE_KEY`.
    pub fn key_ptr() -> u32 { memory::KEY.ptr() as usize as u32 }

    /// Live hashers, for leak tests.
    pub fn slots_in_use() -> u32 { slots().in_use() }

    /// Hashes the context string staged in its first `context_len` bytes into
    /// a context key, and stores it in the key area.
    pub fn derive_context_key(context_len: u32) -> i32 {
        let Some(context) = staged(context_len) else { return E_LENGTH };
        let Ok(context) = core::str::from_utf8(context) else { return E_UTF8 };
        let context_key = hazmat::hash_derive_key_context(context);
        memory::set_key(&context_key);
        OK
    }

    /// One-shot: hashes the first `input_len` staged bytes and writes `out_len`
    /// output bytes over the start of the staging buffer.
    pub fn hash_oneshot(mode: u32, input_len: u32, out_len: u32) -> i32 {
        let Some(mut hasher) = new_hasher(mode, &key()) else { return E_MODE };
        let Some(input) = staged(input_len) else { return E_LENGTH };
        if out_len as usize > STAGING_LEN { return E_LENGTH }
        hasher.update(input);
        fill_output(hasher.finalize_xof(), out_len, 0)
    }

    /// A new hasher in `mode`; returns its slot index.
    pub fn hasher_new(mode: u32) -> i32 {
        let key = key();
        let Some(hasher) = new_hasher(mode, &key) else { return E_MODE };
        match slots().insert(Live { hasher, mode, key, subtree_max: None }) {
            Ok(index) => index as i32,
            Err(error) => slot_error(error),
        }
    }

    pub fn hasher_update(slot: u32, input_len: u32) -> i32 {
        let live = match slots().get(slot) { Ok(live) => live, Err(e) => return slot_error(e) };
        let Some(input) = staged(input_len) else { return E_LENGTH };
        if let Some(max) = live.subtree_max {
            if live.hasher.count().saturating_add(u64::from(input_len)) > max { return E_STATE }
        }
        live.hasher.update(input);
        OK
    }

    /// Writes `out_len` bytes of root output, starting at output byte
    /// `position` (split into two u32 halves), to the staging buffer. The
    /// hasher is unchanged and can take more input.
    pub fn hasher_finalize(slot: u32, out_len: u32, position_lo: u32, position_hi: u32) -> i32 {
        let live = match slots().get(slot) { Ok(live) => live, Err(e) => return slot_error(e) };
        if live.subtree_max.is_some() { return E_STATE }
        fill_output(live.hasher.finalize_xof(), out_len, u64_from(position_lo, position_hi))
    }

    /// Back to the state just after `hasher_new`, keeping key and mode.
    pub fn hasher_reset(slot: u32) -> i32 {
        let live = match slots().get(slot) { Ok(live) => live, Err(e) => return slot_error(e) };
        // Rebuilt rather than Hasher::reset, which keeps a subtree hasher's
        // input offset and then miscounts its input.
        let Some(hasher) = new_hasher(live.mode, &live.key) else { return E_MODE };
        live.hasher = hasher;
        live.subtree_max = None;
        OK
    }

    /// A copy of the hasher in a new slot; returns its index.
    pub fn hasher_clone(slot: u32) -> i32 {
        let slots = slots();
        let copy = match slots.get(slot) {
            Ok(live) => Live { hasher: live.hasher.clone(), ..*live },
            Err(e) => return slot_error(e),
        };
        match slots.insert(copy) {
            Ok(index) => index as i32,
            Err(error) => slot_error(error),
        }
    }

    pub fn hasher_free(slot: u32) -> i32 {
        match slots().remove(slot) { Ok(()) => OK, Err(e) => slot_error(e) }
    }

    /// Makes a fresh hasher hash the subtree that starts at input byte
    /// `offset` (a multiple of 1024). It can then only be finalized with
    /// `hasher_finalize_non_root`.
    pub fn hasher_set_input_offset(slot: u32, offset_lo: u32, offset_hi: u32) -> i32 {
        let live = match slots().get(slot) { Ok(live) => live, Err(e) => return slot_error(e) };
        let offset = u64_from(offset_lo, offset_hi);
        if offset % blake3::CHUNK_LEN as u64 != 0 { return E_ALIGN }
        if live.hasher.count() != 0 || live.subtree_max.is_some() { return E_STATE }
        live.hasher.set_input_offset(offset);
        // Offset zero has no bound; the left edge of the tree grows freely.
        live.subtree_max = Some(hazmat::max_subtree_len(offset).unwrap_or(u64::MAX));
        OK
    }

    /// Writes the 32-byte chaining value of the hasher's (non-root) subtree to
    /// the staging buffer.
    pub fn hasher_finalize_non_root(slot: u32) -> i32 {
        let live = match slots().get(slot) { Ok(live) => live, Err(e) => return slot_error(e) };
        if live.hasher.count() == 0 { return E_STATE }
        let cv = live.hasher.finalize_non_root();
        let Some(out) = staged(32) else { return E_LENGTH };
        out.copy_from_slice(&cv);
        OK
    }

    /// Merges the two chaining values staged at bytes 0..32 and 32..64 into
    /// their parent's chaining value, written to bytes 0..32.
    pub fn merge_non_root(mode: u32) -> i32 {
        let (left, right) = staged_pair();
        let context_key = key();
        let merged = match mode {
            MODE_HASH => hazmat::merge_subtrees_non_root(&left, &right, Mode::Hash),
            MODE_KEYED => hazmat::merge_subtrees_non_root(&left, &right, Mode::KeyedHash(&context_key)),
            MODE_DERIVE_KEY => hazmat::merge_subtrees_non_root(&left, &right, Mode::DeriveKeyMaterial(&context_key)),
            _ => return E_MODE,
        };
        let Some(out) = staged(32) else { return E_LENGTH };
        out.copy_from_slice(&merged);
        OK
    }

    /// Merges the two staged chaining values as the root of the whole tree and
    /// writes `out_len` bytes of output at `position` to the staging buffer.
    pub fn merge_root(mode: u32, out_len: u32, position_lo: u32, position_hi: u32) -> i32 {
        let (left, right) = staged_pair();
        let context_key = key();
        let reader = match mode {
            MODE_HASH => hazmat::merge_subtrees_root_xof(&left, &right, Mode::Hash),
            MODE_KEYED => hazmat::merge_subtrees_root_xof(&left, &right, Mode::KeyedHash(&context_key)),
            MODE_DERIVE_KEY => hazmat::merge_subtrees_root_xof(&left, &right, Mode::DeriveKeyMaterial(&context_key)),
            _ => return E_MODE,
        };
        fill_output(reader, out_len, u64_from(position_lo, position_hi))
    }
}

fn staged_pair() -> ([u8; 32], [u8; 32]) {
    // SAFETY: copied out; no reference survives.
    let staging = unsafe { STAGING.bytes() };
    let mut left = [0; 32];
    let mut right = [0; 32];
    left.copy_from_slice(&staging[..32]);
    right.copy_from_slice(&staging[32..64]);
    (left, right)
}
