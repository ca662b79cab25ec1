//! Posting lists: the sorted document numbers that hold one trigram (or
//! live in one folder), packed as runs.
//!
//! Each run of consecutive documents is one entry:
//! `varint(gap << 1 | long)`, then `varint(length - 2)` when `long`. The gap
//! counts the documents skipped since the previous run ended. The photos of
//! one folder are consecutive documents, so a folder's trigrams cost a few
//! bytes per folder, not one per photo; scattered documents cost one varint
//! each.

/// Appends `v` as a LEB128 varint.
pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a LEB128 varint at `*at`, or `None` at the end or on a malformed
/// one (more than ten bytes).
pub(crate) fn get_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

/// Builds one list from increasing document numbers.
#[derive(Default)]
pub(crate) struct ListWriter {
    pub(crate) bytes: Vec<u8>,
    /// Documents pushed.
    pub(crate) count: u32,
    /// Where the last written run ended (exclusive).
    written_end: u32,
    run_start: u32,
    run_len: u32,
}

impl ListWriter {
    /// Adds `doc`, which must be above every document pushed before (a
    /// repeat of the last one is ignored).
    pub(crate) fn push(&mut self, doc: u32) {
        if self.run_len > 0 {
            let end = self.run_start + self.run_len;
            if doc < end {
                return;
            }
            if doc == end {
                self.run_len += 1;
                self.count += 1;
                return;
            }
            self.flush();
        }
        self.run_start = doc;
        self.run_len = 1;
        self.count += 1;
    }

    fn flush(&mut self) {
        if self.run_len == 0 {
            return;
        }
        let gap = u64::from(self.run_start - self.written_end);
        let long = self.run_len > 1;
        put_varint(&mut self.bytes, (gap << 1) | u64::from(long));
        if long {
            put_varint(&mut self.bytes, u64::from(self.run_len - 2));
        }
        self.written_end = self.run_start + self.run_len;
        self.run_len = 0;
    }

    /// The finished list's bytes.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        self.flush();
        self.bytes
    }
}

/// Walks one list.
#[derive(Clone)]
pub(crate) struct ListIter<'a> {
    bytes: &'a [u8],
    at: usize,
    /// The current run: `[next, end)`.
    next: u32,
    end: u32,
}

impl<'a> ListIter<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> ListIter<'a> {
        ListIter {
            bytes,
            at: 0,
            next: 0,
            end: 0,
        }
    }

    /// Reads the next run; false at the end (or on malformed bytes).
    fn refill(&mut self) -> bool {
        let Some(head) = get_varint(self.bytes, &mut self.at) else {
            return false;
        };
        let len = if head & 1 == 1 {
            match get_varint(self.bytes, &mut self.at) {
                Some(extra) => extra.saturating_add(2),
                None => return false,
            }
        } else {
            1
        };
        let start = u64::from(self.end) + (head >> 1);
        let end = start + len;
        if end > u64::from(u32::MAX) {
            return false;
        }
        (self.next, self.end) = (start as u32, end as u32);
        true
    }

    /// The next run of consecutive documents, `[start, end)`.
    pub(crate) fn next_run(&mut self) -> Option<(u32, u32)> {
        if self.next >= self.end && !self.refill() {
            return None;
        }
        let run = (self.next, self.end);
        self.next = self.end;
        Some(run)
    }

    /// The first document at or above `target`.
    pub(crate) fn next_geq(&mut self, target: u32) -> Option<u32> {
        loop {
            if self.next < self.end && self.end > target {
                self.next = self.next.max(target);
                return Some(self.next);
            }
            if !self.refill() {
                self.next = self.end;
                return None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn lists_round_trip_and_skip() {
        // Runs, singles, big gaps.
        let docs: Vec<u32> = (0..5)
            .chain([7, 9, 10, 11, 200, 100_000, 100_001])
            .chain(1_000_000..1_000_300)
            .chain([u32::MAX - 2])
            .collect();
        let mut w = ListWriter::default();
        for &d in &docs {
            w.push(d);
            w.push(d);
        }
        assert_eq!(w.count as usize, docs.len());
        let bytes = w.finish();
        let mut it = ListIter::new(&bytes);
        let mut got = Vec::new();
        let mut t = 0;
        while let Some(d) = it.next_geq(t) {
            got.push(d);
            if d == u32::MAX {
                break;
            }
            t = d + 1;
        }
        assert_eq!(got, docs);
        for target in [0, 6, 8, 12, 150, 999_999, 1_000_150, u32::MAX - 3] {
            let want = docs.iter().copied().find(|&d| d >= target);
            assert_eq!(ListIter::new(&bytes).next_geq(target), want, "{target}");
        }
        assert_eq!(ListIter::new(&bytes).next_geq(u32::MAX), None);
        // Malformed bytes end the list; they never panic.
        assert_eq!(ListIter::new(&[0xff; 12]).next_geq(0), None);
    }
}
