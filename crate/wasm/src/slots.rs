//! Hasher states, addressed by slot index from JS, stored compactly.
//!
//! A hasher's state is mostly its chaining-value stack (55 entries, 1760 of
//! its 1936 bytes), and between calls a hasher holds one entry per set bit of
//! its chunk count: at most 10 until it has taken 2047 chunks (2 MiB). So a
//! slot is a 512-byte *head* holding the state and the first 10 stack entries,
//! plus a 1456-byte *tail* for the rest, taken only while the stack is that
//! deep. Exports work on a full-size copy in a scratch buffer (`load`, then
//! `store`), so within a call the stack may grow freely, and a call that
//! fails leaves the stored state as it was. The copies cost ~20 ns a call
//! (raw 64-byte updates 71 -> 91 ns; `Hasher.update` of 1 KiB 940 -> 968 ns).
//!
//! Heads and tails live in two arenas of fixed-size slots. Each arena grows by
//! half its size (at least a page) per `memory.grow`, in segments that need
//! not be adjacent. Growing a page at a time made V8 run a full GC on nearly
//! every grow once wasm memory passed ~64 MB (its external-memory limit):
//! successive batches of 30k hashers took 106, 1125, 1723, 1296 ms, then
//! ~80 ms once grown (Node 20, 2-core EPYC). Geometric growth does O(log n)
//! grows, so growth is amortised linear.
//!
//! Freed slots go on a free list and are reused first; slots never used are
//! handed out in order, so pages grown but not yet needed are never touched.
//! Nothing else in this module allocates (see `lib.rs`). A failed grow is an
//! error code, never a trap. Native tests emulate `memory.grow` with a
//! reserved region.

use crate::tree::Hasher;
use core::mem::{offset_of, size_of, MaybeUninit};
use core::ptr;

/// A hasher as the exports see it. `repr(C)` with the hasher last (and the
/// hasher's stack last in it), so that a prefix of its bytes is all of it.
#[derive(Clone)]
#[repr(C)]
pub struct Live {
    /// Set by `set_input_offset`: the slot hashes a subtree, which may only be
    /// finalized as a chaining value and holds at most this many bytes.
    pub subtree_max: Option<u64>,
    pub hasher: Hasher,
}

const PAGE_BYTES: usize = 65536;
const NONE: u32 = u32::MAX;
const FREE: u32 = 0;
const LIVE: u32 = 0x4c49_5645;

/// Every arena slot starts with its tag (FREE or LIVE) and its free-list link.
const TAG: usize = 0;
const NEXT_FREE: usize = 4;
/// A head then holds its tail's index, and from `HEAD_STATE` the first bytes
/// of its `Live`.
const HEAD_TAIL: usize = 8;
const HEAD_STATE: usize = 16;
const HEAD_BYTES: usize = 512;
/// Bytes of `Live` a head holds, and how many stack entries that leaves room for.
const INLINE_BYTES: usize = HEAD_BYTES - HEAD_STATE;
const STACK_START: usize = offset_of!(Live, hasher) + Hasher::STACK_OFFSET;
const STACK_LEN_AT: usize = offset_of!(Live, hasher) + Hasher::STACK_LEN_OFFSET;
pub const INLINE_ENTRIES: usize = (INLINE_BYTES - STACK_START) / Hasher::STACK_ENTRY_BYTES;
/// A tail holds the rest of `Live`, from byte `INLINE_BYTES` on.
const TAIL_STATE: usize = 8;
const TAIL_PAYLOAD: usize = size_of::<Live>() - INLINE_BYTES;
const TAIL_BYTES: usize = (TAIL_STATE + TAIL_PAYLOAD).next_multiple_of(16);

// The sizes the module comment gives.
const _: () = assert!(size_of::<Live>() == 1936 && INLINE_ENTRIES == 10 && TAIL_BYTES == 1456);
const _: () = assert!(align_of::<Live>() <= 16 && HEAD_STATE.is_multiple_of(16));

/// # Safety
/// `address` is a slot of an arena; `field` one of its u32 fields.
unsafe fn read_field(address: usize, field: usize) -> u32 {
    unsafe { ptr::read((address + field) as *const u32) }
}

/// # Safety
/// As for `read_field`, and no reference into the slot is alive.
unsafe fn write_field(address: usize, field: usize, value: u32) {
    unsafe { ptr::write((address + field) as *mut u32, value) }
}

/// The bytes of a `Live` with `stack_len` stack entries that hold its state.
fn used_bytes(stack_len: usize) -> usize {
    (STACK_START + stack_len * Hasher::STACK_ENTRY_BYTES).min(size_of::<Live>())
}

/// Enough for growth by half from one page to 4 GiB (28 segments), with room
/// for the smaller grows tried when a large one fails.
const MAX_SEGMENTS: usize = 64;

#[derive(Clone, Copy)]
struct Segment {
    first: u32,
    base: usize,
}

/// Fixed-size slots of `SLOT` bytes in segments of linear memory.
struct Arena<const SLOT: usize> {
    segments: [Segment; MAX_SEGMENTS],
    segment_count: usize,
    pages: usize,
    capacity: u32,
    /// Slots from here on have never been used (their memory is still zero).
    fresh: u32,
    free_head: u32,
    live: u32,
}

impl<const SLOT: usize> Arena<SLOT> {
    const fn new() -> Self {
        Arena {
            segments: [Segment { first: 0, base: 0 }; MAX_SEGMENTS],
            segment_count: 0,
            pages: 0,
            capacity: 0,
            fresh: 0,
            free_head: NONE,
            live: 0,
        }
    }

    /// The address of slot `index`, if it was ever handed out.
    fn address(&self, index: u32) -> Option<usize> {
        if index >= self.fresh {
            return None;
        }
        let segments = self.segments.get(..self.segment_count)?;
        let segment = segments.get(segments.partition_point(|s| s.first <= index).checked_sub(1)?)?;
        Some(segment.base + (index - segment.first) as usize * SLOT)
    }

    /// The address of slot `index` if it is taken.
    fn live_address(&self, index: u32) -> Option<usize> {
        let address = self.address(index)?;
        // SAFETY: `address` is one of our slots.
        (unsafe { read_field(address, TAG) } == LIVE).then_some(address)
    }

    /// A free slot, now tagged LIVE, and its address: a freed one first,
    /// then a fresh one, growing the arena when neither is left.
    fn take(&mut self) -> Result<(u32, usize), SlotError> {
        let index = if self.free_head != NONE {
            self.free_head
        } else {
            if self.fresh == self.capacity {
                self.grow()?;
            }
            self.fresh += 1;
            self.fresh - 1
        };
        let address = self.address(index).ok_or(SlotError::OutOfMemory)?;
        // SAFETY: `address` is one of our slots; `&mut self` makes this the
        // only access.
        unsafe {
            if index == self.free_head {
                self.free_head = read_field(address, NEXT_FREE);
            }
            write_field(address, TAG, LIVE);
        }
        self.live += 1;
        Ok((index, address))
    }

    fn give_back(&mut self, index: u32) {
        if let Some(address) = self.address(index) {
            // SAFETY: as in `take`.
            unsafe {
                write_field(address, TAG, FREE);
                write_field(address, NEXT_FREE, self.free_head);
            }
            self.free_head = index;
            self.live -= 1;
        }
    }

    /// Adds a segment of half the arena's pages (at least one), or fewer if
    /// memory can't grow that much.
    fn grow(&mut self) -> Result<(), SlotError> {
        if self.segment_count == MAX_SEGMENTS {
            return Err(SlotError::OutOfMemory);
        }
        let mut pages = (self.pages / 2).max(1);
        let base = loop {
            if let Some(base) = grow_pages(pages) {
                break base;
            }
            if pages == 1 {
                return Err(SlotError::OutOfMemory);
            }
            pages /= 2;
        };
        let slots = (pages * PAGE_BYTES / SLOT) as u32;
        let capacity = self.capacity.checked_add(slots).filter(|&c| c < NONE).ok_or(SlotError::OutOfMemory)?;
        let entry = self.segments.get_mut(self.segment_count).ok_or(SlotError::OutOfMemory)?;
        *entry = Segment { first: self.capacity, base };
        self.segment_count += 1;
        self.pages += pages;
        self.capacity = capacity;
        Ok(())
    }
}

pub struct Slots {
    heads: Arena<HEAD_BYTES>,
    tails: Arena<TAIL_BYTES>,
    /// The hasher exports work on: `load` copies a slot's used bytes in and
    /// `store` copies them back. A static buffer rather than a `Live` on the
    /// stack: returning one by value copied all 1.9 KB, which cost 64-byte
    /// updates 50 ns (70 -> 120 ns) and 1 KiB ones 6%.
    scratch: MaybeUninit<Live>,
    scratch_valid: bool,
}

#[derive(Debug, PartialEq, Eq)]
pub enum SlotError {
    NoSuchSlot,
    OutOfMemory,
    /// Bytes given to `restore` are not a saved hasher.
    Invalid,
}

/// A saved hasher's subtree bound when it is an ordinary hasher: a subtree's
/// bound is a whole number of chunks, or `u64::MAX` at offset 0, never 0.
const NOT_SUBTREE: u64 = 0;
/// Bytes of a `Hasher` before its stack.
const HASHER_STATE: usize = Hasher::STACK_OFFSET;
/// The most bytes `save` writes: the bound and a full-depth hasher.
pub const SAVED_MAX: usize = 8 + size_of::<Hasher>();

// `new` is const because the one instance is a static (lib.rs); Default,
// which can't be const, is for everyone else.
impl Default for Slots {
    fn default() -> Self {
        Self::new()
    }
}

impl Slots {
    pub const fn new() -> Self {
        Slots { heads: Arena::new(), tails: Arena::new(), scratch: MaybeUninit::uninit(), scratch_valid: false }
    }

    /// Live hashers.
    pub fn in_use(&self) -> u32 {
        self.heads.live
    }

    /// Heads ever handed out: the arena's high-water mark.
    pub fn heads_used(&self) -> u32 {
        self.heads.fresh
    }

    /// How many times either arena has grown memory.
    pub fn grows(&self) -> usize {
        self.heads.segment_count + self.tails.segment_count
    }

    /// Tails held now: live hashers with deep stacks.
    pub fn tails_in_use(&self) -> u32 {
        self.tails.live
    }

    pub fn contains(&self, index: u32) -> bool {
        self.heads.live_address(index).is_some()
    }

    /// The hasher in slot `index`, copied to the scratch buffer: changes
    /// reach the slot only through `store`.
    pub fn load(&mut self, index: u32) -> Result<&mut Live, SlotError> {
        let head = self.heads.live_address(index).ok_or(SlotError::NoSuchSlot)?;
        let bytes = self.scratch.as_mut_ptr().cast::<u8>();
        // SAFETY: `store` wrote this head (and the tail, if it has one) from a
        // `Live`: its bytes up to the top of its stack are a valid `Live`
        // prefix, and the stack entries past the top are `MaybeUninit`.
        unsafe {
            let stack_len = ptr::read((head + HEAD_STATE + STACK_LEN_AT) as *const u8);
            let used = used_bytes(stack_len as usize);
            ptr::copy_nonoverlapping((head + HEAD_STATE) as *const u8, bytes, used.min(INLINE_BYTES));
            if let Some(tail) = self.tails.address(read_field(head, HEAD_TAIL)) {
                let rest = used.saturating_sub(INLINE_BYTES).min(TAIL_PAYLOAD);
                ptr::copy_nonoverlapping((tail + TAIL_STATE) as *const u8, bytes.add(INLINE_BYTES), rest);
            }
            self.scratch_valid = true;
            Ok(self.scratch.assume_init_mut())
        }
    }

    /// Writes the scratch hasher (as `load` left it, then changed) to slot
    /// `index`, taking a tail if its stack needs one and giving the tail back
    /// once it doesn't. On error the slot is unchanged.
    pub fn store(&mut self, index: u32) -> Result<(), SlotError> {
        let head = self.heads.live_address(index).filter(|_| self.scratch_valid).ok_or(SlotError::NoSuchSlot)?;
        // SAFETY: `load` or `insert` initialised it (`scratch_valid`).
        let stack_len = unsafe { self.scratch.assume_init_ref() }.hasher.stack_len();
        let used = used_bytes(stack_len);
        // SAFETY: `head` is a live head; growing the tails (in `take`) adds
        // memory but moves none.
        let tail = unsafe {
            let mut tail = read_field(head, HEAD_TAIL);
            if used > INLINE_BYTES && tail == NONE {
                tail = self.tails.take()?.0;
                write_field(head, HEAD_TAIL, tail);
            } else if used <= INLINE_BYTES && tail != NONE {
                self.tails.give_back(tail);
                tail = NONE;
                write_field(head, HEAD_TAIL, NONE);
            }
            tail
        };
        let bytes = self.scratch.as_ptr().cast::<u8>();
        // SAFETY: raw copies of the scratch's first `used` bytes (at most
        // `size_of::<Live>()`) into this head's state area and tail, which
        // are `INLINE_BYTES` and `TAIL_PAYLOAD` long.
        unsafe {
            ptr::copy_nonoverlapping(bytes, (head + HEAD_STATE) as *mut u8, used.min(INLINE_BYTES));
            if let Some(tail) = self.tails.address(tail) {
                let rest = used.saturating_sub(INLINE_BYTES).min(TAIL_PAYLOAD);
                ptr::copy_nonoverlapping(bytes.add(INLINE_BYTES), (tail + TAIL_STATE) as *mut u8, rest);
            }
        }
        Ok(())
    }

    /// A new slot holding `live`.
    pub fn insert(&mut self, live: Live) -> Result<u32, SlotError> {
        self.scratch.write(live);
        self.scratch_valid = true;
        self.insert_scratch()
    }

    /// A new slot holding a copy of slot `index`.
    pub fn duplicate(&mut self, index: u32) -> Result<u32, SlotError> {
        self.load(index)?;
        self.insert_scratch()
    }

    fn insert_scratch(&mut self) -> Result<u32, SlotError> {
        let (index, head) = self.heads.take()?;
        // SAFETY: a head we just took.
        unsafe { write_field(head, HEAD_TAIL, NONE) };
        if let Err(error) = self.store(index) {
            self.heads.give_back(index);
            return Err(error);
        }
        Ok(index)
    }

    /// Writes the hasher in slot `index` to `out` as `restore` takes it
    /// back: its subtree bound (u64, little-endian, `NOT_SUBTREE` for an
    /// ordinary hasher), then the bytes of its `Hasher` up to the top of its
    /// stack. Returns their count, at most `SAVED_MAX`.
    pub fn save(&mut self, index: u32, out: &mut [u8]) -> Result<usize, SlotError> {
        let live = self.load(index)?;
        let used = HASHER_STATE + live.hasher.stack_len() * Hasher::STACK_ENTRY_BYTES;
        let saved = out.get_mut(..8 + used).ok_or(SlotError::Invalid)?;
        saved[..8].copy_from_slice(&live.subtree_max.unwrap_or(NOT_SUBTREE).to_le_bytes());
        // SAFETY: `used` bytes of a `Hasher` with that many stack entries
        // (at most its size), all of them written by `load`.
        let bytes = unsafe { core::slice::from_raw_parts((&raw const live.hasher).cast::<u8>(), used) };
        saved[8..].copy_from_slice(bytes);
        Ok(saved.len())
    }

    /// Replaces the hasher in slot `index` with one `save` wrote. Bytes that
    /// are not one (a wrong length, or a hasher whose invariants fail) are
    /// `Invalid`, and the slot is unchanged.
    pub fn restore(&mut self, index: u32, saved: &[u8]) -> Result<(), SlotError> {
        self.heads.live_address(index).ok_or(SlotError::NoSuchSlot)?;
        let (bound, hasher) = saved.split_first_chunk::<8>().ok_or(SlotError::Invalid)?;
        let stack_len = *hasher.get(Hasher::STACK_LEN_OFFSET).ok_or(SlotError::Invalid)? as usize;
        let used = stack_len
            .checked_mul(Hasher::STACK_ENTRY_BYTES)
            .map(|stack| HASHER_STATE + stack)
            .filter(|&used| used == hasher.len() && used <= size_of::<Hasher>())
            .ok_or(SlotError::Invalid)?;
        let live = self.scratch.as_mut_ptr();
        // SAFETY: `used` bytes fit a `Hasher` (checked), whose fields are all
        // integers or `MaybeUninit`, so any bytes are a value of it; the
        // entries past its stack's top are never read.
        unsafe {
            ptr::copy_nonoverlapping(hasher.as_ptr(), (&raw mut (*live).hasher).cast::<u8>(), used);
            let bound = u64::from_le_bytes(*bound);
            (&raw mut (*live).subtree_max).write((bound != NOT_SUBTREE).then_some(bound));
        }
        self.scratch_valid = true;
        // SAFETY: just written in full.
        if !unsafe { self.scratch.assume_init_ref() }.hasher.is_consistent() {
            self.scratch_valid = false;
            return Err(SlotError::Invalid);
        }
        self.store(index)
    }

    pub fn remove(&mut self, index: u32) -> Result<(), SlotError> {
        let head = self.heads.live_address(index).ok_or(SlotError::NoSuchSlot)?;
        // SAFETY: a live head.
        let tail = unsafe { read_field(head, HEAD_TAIL) };
        if tail != NONE {
            self.tails.give_back(tail);
        }
        self.heads.give_back(index);
        Ok(())
    }
}

/// The address of `pages` more zeroed 64 KiB pages of linear memory.
#[cfg(target_arch = "wasm32")]
fn grow_pages(pages: usize) -> Option<usize> {
    let previous_pages = core::arch::wasm32::memory_grow(0, pages);
    if previous_pages == usize::MAX {
        return None;
    }
    Some(previous_pages * PAGE_BYTES)
}

/// Native tests: pages of one region reserved up front (the OS backs it
/// lazily), handed out in order as `memory.grow` would.
#[cfg(not(target_arch = "wasm32"))]
fn grow_pages(pages: usize) -> Option<usize> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::OnceLock;
    const REGION_BYTES: usize = 1 << 30;
    static REGION: OnceLock<usize> = OnceLock::new();
    static USED: AtomicUsize = AtomicUsize::new(0);
    let base = *REGION.get_or_init(|| {
        let layout = std::alloc::Layout::from_size_align(REGION_BYTES, PAGE_BYTES).unwrap();
        // SAFETY: a non-zero size; never freed (the process owns it).
        unsafe { std::alloc::alloc_zeroed(layout) as usize }
    });
    let bytes = pages.checked_mul(PAGE_BYTES)?;
    if base == 0 {
        return None;
    }
    let offset = USED.fetch_add(bytes, Ordering::Relaxed);
    if offset + bytes > REGION_BYTES {
        USED.fetch_sub(bytes, Ordering::Relaxed);
        return None;
    }
    Some(base + offset)
}
