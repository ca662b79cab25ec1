//! Updates held back a few calls, so that a burst of updates overlaps its
//! cache misses.
//!
//! An update reads and rewrites its object's entry, and in a large grid
//! that entry is a cache miss. Applied at once, each update waits for its
//! own miss, and the branches that depend on the entry stop the processor
//! from starting the next update's load meanwhile: the misses come one
//! after another. Held back instead, an update only prefetches its entry
//! and is applied [`LAG`] updates later, when the line has arrived; the
//! fetches of the waiting updates overlap. Anything else that reads or
//! changes the grid first applies what waits (or, for `&self` reads, looks
//! at it), so the delay is never visible.

use super::layout::Entry;

/// How many updates wait. A miss to memory takes about as long as a dozen
/// applied updates, so the line of the newest one arrives by its turn.
pub(crate) const LAG: usize = 16;

/// A first-in first-out queue of at most [`LAG`] new boxes, each an
/// [`Entry`] whose `id` is the handle index (its `reach` is unused).
#[derive(Clone, Debug)]
pub(crate) struct UpdateLag {
    items: [Entry; LAG],
    /// Index of the oldest item.
    head: usize,
    len: usize,
}

impl Default for UpdateLag {
    fn default() -> Self {
        Self {
            items: [Entry::gap(0.0, 0.0); LAG],
            head: 0,
            len: 0,
        }
    }
}

impl UpdateLag {
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(crate) fn is_full(&self) -> bool {
        self.len == LAG
    }

    /// Queues `e`; the caller makes room first (see [`is_full`](Self::is_full)).
    pub(crate) fn push(&mut self, e: Entry) {
        debug_assert!(self.len < LAG);
        self.items[(self.head + self.len) % LAG] = e;
        self.len += 1;
    }

    /// The oldest waiting update.
    pub(crate) fn pop(&mut self) -> Option<Entry> {
        if self.len == 0 {
            return None;
        }
        let e = self.items[self.head];
        self.head = (self.head + 1) % LAG;
        self.len -= 1;
        Some(e)
    }

    /// Waiting updates, oldest first.
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = &Entry> {
        (0..self.len).map(|k| &self.items[(self.head + k) % LAG])
    }

    /// The newest waiting box of handle index `id`.
    pub(crate) fn latest(&self, id: u32) -> Option<&Entry> {
        self.iter().rev().find(|e| e.id == id)
    }

    /// Drops everything that waits (the grid is being emptied).
    pub(crate) fn clear(&mut self) {
        self.head = 0;
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: u32) -> Entry {
        Entry {
            id,
            ..Entry::gap(id as f32, 0.0)
        }
    }

    #[test]
    fn first_in_first_out_across_the_wrap() {
        let mut lag = UpdateLag::default();
        let mut next_in = 0u32;
        let mut next_out = 0u32;
        for round in 0..5 {
            while !lag.is_full() {
                lag.push(item(next_in));
                next_in += 1;
            }
            // Take out a varying number, so the head wraps at every offset.
            for _ in 0..(round * 3 + 1) {
                assert_eq!(lag.pop().map(|e| e.id), Some(next_out));
                next_out += 1;
            }
        }
        let ids: Vec<u32> = lag.iter().map(|e| e.id).collect();
        assert_eq!(ids, (next_out..next_in).collect::<Vec<_>>());
        while lag.pop().is_some() {}
        assert!(lag.is_empty());
    }

    #[test]
    fn latest_is_the_newest_of_an_id() {
        let mut lag = UpdateLag::default();
        lag.push(item(7));
        lag.push(item(3));
        lag.push(Entry {
            min_x: 99.0,
            ..item(7)
        });
        assert_eq!(lag.latest(7).map(|e| e.min_x), Some(99.0));
        assert_eq!(lag.latest(3).map(|e| e.min_x), Some(3.0));
        assert!(lag.latest(4).is_none());
        lag.clear();
        assert!(lag.latest(7).is_none());
    }
}
