//! Hasher states in fixed slots, addressed by index from JS.
//!
//! Slots live in pages that are allocated once and never freed, with an
//! intrusive free list through the free slots. Creating a hasher after one was
//! freed therefore allocates nothing, and wasm memory stays flat over any
//! number of create/free cycles: it only grows to the peak number of hashers
//! alive at once. A page is allocated with `try_reserve_exact`, so running out
//! of memory is an error code instead of an abort.

use blake3::Hasher;

const PAGE_LEN: usize = 64;
/// 2^20 slots of ~2 KB each would already exceed wasm32's 4 GiB.
const MAX_SLOTS: usize = 1 << 20;

pub struct Live {
    pub hasher: Hasher,
    /// Mode and key as created, so that reset can rebuild the hasher.
    pub mode: u32,
    pub key: [u8; 32],
    /// Set by `set_input_offset`: the slot hashes a subtree, which may only be
    /// finalized as a chaining value and holds at most `subtree_max` bytes.
    pub subtree_max: Option<u64>,
}

enum Slot {
    Free { next: u32 },
    Live(Live),
}

const NONE: u32 = u32::MAX;

pub struct Slots {
    pages: Vec<Vec<Slot>>,
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
        Slots { pages: Vec::new(), free_head: NONE, in_use: 0 }
    }

    pub fn in_use(&self) -> u32 {
        self.in_use
    }

    pub fn capacity(&self) -> usize {
        self.pages.len() * PAGE_LEN
    }

    fn at(&mut self, index: u32) -> Option<&mut Slot> {
        let index = index as usize;
        self.pages.get_mut(index / PAGE_LEN)?.get_mut(index % PAGE_LEN)
    }

    pub fn get(&mut self, index: u32) -> Result<&mut Live, SlotError> {
        match self.at(index) {
            Some(Slot::Live(live)) => Ok(live),
            _ => Err(SlotError::NoSuchSlot),
        }
    }

    pub fn insert(&mut self, live: Live) -> Result<u32, SlotError> {
        if self.free_head == NONE {
            self.add_page()?;
        }
        let index = self.free_head;
        let slot = self.at(index).ok_or(SlotError::NoSuchSlot)?;
        let Slot::Free { next } = *slot else {
            return Err(SlotError::NoSuchSlot);
        };
        *slot = Slot::Live(live);
        self.free_head = next;
        self.in_use += 1;
        Ok(index)
    }

    pub fn remove(&mut self, index: u32) -> Result<(), SlotError> {
        let free_head = self.free_head;
        let slot = self.at(index).ok_or(SlotError::NoSuchSlot)?;
        if !matches!(slot, Slot::Live(_)) {
            return Err(SlotError::NoSuchSlot);
        }
        *slot = Slot::Free { next: free_head };
        self.free_head = index;
        self.in_use -= 1;
        Ok(())
    }

    fn add_page(&mut self) -> Result<(), SlotError> {
        let first = self.capacity();
        if first + PAGE_LEN > MAX_SLOTS {
            return Err(SlotError::OutOfMemory);
        }
        let mut page = Vec::new();
        page.try_reserve_exact(PAGE_LEN).map_err(|_| SlotError::OutOfMemory)?;
        self.pages.try_reserve(1).map_err(|_| SlotError::OutOfMemory)?;
        // Chain the new slots in index order, ending at the old free head.
        for i in 0..PAGE_LEN {
            let next = if i + 1 < PAGE_LEN { (first + i + 1) as u32 } else { self.free_head };
            page.push(Slot::Free { next });
        }
        self.pages.push(page);
        self.free_head = first as u32;
        Ok(())
    }
}
