//! blake3-kit's wasm core: a fixed-memory, integer-only ABI over our own
//! BLAKE3 tree (`tree.rs`) and kernels (`kernel/`). The official `blake3`
//! crate is the oracle in `cargo test` (see `tests.rs`).
//!
//! JS copies input into the staging buffer (`staging_ptr`, `staging_len`),
//! calls an export with lengths and slot indices, and copies output back out of
//! the same buffer. Keys and derive-key context keys go through the 32-byte
//! key area (`key_ptr`). Nothing is allocated per call; hasher slots are
//! recycled (see `slots.rs`). Only `hasher_new`, `hasher_clone`,
//! `hasher_update`, `hasher_restore` and `hasher_import_state` can grow
//! memory, which detaches JS's views of it. A hasher's state can also leave wasm memory and come back
//! (`hasher_save`, `hasher_restore`): JS keeps the state of hashers past a
//! fixed number in its own memory, since linear memory never shrinks.
//!
//! Every export returns a non-negative value on success or one of the `E_*`
//! codes. No argument JS can pass makes this code panic or trap: every
//! precondition (the official crate's `hazmat` rules) is checked here first.
//!
//! The wasm build is `no_std` with no allocator (hasher slots grow linear
//! memory directly, see `slots.rs`) and a panic handler that only traps, so no
//! formatting code is linked: panics are unreachable in practice.

#![cfg_attr(target_arch = "wasm32", no_std)]

use core::cell::UnsafeCell;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen::prelude::wasm_bindgen;

#[cfg(test)]
mod domain_tests;
pub mod kernel;
pub mod many;
pub mod memory;
pub mod slots;
pub mod state;
#[cfg(test)]
mod state_tests;
#[cfg(test)]
mod tests;
pub mod tree;

use kernel::{Kernel, Words, BLOCK_LEN, CHUNK_LEN, DERIVE_KEY_CONTEXT, DERIVE_KEY_MATERIAL, IV, KEYED_HASH};
use memory::{staged, STAGING, STAGING_LEN};
use slots::{Live, SlotError, Slots};
use tree::{Hasher, Output};

#[cfg(target_arch = "wasm32")]
mod wasm_runtime {
    /// Nothing here allocates; wasm-bindgen's runtime links `alloc` but
    /// these integer-only exports never call it. A request fails cleanly.
    struct NoAllocator;

    // SAFETY: returning null is how an allocator reports failure.
    unsafe impl core::alloc::GlobalAlloc for NoAllocator {
        unsafe fn alloc(&self, _: core::alloc::Layout) -> *mut u8 {
            core::ptr::null_mut()
        }
        unsafe fn dealloc(&self, _: *mut u8, _: core::alloc::Layout) {}
    }

    #[global_allocator]
    static ALLOCATOR: NoAllocator = NoAllocator;

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        core::arch::wasm32::unreachable()
    }
}

/// Bumped whenever an export changes meaning; the TS loader checks it.
pub const ABI_VERSION: u32 = 12;

pub const MODE_HASH: u32 = 0;
pub const MODE_KEYED: u32 = 1;
pub const MODE_DERIVE_KEY: u32 = 2;

pub const OK: i32 = 0;
/// Success, and linear memory grew: JS must rebuild its views of it.
pub const OK_MEMORY_GREW: i32 = 1;
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
/// empty hasher, more input than the subtree at that offset can hold, or
/// bytes to restore that are not a saved hasher.
pub const E_STATE: i32 = -6;
/// An input offset that is not a multiple of the 1024-byte chunk length.
pub const E_ALIGN: i32 = -7;
/// A chunk counter past 2^64 bytes of input, or an output block offset of
/// 64 or more.
pub const E_POSITION: i32 = -8;
/// The input would pass 2^64 - 1 bytes, BLAKE3's limit (`hasher_room` says
/// how much is left), or a hasher with no room left is to be saved.
pub const E_INPUT_LIMIT: i32 = -9;
/// Staged bytes are not a saved state's body: `E_BODY - reason`, where
/// reason is a `state::BodyError` (0 ..= 9).
pub const E_BODY: i32 = -16;

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
        SlotError::Invalid => E_STATE,
    }
}

/// A new slot's index, or the error code.
fn insert(result: Result<u32, SlotError>) -> i32 {
    match result {
        Ok(index) => index as i32,
        Err(error) => slot_error(error),
    }
}

/// Writes the hasher an export loaded and changed back to its slot.
fn store(slots: &mut Slots, slot: u32) -> i32 {
    match slots.store(slot) {
        Ok(()) => OK,
        Err(error) => slot_error(error),
    }
}

fn u64_from(lo: u32, hi: u32) -> u64 {
    (u64::from(hi) << 32) | u64::from(lo)
}

/// The key words and flags of `mode`, or `None` for an unknown mode. Keyed
/// and derive-key modes take their key from the key area.
fn mode_key(mode: u32) -> Option<(Words, u32)> {
    match mode {
        MODE_HASH => Some((IV, 0)),
        MODE_KEYED => Some((kernel::words_from_key(&memory::key()), KEYED_HASH)),
        MODE_DERIVE_KEY => Some((kernel::words_from_key(&memory::key()), DERIVE_KEY_MATERIAL)),
        _ => None,
    }
}

/// Writes `out_len` bytes of the root output at `position` to the staging
/// buffer; a read that runs past 2^64 - 1 bytes goes on as the official
/// OutputReader's does (its block counter does).
fn fill_output(output: &Output, out_len: u32, position: u64) -> i32 {
    let Some(out) = staged(out_len) else { return E_LENGTH };
    output.root_fill(Kernel::detect(), position, out);
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

    /// Single blocks on `u32` words (1) or row-wise v128 (0): JS times both at
    /// start-up and keeps the faster (see `kernel::set_word_blocks`). The
    /// scalar build has only words: E_MODE for 0. Returns the setting.
    pub fn set_word_blocks(words: u32) -> i32 {
        if words > 1 || !kernel::set_word_blocks(words == 1) { return E_MODE }
        words as i32
    }

    /// The single-block setting in force: 1 words, 0 row-wise.
    pub fn word_blocks() -> u32 { Kernel::detect().word_blocks() as u32 }

    /// Four chunks, parents or output blocks at once in v128 lanes (1) or
    /// one at a time on the single-block code (0): JS times both at
    /// start-up (see `kernel::CODE`). The scalar build has no lanes: E_MODE
    /// for 1. Returns the setting.
    pub fn set_lanes(lanes: u32) -> i32 {
        if lanes > 1 || !kernel::set_lanes(lanes == 1) { return E_MODE }
        lanes as i32
    }

    /// The lanes setting in force: 1 four at once, 0 one at a time.
    pub fn lanes() -> u32 { Kernel::detect().lanes() as u32 }

    /// The lanes re-read each message vector from memory at every use (1)
    /// or keep all sixteen live (0): JS sets it by engine (see
    /// `kernel::wasm_simd`). The scalar build has no lanes: E_MODE for 1.
    /// Returns the setting.
    pub fn set_reload_message(reload: u32) -> i32 {
        if reload > 1 || !kernel::set_reload_message(reload == 1) { return E_MODE }
        reload as i32
    }

    /// The message setting in force: 1 re-read, 0 kept live.
    pub fn reload_message() -> u32 { kernel::reload_message() as u32 }

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
        if core::str::from_utf8(context).is_err() { return E_UTF8 }
        let output = tree::hash_all(Kernel::detect(), context, &IV, DERIVE_KEY_CONTEXT);
        let mut context_key = [0; 32];
        output.root_fill(Kernel::detect(), 0, &mut context_key);
        memory::set_key(&context_key);
        OK
    }

    /// One-shot: hashes the first `input_len` staged bytes and writes `out_len`
    /// output bytes over the start of the staging buffer. Up to a chunk this is
    /// a single chunk state, up to the staging buffer a single batch of chunks:
    /// no `Hasher` is set up (see `tree::hash_all`).
    pub fn hash_oneshot(mode: u32, input_len: u32, out_len: u32) -> i32 {
        let Some((key, flags)) = mode_key(mode) else { return E_MODE };
        let Some(input) = staged(input_len) else { return E_LENGTH };
        if out_len as usize > STAGING_LEN { return E_LENGTH }
        let output = tree::hash_all(Kernel::detect(), input, &key, flags);
        fill_output(&output, out_len, 0)
    }

    /// A new hasher in `mode`; returns its slot index. May grow memory.
    pub fn hasher_new(mode: u32) -> i32 {
        let Some((key, flags)) = mode_key(mode) else { return E_MODE };
        insert(slots().insert(Live { hasher: Hasher::new(&key, flags), subtree_max: None }))
    }

    /// `OK`, or `OK_MEMORY_GREW` when the hasher's stack outgrew its slot's
    /// head (past `slots::INLINE_ENTRIES` entries: from 2 MiB of input on)
    /// and taking a tail grew memory.
    pub fn hasher_update(slot: u32, input_len: u32) -> i32 {
        let slots = slots();
        let grows = slots.grows();
        let live = match slots.load(slot) { Ok(live) => live, Err(e) => return slot_error(e) };
        let Some(input) = staged(input_len) else { return E_LENGTH };
        if let Some(max) = live.subtree_max {
            if live.hasher.count().saturating_add(u64::from(input_len)) > max { return E_STATE }
        }
        if u64::from(input_len) > live.hasher.room() { return E_INPUT_LIMIT }
        live.hasher.update(Kernel::detect(), input);
        match store(slots, slot) {
            OK if slots.grows() != grows => OK_MEMORY_GREW,
            code => code,
        }
    }

    /// Writes the input bytes the hasher in `slot` can still take (see
    /// `E_INPUT_LIMIT`) to staging bytes 0..8, a u64 little-endian.
    pub fn hasher_room(slot: u32) -> i32 {
        let room = match slots().load(slot) { Ok(live) => live.hasher.room(), Err(e) => return slot_error(e) };
        let Some(out) = staged(8) else { return E_LENGTH };
        out.copy_from_slice(&room.to_le_bytes());
        OK
    }

    /// Writes `out_len` bytes of root output, starting at byte `skip`
    /// (below 64) of output block `counter` (split into two u32 halves), to
    /// the staging buffer: past 2^64 - 1 bytes the counter goes on, as the
    /// official OutputReader's does. The hasher is unchanged and can take
    /// more input.
    pub fn hasher_finalize(slot: u32, out_len: u32, counter_lo: u32, counter_hi: u32, skip: u32) -> i32 {
        let live = match slots().load(slot) { Ok(live) => live, Err(e) => return slot_error(e) };
        if live.subtree_max.is_some() { return E_STATE }
        if skip >= BLOCK_LEN as u32 { return E_POSITION }
        let output = live.hasher.final_output(Kernel::detect());
        let Some(out) = staged(out_len) else { return E_LENGTH };
        output.root_fill_blocks(Kernel::detect(), u64_from(counter_lo, counter_hi), skip as usize, out);
        OK
    }

    /// Back to the state just after `hasher_new`, keeping key and mode (and
    /// dropping any input offset: it is an ordinary hasher again).
    pub fn hasher_reset(slot: u32) -> i32 {
        let slots = slots();
        let live = match slots.load(slot) { Ok(live) => live, Err(e) => return slot_error(e) };
        *live = Live { hasher: Hasher::new(&{ *live.hasher.key() }, live.hasher.flags()), subtree_max: None };
        store(slots, slot)
    }

    /// A copy of the hasher in a new slot; returns its index. May grow memory.
    pub fn hasher_clone(slot: u32) -> i32 {
        insert(slots().duplicate(slot))
    }

    /// Writes the hasher in `slot` over the start of the staging buffer, as
    /// bytes `hasher_restore` takes back (at most `slots::SAVED_MAX`: 8 +
    /// 1920); returns their count. The slot is unchanged.
    pub fn hasher_save(slot: u32) -> i32 {
        let Some(out) = staged(slots::SAVED_MAX as u32) else { return E_LENGTH };
        match slots().save(slot, out) { Ok(len) => len as i32, Err(e) => slot_error(e) }
    }

    /// Replaces the hasher in `slot` with the one `hasher_save` wrote, staged
    /// in the first `len` bytes. `E_STATE` for bytes that are not one, and
    /// the slot is unchanged; `OK_MEMORY_GREW` as for `hasher_update`.
    pub fn hasher_restore(slot: u32, len: u32) -> i32 {
        let Some(saved) = staged(len) else { return E_LENGTH };
        let slots = slots();
        let grows = slots.grows();
        match slots.restore(slot, saved) {
            Ok(()) if slots.grows() != grows => OK_MEMORY_GREW,
            Ok(()) => OK,
            Err(e) => slot_error(e),
        }
    }

    /// Writes the hasher in `slot` over the start of the staging buffer as
    /// the BODY of a saved state (see `state.rs`; at most `state::MAX_LEN`
    /// bytes); returns its length. The slot is unchanged. `E_STATE` for a
    /// subtree hasher, which has no saved form; `E_INPUT_LIMIT` for one with
    /// no room left.
    pub fn hasher_export_state(slot: u32) -> i32 {
        let live = match slots().load(slot) { Ok(live) => live, Err(e) => return slot_error(e) };
        let Some(out) = staged(state::MAX_LEN as u32) else { return E_LENGTH };
        match state::export(live, Kernel::detect(), out) {
            Ok(len) => len as i32,
            Err(state::ExportError::Full) => E_INPUT_LIMIT,
            Err(_) => E_STATE,
        }
    }

    /// A new hasher in `mode` (its key in the key area) from the BODY staged
    /// in the first `len` bytes; returns its slot index, or `E_BODY - reason`
    /// with no slot taken. May grow memory.
    pub fn hasher_import_state(mode: u32, len: u32) -> i32 {
        let Some((key, flags)) = mode_key(mode) else { return E_MODE };
        let Some(body) = staged(len) else { return E_LENGTH };
        match state::import(body, &key, flags) {
            Ok(hasher) => insert(slots().insert(Live { hasher, subtree_max: None })),
            Err(reason) => E_BODY - reason as i32,
        }
    }

    pub fn hasher_free(slot: u32) -> i32 {
        match slots().remove(slot) { Ok(()) => OK, Err(e) => slot_error(e) }
    }

    /// Makes a fresh hasher hash the subtree that starts at input byte
    /// `offset` (a multiple of 1024). It can then only be finalized with
    /// `hasher_finalize_non_root`.
    pub fn hasher_set_input_offset(slot: u32, offset_lo: u32, offset_hi: u32) -> i32 {
        let slots = slots();
        let live = match slots.load(slot) { Ok(live) => live, Err(e) => return slot_error(e) };
        let offset = u64_from(offset_lo, offset_hi);
        if !offset.is_multiple_of(CHUNK_LEN as u64) { return E_ALIGN }
        if live.hasher.count() != 0 || live.subtree_max.is_some() { return E_STATE }
        live.hasher.set_input_offset(offset);
        // The subtree at a non-zero offset holds at most as many chunks as the
        // largest power of two dividing its chunk index (hazmat's
        // max_subtree_len). Offset zero has no bound: the left edge of the
        // tree grows freely.
        let chunk_index = offset / CHUNK_LEN as u64;
        live.subtree_max = Some(match chunk_index {
            0 => u64::MAX,
            index => (1u64 << index.trailing_zeros()) * CHUNK_LEN as u64,
        });
        store(slots, slot)
    }

    /// Writes the 32-byte chaining value of the hasher's (non-root) subtree to
    /// the staging buffer.
    pub fn hasher_finalize_non_root(slot: u32) -> i32 {
        let live = match slots().load(slot) { Ok(live) => live, Err(e) => return slot_error(e) };
        if live.hasher.count() == 0 { return E_STATE }
        let cv = live.hasher.final_output(Kernel::detect()).chaining_value(Kernel::detect());
        let Some(out) = staged(32) else { return E_LENGTH };
        out.copy_from_slice(&kernel::bytes_from_words(&cv));
        OK
    }

    /// Merges the two chaining values staged at bytes 0..32 and 32..64 into
    /// their parent's chaining value, written to bytes 0..32.
    pub fn merge_non_root(mode: u32) -> i32 {
        let Some((key, flags)) = mode_key(mode) else { return E_MODE };
        let (left, right) = staged_pair();
        let merged = tree::parent_output(&left, &right, &key, flags).chaining_value(Kernel::detect());
        let Some(out) = staged(32) else { return E_LENGTH };
        out.copy_from_slice(&kernel::bytes_from_words(&merged));
        OK
    }

    /// Chaining values (never roots) of the chunks in the first `input_len`
    /// staged bytes, numbered from chunk `counter_hi * 2^32 + counter_lo`:
    /// whole chunks, the last possibly short but not empty. Written as
    /// 32-byte values over the start of the staging buffer; returns how many.
    /// Chunks past the 2^64-byte input limit are E_POSITION.
    pub fn chunk_cvs(mode: u32, input_len: u32, counter_lo: u32, counter_hi: u32) -> i32 {
        let Some((key, flags)) = mode_key(mode) else { return E_MODE };
        let Some(input) = staged(input_len) else { return E_LENGTH };
        if input.is_empty() { return E_LENGTH }
        let counter = u64_from(counter_lo, counter_hi);
        let end = counter.checked_mul(CHUNK_LEN as u64).and_then(|offset| offset.checked_add(u64::from(input_len)));
        if end.is_none() { return E_POSITION }
        let (cvs, count) = chunk_cvs_of(Kernel::detect(), input, &key, counter, flags);
        let Some(out) = staged(32 * count as u32) else { return E_LENGTH };
        for (out, cv) in out.chunks_exact_mut(32).zip(&cvs) {
            out.copy_from_slice(&kernel::bytes_from_words(cv));
        }
        count as i32
    }

    /// Parent chaining values (never roots) of `pairs` staged 64-byte
    /// (left, right) records, written as 32-byte values over the start of
    /// the staging buffer; returns `pairs`.
    pub fn parent_cvs(mode: u32, pairs: u32) -> i32 {
        let Some((key, flags)) = mode_key(mode) else { return E_MODE };
        if pairs as usize > STAGING_LEN / 64 { return E_LENGTH }
        let Some(records) = staged(pairs * 64) else { return E_LENGTH };
        parent_cvs_in_place(Kernel::detect(), records, &key, flags) as i32
    }

    /// A Bao subtree in one call: the `input_len` staged bytes are the
    /// subtree of 2^h chunks (h <= 6; the last chunk may be short) from chunk
    /// `counter_hi * 2^32 + counter_lo`, a multiple of 2^h. Writes its
    /// chaining value at bytes 0..32 of the staging buffer, then its parents
    /// over groups of 2^`chunk_log` chunks in pre-order, 64 bytes each from
    /// byte 32; returns how many. Computed 4 lanes wide level by level, where
    /// JS built the same parents from chunk_cvs and parent_cvs at 0.82x of
    /// hash() for a whole outboard.
    pub fn subtree_parents(mode: u32, input_len: u32, counter_lo: u32, counter_hi: u32, chunk_log: u32) -> i32 {
        let Some((key, flags)) = mode_key(mode) else { return E_MODE };
        let Some(input) = staged(input_len) else { return E_LENGTH };
        let chunks = input.len().div_ceil(CHUNK_LEN);
        if !chunks.is_power_of_two() { return E_LENGTH }
        let counter = u64_from(counter_lo, counter_hi);
        if !counter.is_multiple_of(chunks as u64) { return E_ALIGN }
        let end = counter.checked_mul(CHUNK_LEN as u64).and_then(|offset| offset.checked_add(u64::from(input_len)));
        if end.is_none() { return E_POSITION }
        let kernel = Kernel::detect();
        let (mut cvs, _) = chunk_cvs_of(kernel, input, &key, counter, flags);
        let Some(out) = staged(STAGING_LEN as u32) else { return E_LENGTH };
        let height = chunks.trailing_zeros();
        let mut written = 0;
        for level in 1..=height {
            let count = chunks >> level;
            if level > chunk_log {
                for i in 0..count {
                    // Pre-order: after the parents of the full subtrees to
                    // its left (g - popcount(g) in groups g) and its ancestors.
                    let group = (i << level) >> chunk_log;
                    let at = 32 + 64 * (group - group.count_ones() as usize + (height - level) as usize);
                    let (Some(node), Some(pair)) = (out.get_mut(at..at + 64), cvs.get(2 * i..2 * i + 2)) else { return E_LENGTH };
                    let (left, right) = node.split_at_mut(32);
                    left.copy_from_slice(&kernel::bytes_from_words(&pair[0]));
                    right.copy_from_slice(&kernel::bytes_from_words(&pair[1]));
                    written += 1;
                }
            }
            let Some(level_cvs) = cvs.get_mut(..2 * count) else { return E_LENGTH };
            kernel.hash_parents(level_cvs, &key, flags);
        }
        let Some(value) = out.get_mut(..32) else { return E_LENGTH };
        value.copy_from_slice(&kernel::bytes_from_words(&cvs[0]));
        written
    }

    /// Many inputs in one call: `count` inputs staged back to back from byte
    /// 0, each `item_len` bytes, or, when `item_len` is `u32::MAX`, ending
    /// where the `count` little-endian u32s staged at `ends_at` say. Writes
    /// `out_len` bytes of output for each, one after another, from `out_at`.
    /// The inputs, the ends and the output must not overlap, in that order.
    pub fn hash_many(mode: u32, count: u32, item_len: u32, ends_at: u32, out_at: u32, out_len: u32) -> i32 {
        let Some((key, flags)) = mode_key(mode) else { return E_MODE };
        let (count, ends_at, out_at) = (count as usize, ends_at as usize, out_at as usize);
        // At most a staging buffer's worth: also bounds the checks' loop.
        if count > STAGING_LEN { return E_LENGTH }
        let Some(out_end) = count.checked_mul(out_len as usize).and_then(|n| n.checked_add(out_at)) else { return E_LENGTH };
        let Some(staging) = staged(STAGING_LEN as u32) else { return E_LENGTH };
        if ends_at > out_at || out_end > STAGING_LEN { return E_LENGTH }
        let Some((inputs, out)) = staging.split_at_mut_checked(out_at) else { return E_LENGTH };
        let items = if item_len == u32::MAX {
            let (Some(data), Some(ends)) = (inputs.get(..ends_at), inputs.get(ends_at..ends_at + 4 * count)) else { return E_LENGTH };
            many::Items::Ends { data, ends }
        } else {
            let Some(data) = count.checked_mul(item_len as usize).and_then(|n| inputs.get(..n)) else { return E_LENGTH };
            many::Items::Equal { data, len: item_len as usize }
        };
        if (0..count).any(|i| items.get(i).is_none()) { return E_LENGTH }
        many::hash_many(Kernel::detect(), &items, count, &key, flags, out_len as usize, out);
        OK
    }

    /// Merges the two staged chaining values as the root of the whole tree and
    /// writes `out_len` bytes of output at `position` to the staging buffer.
    pub fn merge_root(mode: u32, out_len: u32, position_lo: u32, position_hi: u32) -> i32 {
        let Some((key, flags)) = mode_key(mode) else { return E_MODE };
        let (left, right) = staged_pair();
        fill_output(&tree::parent_output(&left, &right, &key, flags), out_len, u64_from(position_lo, position_hi))
    }
}

/// At most this many chaining values of chunks or parents are computed
/// before they are written back over the staging buffer: 64 chunks fill it.
const CV_BATCH: usize = STAGING_LEN / CHUNK_LEN;

/// Chaining values of the chunks of `input` numbered from `counter` (whole
/// chunks but the last, which may be short but not empty), and how many.
fn chunk_cvs_of(kernel: Kernel, input: &[u8], key: &Words, counter: u64, flags: u32) -> ([Words; CV_BATCH], usize) {
    let mut cvs = [[0u32; 8]; CV_BATCH];
    let whole = (input.len() / CHUNK_LEN).min(CV_BATCH);
    let (chunks, tail) = input.as_chunks::<CHUNK_LEN>();
    kernel.hash_chunks(chunks, key, counter, flags, &mut cvs[..whole]);
    let mut count = whole;
    if !tail.is_empty() && whole < CV_BATCH {
        let mut state = tree::ChunkState::new(key, counter + whole as u64, flags);
        state.update(kernel, tail);
        cvs[whole] = state.output().chaining_value(kernel);
        count += 1;
    }
    (cvs, count)
}

/// Parents of the (left, right) pairs of 32-byte chaining values in
/// `records`, written as 32-byte values over its start, a batch at a time:
/// a batch's results land before the records still to be read.
fn parent_cvs_in_place(kernel: Kernel, records: &mut [u8], key: &Words, flags: u32) -> usize {
    let pairs = records.len() / 64;
    let mut cvs = [[0u32; 8]; 2 * CV_BATCH];
    let mut done = 0;
    while done < pairs {
        let n = (pairs - done).min(CV_BATCH);
        for (cv, bytes) in cvs.iter_mut().zip(records.chunks_exact(32).skip(2 * done)).take(2 * n) {
            let mut value = [0u8; 32];
            value.copy_from_slice(bytes);
            *cv = kernel::words_from_key(&value);
        }
        kernel.hash_parents(&mut cvs[..2 * n], key, flags);
        for (out, cv) in records.chunks_exact_mut(32).skip(done).zip(cvs.iter().take(n)) {
            out.copy_from_slice(&kernel::bytes_from_words(cv));
        }
        done += n;
    }
    pairs
}

/// The two chaining values staged at bytes 0..32 and 32..64, as words.
fn staged_pair() -> (Words, Words) {
    // SAFETY: copied out; no reference survives.
    let staging = unsafe { STAGING.bytes() };
    let mut left = [0; 32];
    let mut right = [0; 32];
    left.copy_from_slice(&staging[..32]);
    right.copy_from_slice(&staging[32..64]);
    (kernel::words_from_key(&left), kernel::words_from_key(&right))
}
