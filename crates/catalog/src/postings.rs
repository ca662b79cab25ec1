//! Posting lists: the sorted document numbers that hold one trigram (or
//! live in one folder), packed as runs.
//!
//! Each run of consecutive documents is one entry:
//! `varint(gap << 1 | long)`, then `varint(length - 2)` when `long`. The gap
//! counts the documents skipped since the previous run ended. The photos of
//! one folder are consecutive documents, so a folder's trigrams cost a few
//! bytes per folder, not one per photo; scattered documents cost one varint
//! each.
//!
//! The runs follow a skip table: `varint(table bytes)`, then before every
//! [`SKIP_EVERY`]th run, where the previous run ended and where the run
//! starts in the run bytes, each as a varint delta from the entry before.
//! A search far ahead (a ranked search passing over a folder) jumps there
//! rather than decoding every run in between; the table is read forward
//! only, as the search moves.

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

/// Runs between two entries of a list's skip table.
const SKIP_EVERY: u32 = 32;

/// Builds one list from increasing document numbers.
#[derive(Default)]
pub(crate) struct ListWriter {
    /// The runs.
    bytes: Vec<u8>,
    /// The skip table's entries: (previous run's end, run offset).
    skips: Vec<(u32, u32)>,
    /// Runs written.
    runs: u32,
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
        if self.runs > 0 && self.runs.is_multiple_of(SKIP_EVERY) {
            self.skips.push((self.written_end, self.bytes.len() as u32));
        }
        self.runs += 1;
        let gap = u64::from(self.run_start - self.written_end);
        let long = self.run_len > 1;
        put_varint(&mut self.bytes, (gap << 1) | u64::from(long));
        if long {
            put_varint(&mut self.bytes, u64::from(self.run_len - 2));
        }
        self.written_end = self.run_start + self.run_len;
        self.run_len = 0;
    }

    /// The finished list's bytes: the skip table, then the runs.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        self.flush();
        let mut table = Vec::new();
        let (mut last_end, mut last_at) = (0, 0);
        for (end, at) in self.skips {
            put_varint(&mut table, u64::from(end - last_end));
            put_varint(&mut table, u64::from(at - last_at));
            (last_end, last_at) = (end, at);
        }
        let mut out = Vec::with_capacity(self.bytes.len() + table.len() + 2);
        put_varint(&mut out, table.len() as u64);
        out.extend_from_slice(&table);
        out.extend_from_slice(&self.bytes);
        out
    }
}

/// Walks one list.
#[derive(Clone)]
pub(crate) struct ListIter<'a> {
    /// The runs.
    bytes: &'a [u8],
    at: usize,
    /// The current run: `[next, end)`.
    next: u32,
    end: u32,
    /// The skip table, and where its next entry starts, with the entry
    /// before it (previous run's end, run offset).
    skips: &'a [u8],
    skip_at: usize,
    skipped: (u32, u32),
}

impl<'a> ListIter<'a> {
    /// A walk over a list's bytes; malformed ones are an empty list.
    pub(crate) fn new(list: &'a [u8]) -> ListIter<'a> {
        let mut at = 0;
        let split = get_varint(list, &mut at)
            .and_then(|n| usize::try_from(n).ok()?.checked_add(at))
            .filter(|&end| end <= list.len());
        let (skips, bytes) = match split {
            Some(end) => (&list[at..end], &list[end..]),
            None => (&[][..], &[][..]),
        };
        ListIter {
            bytes,
            at: 0,
            next: 0,
            end: 0,
            skips,
            skip_at: 0,
            skipped: (0, 0),
        }
    }

    /// Jumps past the runs that end at or before `target`, as far as the
    /// skip table reaches: to its last entry whose previous run ends
    /// there, when that lies ahead.
    fn skip_towards(&mut self, target: u32) {
        let mut jump = None;
        loop {
            let mut at = self.skip_at;
            let (Some(d_end), Some(d_at)) = (
                get_varint(self.skips, &mut at),
                get_varint(self.skips, &mut at),
            ) else {
                break;
            };
            let end = u64::from(self.skipped.0) + d_end;
            let run_at = u64::from(self.skipped.1) + d_at;
            let (Ok(end), Ok(run_at)) = (u32::try_from(end), u32::try_from(run_at)) else {
                break;
            };
            if end > target {
                break;
            }
            (self.skip_at, self.skipped) = (at, (end, run_at));
            jump = Some((end, run_at));
        }
        if let Some((end, at)) = jump
            && at as usize > self.at
        {
            (self.at, self.next, self.end) = (at as usize, end, end);
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
        if self.end <= target && self.skip_at < self.skips.len() {
            self.skip_towards(target);
        }
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
        assert_eq!(ListIter::new(&[0x05, 1, 2]).next_geq(0), None);
        assert_eq!(ListIter::new(&[0x02, 0xff, 0xff, 0x04]).next_geq(9), None);
    }

    proptest::proptest! {
        /// Long lists (with skip tables) answer every rising target as a
        /// scan of the documents does.
        #[test]
        fn skips_answer_as_a_scan(
            gaps in proptest::collection::vec((1u32..40, 1u32..5), 0..3000),
            steps in proptest::collection::vec(0u32..3000, 1..60),
        ) {
            let mut docs = Vec::new();
            let mut at = 0u32;
            for (gap, len) in gaps {
                at += gap;
                docs.extend(at..at + len);
                at += len;
            }
            let mut w = ListWriter::default();
            for &d in &docs {
                w.push(d);
            }
            let bytes = w.finish();
            let mut it = ListIter::new(&bytes);
            let mut target = 0u32;
            for step in steps {
                target += step;
                let want = docs.iter().copied().find(|&d| d >= target);
                proptest::prop_assert_eq!(it.next_geq(target), want, "target {}", target);
            }
        }
    }
}
