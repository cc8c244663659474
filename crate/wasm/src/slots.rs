//! Hasher states in fixed 2 KiB slots, addressed by index from JS.
//!
//! The slots form one contiguous arena at the end of linear memory, grown a
//! wasm page (32 slots) at a time with `memory.grow`: nothing else in this
//! module allocates (see `lib.rs`), so every page it grows lands right after
//! the previous one. Free slots form an intrusive list, so creating a hasher
//! after one was freed allocates nothing, and memory only grows to the peak
//! number of hashers alive at once. A failed grow is an error code, never a
//! trap. Native tests emulate `memory.grow` with a reserved region.

use crate::tree::Hasher;
use core::mem::MaybeUninit;

pub struct Live {
    pub hasher: Hasher,
    /// Set by `set_input_offset`: the slot hashes a subtree, which may only be
    /// finalized as a chaining value and holds at most this many bytes.
    pub subtree_max: Option<u64>,
}

const SLOT_BYTES: usize = 2048;
const PAGE_BYTES: usize = 65536;
const SLOTS_PER_PAGE: u32 = (PAGE_BYTES / SLOT_BYTES) as u32;
/// 2^20 slots of 2 KiB would already exceed wasm32's 4 GiB.
const MAX_SLOTS: u32 = 1 << 20;
const NONE: u32 = u32::MAX;
const FREE: u32 = 0;
const LIVE: u32 = 1;

#[repr(C)]
struct Slot {
    next_free: u32,
    state: u32,
    live: MaybeUninit<Live>,
}

const _: () = assert!(core::mem::size_of::<Slot>() <= SLOT_BYTES);
const _: () = assert!(core::mem::align_of::<Slot>() <= SLOT_BYTES);

pub struct Slots {
    base: usize,
    capacity: u32,
    free_head: u32,
    in_use: u32,
}

#[derive(Debug, PartialEq, Eq)]
pub enum SlotError {
    NoSuchSlot,
    OutOfMemory,
}

impl Slots {
    pub const fn new() -> Self {
        Slots { base: 0, capacity: 0, free_head: NONE, in_use: 0 }
    }

    pub fn in_use(&self) -> u32 {
        self.in_use
    }

    pub fn capacity(&self) -> usize {
        self.capacity as usize
    }

    fn slot(&mut self, index: u32) -> Result<&mut Slot, SlotError> {
        if index >= self.capacity {
            return Err(SlotError::NoSuchSlot);
        }
        // SAFETY: slots below `capacity` lie in memory grown for this arena
        // and initialised by `add_page`; `&mut self` makes this the only view.
        Ok(unsafe { &mut *((self.base + index as usize * SLOT_BYTES) as *mut Slot) })
    }

    pub fn get(&mut self, index: u32) -> Result<&mut Live, SlotError> {
        let slot = self.slot(index)?;
        if slot.state != LIVE {
            return Err(SlotError::NoSuchSlot);
        }
        // SAFETY: a LIVE slot holds a value written by `insert`.
        Ok(unsafe { slot.live.assume_init_mut() })
    }

    pub fn insert(&mut self, live: Live) -> Result<u32, SlotError> {
        if self.free_head == NONE {
            self.add_page()?;
        }
        let index = self.free_head;
        let slot = self.slot(index)?;
        if slot.state != FREE {
            return Err(SlotError::NoSuchSlot);
        }
        let next = slot.next_free;
        slot.live.write(live);
        slot.state = LIVE;
        self.free_head = next;
        self.in_use += 1;
        Ok(index)
    }

    pub fn remove(&mut self, index: u32) -> Result<(), SlotError> {
        let free_head = self.free_head;
        let slot = self.slot(index)?;
        if slot.state != LIVE {
            return Err(SlotError::NoSuchSlot);
        }
        // `Live` holds no resources, so it needs no drop.
        slot.state = FREE;
        slot.next_free = free_head;
        self.free_head = index;
        self.in_use -= 1;
        Ok(())
    }

    fn add_page(&mut self) -> Result<(), SlotError> {
        let first = self.capacity;
        if first + SLOTS_PER_PAGE > MAX_SLOTS {
            return Err(SlotError::OutOfMemory);
        }
        let address = grow_page().ok_or(SlotError::OutOfMemory)?;
        if first == 0 {
            self.base = address;
        } else if address != self.base + first as usize * SLOT_BYTES {
            // Someone else grew memory in between: the arena can't continue.
            return Err(SlotError::OutOfMemory);
        }
        self.capacity += SLOTS_PER_PAGE;
        // Chain the new slots in index order, ending at the old free head.
        for i in 0..SLOTS_PER_PAGE {
            let next = if i + 1 < SLOTS_PER_PAGE { first + i + 1 } else { self.free_head };
            let slot = self.slot(first + i)?;
            slot.state = FREE;
            slot.next_free = next;
        }
        self.free_head = first;
        Ok(())
    }
}

/// The address of one more zeroed 64 KiB page at the end of the arena.
#[cfg(target_arch = "wasm32")]
fn grow_page() -> Option<usize> {
    let previous_pages = core::arch::wasm32::memory_grow(0, 1);
    if previous_pages == usize::MAX {
        return None;
    }
    Some(previous_pages * PAGE_BYTES)
}

/// Native tests: pages of one region reserved up front (the OS backs it
/// lazily), handed out in order as `memory.grow` would.
#[cfg(not(target_arch = "wasm32"))]
fn grow_page() -> Option<usize> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::OnceLock;
    const REGION_BYTES: usize = 256 << 20;
    static REGION: OnceLock<usize> = OnceLock::new();
    static USED: AtomicUsize = AtomicUsize::new(0);
    let base = *REGION.get_or_init(|| {
        let layout = std::alloc::Layout::from_size_align(REGION_BYTES, PAGE_BYTES).unwrap();
        // SAFETY: a non-zero size; never freed (the process owns it).
        unsafe { std::alloc::alloc_zeroed(layout) as usize }
    });
    if base == 0 {
        return None;
    }
    let offset = USED.fetch_add(PAGE_BYTES, Ordering::Relaxed);
    (offset + PAGE_BYTES <= REGION_BYTES).then_some(base + offset)
}
