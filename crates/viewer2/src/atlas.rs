//! Where thumbnails live on the GPU: a fixed number of square atlas pages
//! cut into equal slots, so GPU memory stays within a budget set at start
//! however many photos the grid holds. When every slot is taken, the
//! thumbnail farthest from the view gives its slot up.
//!
//! This module only does the bookkeeping (which photo has which slot); the
//! window uploads the pixels into the slot's place on its page.

use std::collections::HashMap;

/// A slot: its page and its top-left pixel there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slot {
    /// The page.
    pub page: u32,
    /// Left edge, in pixels.
    pub x: u32,
    /// Top edge, in pixels.
    pub y: u32,
}

/// The slots of all pages, and who holds each.
#[derive(Debug)]
pub struct Atlas {
    page_side: u32,
    slot_side: u32,
    per_row: u32,
    pages: u32,
    /// The holder of each slot (slot number = page × per page + row ×
    /// per row + column).
    holders: Vec<Option<u64>>,
    slot_of: HashMap<u64, u32>,
    free: Vec<u32>,
}

impl Atlas {
    /// As many `page_side`² RGBA pages as fit in `budget_bytes` (at least
    /// one), cut into `slot_side`² slots.
    pub fn new(budget_bytes: u64, page_side: u32, slot_side: u32) -> Atlas {
        let page_side = page_side.max(1);
        let slot_side = slot_side.clamp(1, page_side);
        let page_bytes = page_side as u64 * page_side as u64 * 4;
        let pages = (budget_bytes / page_bytes).clamp(1, u32::MAX as u64) as u32;
        let per_row = page_side / slot_side;
        let slots = pages as usize * (per_row * per_row) as usize;
        Atlas {
            page_side,
            slot_side,
            per_row,
            pages,
            holders: vec![None; slots],
            slot_of: HashMap::new(),
            // Popped from the end: slot 0 first.
            free: (0..slots as u32).rev().collect(),
        }
    }

    /// How many thumbnails it holds at most.
    pub fn capacity(&self) -> usize {
        self.holders.len()
    }

    /// How many it holds now.
    pub fn len(&self) -> usize {
        self.slot_of.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.slot_of.is_empty()
    }

    /// The number of pages.
    pub fn pages(&self) -> u32 {
        self.pages
    }

    /// A page's side in pixels.
    pub fn page_side(&self) -> u32 {
        self.page_side
    }

    /// A slot's side in pixels.
    pub fn slot_side(&self) -> u32 {
        self.slot_side
    }

    /// The GPU memory the pages take, in bytes.
    pub fn bytes(&self) -> u64 {
        self.pages as u64 * self.page_side as u64 * self.page_side as u64 * 4
    }

    /// The slot `id` holds, if any.
    pub fn get(&self, id: u64) -> Option<Slot> {
        self.slot_of.get(&id).map(|&s| self.slot(s))
    }

    /// A slot for `id`: the one it holds, a free one, or the one of the
    /// holder farthest from the view by `distance` (which must be farther
    /// than `id` itself; `None` when every holder is nearer: `id` is not
    /// worth a slot now). Returns the slot and the id it was taken from.
    pub fn insert(
        &mut self,
        id: u64,
        distance: impl Fn(u64) -> u64,
    ) -> Option<(Slot, Option<u64>)> {
        if let Some(&s) = self.slot_of.get(&id) {
            return Some((self.slot(s), None));
        }
        if let Some(s) = self.free.pop() {
            self.holders[s as usize] = Some(id);
            self.slot_of.insert(id, s);
            return Some((self.slot(s), None));
        }
        let mine = distance(id);
        let (s, far, d) = self
            .holders
            .iter()
            .enumerate()
            .filter_map(|(s, h)| h.map(|h| (s as u32, h, distance(h))))
            .max_by_key(|&(s, _, d)| (d, std::cmp::Reverse(s)))?;
        if d <= mine {
            return None;
        }
        self.slot_of.remove(&far);
        self.holders[s as usize] = Some(id);
        self.slot_of.insert(id, s);
        Some((self.slot(s), Some(far)))
    }

    /// Frees `id`'s slot (its photo was edited or is gone).
    pub fn remove(&mut self, id: u64) {
        if let Some(s) = self.slot_of.remove(&id) {
            self.holders[s as usize] = None;
            self.free.push(s);
        }
    }

    fn slot(&self, s: u32) -> Slot {
        let per_page = self.per_row * self.per_row;
        let (page, k) = (s / per_page, s % per_page);
        Slot {
            page,
            x: (k % self.per_row) * self.slot_side,
            y: (k / self.per_row) * self.slot_side,
        }
    }
}
