//! The grid's flat data: entries sorted by (level, row, min x), the rows
//! that index them, and the levels that group rows. Built by counting sort.
//!
//! A *level* holds the objects whose height is at most its row height
//! `2^exp` (and more than the next finer level's). A *row* of a level holds
//! the objects whose minimum y lies in `[key·2^exp, (key+1)·2^exp)`. Rows are
//! stored only when occupied, keyed by an `i64`, so the world's extent never
//! sizes an array. Within a row, entries are sorted by minimum x.
//!
//! Rows may contain *gaps*: dead entries that keep the sort order (their
//! `min_x` sits between their neighbours') and never intersect anything
//! (`max < min`). Gaps let an object that changes rows be re-filed by
//! shifting a few neighbours instead of the whole array.

use crate::error::{try_reserve, try_reserve_exact, try_size};
use crate::math::{ceil_log2, extent_up, floor_i64, pow2};
use crate::{Aabb, CollideError, Real, Vec2};

/// One object as the sweeps see it: its box, its handle index, and how far
/// right its row reaches up to it.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub(crate) struct Entry {
    pub min_x: Real,
    pub min_y: Real,
    pub max_x: Real,
    pub max_y: Real,
    /// Handle index, or [`GAP`].
    pub id: u32,
    /// At least the largest `max_x` of the live entries of its row up to and
    /// including it; never decreasing along a row. A window into the row
    /// for an object starting at `x` begins at the first entry whose reach
    /// is at least `x`: nothing before it can touch the object, whatever
    /// the widths.
    pub reach: Real,
}

// Hot data, sized on purpose: 4 coordinates, 1 index, 1 reach.
const _: () = assert!(std::mem::size_of::<Entry>() == 24);

/// The `id` of a gap entry.
pub(crate) const GAP: u32 = u32::MAX;

impl Entry {
    pub(crate) fn new(b: &Aabb, id: u32) -> Self {
        Self {
            min_x: b.min().x,
            min_y: b.min().y,
            max_x: b.max().x,
            max_y: b.max().y,
            id,
            reach: b.max().x,
        }
    }

    /// A dead entry that sorts at `min_x`, keeps the row's `reach`, and
    /// intersects nothing.
    pub(crate) fn gap(min_x: Real, reach: Real) -> Self {
        Self {
            min_x,
            min_y: Real::INFINITY,
            max_x: Real::NEG_INFINITY,
            max_y: Real::NEG_INFINITY,
            id: GAP,
            reach,
        }
    }

    /// The same box (the reach aside).
    #[inline]
    pub(crate) fn same_box(&self, o: &Entry) -> bool {
        self.min_x == o.min_x
            && self.min_y == o.min_y
            && self.max_x == o.max_x
            && self.max_y == o.max_y
    }

    #[inline]
    pub(crate) fn is_gap(&self) -> bool {
        self.id == GAP
    }

    /// Closed-box intersection (gaps never intersect).
    #[inline]
    pub(crate) fn overlaps(&self, o: &Entry) -> bool {
        self.min_x <= o.max_x
            && o.min_x <= self.max_x
            && self.min_y <= o.max_y
            && o.min_y <= self.max_y
    }

    pub(crate) fn aabb(&self) -> Option<Aabb> {
        Aabb::new(
            Vec2::new(self.min_x, self.min_y),
            Vec2::new(self.max_x, self.max_y),
        )
        .ok()
    }

    /// Height, rounded up.
    #[inline]
    pub(crate) fn height_up(&self) -> f64 {
        extent_up(self.min_y, self.max_y)
    }
}

/// An occupied row: a run of `entries`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Row {
    /// `floor(min_y / 2^exp)` of its objects (saturated to `i64`).
    pub key: i64,
    pub start: u32,
    pub end: u32,
    /// How many of its entries are gaps.
    pub gaps: u32,
}

/// A level: rows of height `2^exp`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Level {
    pub exp: i32,
    /// Its rows: `rows[row_start..row_end]`, ascending keys.
    pub row_start: u32,
    pub row_end: u32,
}

/// Exponents of row heights are kept in `EXP_MIN..=EXP_MAX`: every `f32`
/// height fits (from 2^-149 up to 2^129 for a box spanning ±`f32::MAX`).
pub(crate) const EXP_MIN: i32 = -150;
pub(crate) const EXP_MAX: i32 = 130;
const EXP_SLOTS: usize = (EXP_MAX - EXP_MIN + 1) as usize;
// A build keeps each object's height class as a u16.
const _: () = assert!(EXP_SLOTS <= u16::MAX as usize);

/// Row of `y` in a level of row height `2^exp`. Exact (a power-of-two scale
/// of an `f32` is exact in `f64`) and monotone; saturates at `i64`'s ends,
/// which only merges far-away rows (more tests, never a miss).
#[inline]
pub(crate) fn row_key(y: Real, exp: i32) -> i64 {
    floor_i64(f64::from(y) * pow2(-exp))
}

/// The exponent slot of an object of height `h` (0 for zero height).
#[inline]
fn exp_slot(h: f64) -> usize {
    if h > 0.0 {
        (ceil_log2(h).clamp(EXP_MIN + 1, EXP_MAX) - EXP_MIN) as usize
    } else {
        0
    }
}

/// A candidate level while levels are chosen: its row exponent (that of its
/// tallest class) and its objects' count and summed width.
#[derive(Clone, Copy, Debug)]
struct LevelGroup {
    exp: i32,
    count: f64,
    widths: f64,
}

/// A row seek (finding a window in a row of another level) costs about this
/// many candidate tests.
const SEEK_COST: f64 = 8.0;

/// Estimated candidate tests of a level on its own, over a world of `area`:
/// each object meets the objects of its level within about three widths in x
/// and one row height in y.
fn level_cost(g: &LevelGroup, area: f64) -> f64 {
    g.count * g.widths * 3.0 * pow2(g.exp.clamp(-1000, 1000)) / area
}

/// Estimated cost of finding the pairs between two levels, from the cheaper
/// side: window tests plus row seeks (the outer level's objects each seek
/// the inner rows under them).
fn pair_cost(a: &LevelGroup, b: &LevelGroup, area: f64) -> f64 {
    let mean = |g: &LevelGroup| g.widths / g.count.max(1.0);
    let h = |e: i32| pow2(e.clamp(-1000, 1000));
    let windows = a.count * b.count / area * (mean(a) + mean(b)) * (h(a.exp) + h(b.exp));
    let span = |from: i32, to: i32| {
        if from > to {
            h((from - to).min(1000))
        } else {
            1.0
        }
    };
    let seeks_a = a.count * (span(a.exp, b.exp) + 2.0);
    let seeks_b = b.count * (span(b.exp, a.exp) + 2.0);
    windows + SEEK_COST * seeks_a.min(seeks_b)
}

/// Merges adjacent groups (sorted by exponent) while that lowers the total
/// estimated cost, best merge first.
fn merge_levels(groups: &mut Vec<LevelGroup>, area: f64) {
    let merged = |a: &LevelGroup, b: &LevelGroup| LevelGroup {
        exp: a.exp.max(b.exp),
        count: a.count + b.count,
        widths: a.widths + b.widths,
    };
    while groups.len() > 1 {
        // Gain of merging groups i and i+1: their own and pair costs, and
        // their pair costs with every other group, before minus after.
        let mut best: Option<(f64, usize)> = None;
        for i in 0..groups.len() - 1 {
            let (a, b) = (&groups[i], &groups[i + 1]);
            let m = merged(a, b);
            let mut before = level_cost(a, area) + level_cost(b, area) + pair_cost(a, b, area);
            let mut after = level_cost(&m, area);
            for (j, o) in groups.iter().enumerate() {
                if j != i && j != i + 1 {
                    before += pair_cost(a, o, area) + pair_cost(b, o, area);
                    after += pair_cost(&m, o, area);
                }
            }
            let gain = before - after;
            if gain > 0.0 && best.is_none_or(|(g, _)| gain > g) {
                best = Some((gain, i));
            }
        }
        let Some((_, i)) = best else { break };
        groups[i] = merged(&groups[i], &groups[i + 1]);
        groups.remove(i + 1);
    }
}

/// The sorted, indexed objects.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    pub entries: Vec<Entry>,
    pub rows: Vec<Row>,
    pub levels: Vec<Level>,
    /// Level index of each exponent slot; `u8::MAX` where no level fits
    /// (taller than the tallest level).
    level_of_slot: Vec<u8>,
    /// Live (non-gap) entries.
    pub live: usize,
}

impl Default for Layout {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
            rows: Vec::new(),
            levels: Vec::new(),
            level_of_slot: vec![u8::MAX; EXP_SLOTS],
            live: 0,
        }
    }
}

/// Reused buffers of a build: a rebuild every frame allocates nothing sized
/// by the objects once these have grown (only a few vectors sized by the
/// levels and threads).
#[derive(Clone, Debug, Default)]
pub(crate) struct BuildScratch {
    /// Per source object its height class (fewer than 2^16 of them).
    classes: Vec<u16>,
    /// Per source object its row, then its place in the row, for builds
    /// without `positions` (which hold them otherwise).
    source_rows: Vec<u32>,
    /// Per chunk of the input and row of every level: count, then the
    /// chunk's next position in the row.
    hist: Vec<u32>,
    /// Per row of every level: live count, then first position.
    row_start: Vec<u32>,
    /// One row sort per run of rows sorted at once.
    row_sorts: Vec<RowSort>,
    /// Fallback sort keys for worlds too sparse for counting: (level, row, x order, source).
    sort_keys: Vec<(u32, i64, u32, u32)>,
}

impl BuildScratch {
    pub(crate) fn bytes(&self) -> usize {
        self.classes.capacity() * 2
            + (self.source_rows.capacity() + self.hist.capacity() + self.row_start.capacity()) * 4
            + self.sort_keys.capacity() * 24
            + self.row_sorts.iter().map(RowSort::bytes).sum::<usize>()
    }
}

/// Geometry of one level during a build.
#[derive(Clone, Copy, Debug)]
struct LevelPlan {
    exp: i32,
    count: u32,
    row_min: i64,
    row_max: i64,
}

impl LevelPlan {
    /// The row of `e` in this level, counted from the level's first.
    #[inline]
    fn row_of(&self, e: &Entry) -> usize {
        // In counting mode the row range is small, so the wrapping
        // difference is the true (non-negative) offset.
        row_key(e.min_y, self.exp).wrapping_sub(self.row_min) as usize
    }
}

/// Runs independent pieces of a build or a sweep: serially, or on rayon.
pub(crate) trait Exec: Sync {
    /// How many pieces to cut work into (about one per thread).
    fn width(&self) -> usize;
    /// `f(0), …, f(k - 1)`, possibly at once; results in order.
    fn map<T: Send, F: Fn(usize) -> T + Sync>(&self, k: usize, f: F) -> Vec<T>;
}

/// One thread.
pub(crate) struct Serial;

impl Exec for Serial {
    fn width(&self) -> usize {
        1
    }
    fn map<T: Send, F: Fn(usize) -> T + Sync>(&self, k: usize, f: F) -> Vec<T> {
        (0..k).map(f).collect()
    }
}

/// Asks for the cache line holding `*p` without waiting for it.
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch is a hint; it never faults and reads nothing
        // the program can observe, whatever the address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// A buffer that several workers write at disjoint indices (the counting
/// sort's order, per-chunk histograms, runs of rows). Bounds are checked;
/// disjointness is the caller's promise.
pub(crate) struct Disjoint<T> {
    ptr: *mut T,
    len: usize,
}

impl<T> Clone for Disjoint<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Disjoint<T> {}

// SAFETY: a `Disjoint` is only a pointer; its users promise that no two
// workers touch the same index in one phase, and the buffer outlives the phase.
unsafe impl<T: Send> Send for Disjoint<T> {}
unsafe impl<T: Send> Sync for Disjoint<T> {}

impl<T> Disjoint<T> {
    pub(crate) fn new(s: &mut [T]) -> Self {
        Self {
            ptr: s.as_mut_ptr(),
            len: s.len(),
        }
    }

    /// # Safety
    /// No other worker accesses index `i` during this phase.
    #[inline]
    pub(crate) unsafe fn write(&self, i: usize, v: T) {
        assert!(i < self.len, "disjoint write out of bounds");
        // SAFETY: in bounds; exclusive by the caller's promise.
        unsafe { self.ptr.add(i).write(v) }
    }

    /// # Safety
    /// No other worker writes index `i` during this phase.
    #[inline]
    pub(crate) unsafe fn read(&self, i: usize) -> T
    where
        T: Copy,
    {
        assert!(i < self.len, "disjoint read out of bounds");
        // SAFETY: in bounds; no concurrent writer by the caller's promise.
        unsafe { self.ptr.add(i).read() }
    }

    /// # Safety
    /// No other worker accesses any index of `range` during this phase.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn slice_mut(&self, range: std::ops::Range<usize>) -> &mut [T] {
        assert!(
            range.start <= range.end && range.end <= self.len,
            "disjoint slice out of bounds"
        );
        // SAFETY: in bounds; exclusive by the caller's promise.
        unsafe {
            std::slice::from_raw_parts_mut(self.ptr.add(range.start), range.end - range.start)
        }
    }
}

/// Splits `rows` into at most `parts` contiguous runs of about equal entry
/// counts (sweep and sort work is roughly proportional to entries).
pub(crate) fn split_rows(rows: &[Row], parts: usize) -> Vec<std::ops::Range<usize>> {
    split_by_weight(rows.len(), parts, |i| u64::from(rows[i].end))
}

/// Cuts `0..len` into at most `parts` contiguous, non-empty runs of about
/// equal weight, where `upto(i)` is the weight of items `0..=i` (never
/// decreasing): each cut falls after the last item whose running weight is
/// within that fraction of the total.
pub(crate) fn split_by_weight(
    len: usize,
    parts: usize,
    upto: impl Fn(usize) -> u64,
) -> Vec<std::ops::Range<usize>> {
    let total = if len == 0 { 0 } else { upto(len - 1) };
    let parts = parts.max(1);
    let mut out = Vec::with_capacity(parts);
    let mut start = 0usize;
    for k in 1..=parts {
        let end = if k == parts {
            len
        } else {
            let target = (u128::from(total) * k as u128 / parts as u128) as u64;
            // The first item whose running weight passes the target.
            let (mut lo, mut hi) = (start, len);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if upto(mid) <= target {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            lo
        };
        if end > start {
            out.push(start..end);
        }
        start = end;
    }
    out
}

/// Sets the reach of the row's entries and turns its tail slots into gaps
/// that sort after the last live entry.
fn finish_row(es: &mut [Entry], row: &Row) {
    let live_end = es.len() - row.gaps as usize;
    let mut reach = Real::NEG_INFINITY;
    for e in &mut es[..live_end] {
        reach = reach.max(e.max_x);
        e.reach = reach;
    }
    fill_gaps(es, row);
}

/// Turns the row's tail slots into gaps that sort after the last live
/// entry and keep its reach (the live entries' reach is set).
fn fill_gaps(es: &mut [Entry], row: &Row) {
    let live_end = es.len() - row.gaps as usize;
    let (last_x, reach) = es[..live_end]
        .last()
        .map_or((0.0, Real::NEG_INFINITY), |e| (e.min_x, e.reach));
    for g in &mut es[live_end..] {
        *g = Entry::gap(last_x, reach);
    }
}

/// How many entries of a row (sorted by min x) start at or before `x`: the
/// partition point, found from where `x` falls between the row's ends
/// (rows are usually spread evenly in x) by galloping from there. A
/// binary search over a long row misses the cache at nearly every probe;
/// this touches a few lines around the answer.
pub(crate) fn count_starting_by(es: &[Entry], x: Real) -> usize {
    let n = es.len();
    if n < 16 {
        return es.partition_point(|e| e.min_x <= x);
    }
    let (first, last) = (f64::from(es[0].min_x), f64::from(es[n - 1].min_x));
    let span = last - first;
    let guess = if span > 0.0 {
        ((f64::from(x) - first) / span * (n - 1) as f64).clamp(0.0, (n - 1) as f64) as usize
    } else {
        0
    };
    let after = |lo: usize, hi: usize| lo + 1 + es[lo + 1..hi].partition_point(|e| e.min_x <= x);
    if es[guess].min_x <= x {
        // The answer is after `guess`: gallop right, keeping es[lo] <= x.
        let (mut lo, mut step) = (guess, 1);
        loop {
            let hi = lo + step;
            if hi >= n {
                return after(lo, n);
            }
            if es[hi].min_x > x {
                return after(lo, hi);
            }
            lo = hi;
            step *= 2;
        }
    } else {
        // The answer is at or before `guess`: gallop left, keeping es[hi] > x.
        let (mut hi, mut step) = (guess, 1);
        loop {
            if hi < step {
                return es[..hi].partition_point(|e| e.min_x <= x);
            }
            let lo = hi - step;
            if es[lo].min_x <= x {
                return after(lo, hi);
            }
            hi = lo;
            step *= 2;
        }
    }
}

/// Sorts the keys of a row that the counting sort left sorted by column
/// bin, so nearly sorted: an insertion sort whose common step (one place
/// down or none) is a max without a branch, with a whole sort as the
/// fallback if the row turns out far from sorted.
fn sort_keys(keys: &mut [u64]) {
    let Some(&first) = keys.first() else { return };
    let budget = 8 * keys.len() + 16;
    let mut moves = 0usize;
    // The key now at `i - 1`.
    let mut before = first;
    for i in 1..keys.len() {
        let x = keys[i];
        let up = before.max(x);
        keys[i] = up;
        let mut j = i - usize::from(x < before);
        before = up;
        if j > 0 && x < keys[j - 1] {
            while j > 0 && x < keys[j - 1] {
                keys[j] = keys[j - 1];
                j -= 1;
            }
            moves += i - j;
            if moves > budget {
                keys[j] = x;
                keys.sort_unstable();
                return;
            }
        }
        keys[j] = x;
    }
}

/// Sorts a build's rows: buffers reused from row to row.
#[derive(Clone, Debug, Default)]
pub(crate) struct RowSort {
    /// Per entry of the row, in bin order: min x's order bits, then the
    /// entry's place in the row.
    keys: Vec<u64>,
    /// The row's entries as they came, each with its bin in `reach` (in a
    /// long row's bucket, its place in the input).
    copy: Vec<Entry>,
    /// Per bin: count, then next place.
    bins: Vec<u32>,
}

impl RowSort {
    /// The longest row sorted with these buffers; longer rows (a few
    /// objects spread over a huge extent, a world of one row) are sorted
    /// in place, so the buffers stay small whatever the world.
    pub(crate) const LONGEST: usize = 1 << 14;

    /// Room for rows of `n` entries (at most [`Self::LONGEST`]).
    fn reserve(&mut self, n: usize) -> Result<(), CollideError> {
        let n = n.min(Self::LONGEST);
        // Each sort empties them first.
        self.keys.clear();
        self.copy.clear();
        self.bins.clear();
        let what = "grid row sort";
        try_reserve_exact(&mut self.keys, n, what)?;
        try_reserve_exact(&mut self.copy, n, what)?;
        try_reserve_exact(&mut self.bins, n, what)
    }

    pub(crate) fn bytes(&self) -> usize {
        self.keys.capacity() * 8
            + self.copy.capacity() * std::mem::size_of::<Entry>()
            + self.bins.capacity() * 4
    }

    /// Sorts `es`, a row's live entries in input order, by min x, ties in
    /// input order (-0 and +0 tie), and sets their reach. A counting sort
    /// by bin of x (equal widths over `x_range`, which holds every min x,
    /// one bin per entry, so monotone in x) leaves the keys nearly sorted,
    /// and `sort_keys` finishes them.
    fn sort(&mut self, es: &mut [Entry], (lo, hi): (f64, f64)) {
        let n = es.len();
        let mut reach = Real::NEG_INFINITY;
        if n > self.keys.capacity() || n > self.copy.capacity() || n > self.bins.capacity() {
            self.sort_long(es, (lo, hi));
            for e in es.iter_mut() {
                reach = reach.max(e.max_x);
                e.reach = reach;
            }
            return;
        }
        let scale = if hi > lo { n as f64 / (hi - lo) } else { 0.0 };
        let last = n.saturating_sub(1);
        self.bins.clear();
        self.bins.resize(n, 0);
        self.copy.clear();
        for e in es.iter() {
            let bin = (((f64::from(e.min_x) - lo) * scale) as usize).min(last);
            self.bins[bin] += 1;
            self.copy.push(Entry {
                reach: Real::from_bits(bin as u32),
                ..*e
            });
        }
        prefix_counts(&mut self.bins);
        self.keys.clear();
        self.keys.resize(n, 0);
        for (k, e) in self.copy.iter().enumerate() {
            let bin = &mut self.bins[e.reach.to_bits() as usize];
            self.keys[*bin as usize] = sort_key(e, k);
            *bin += 1;
        }
        sort_keys(&mut self.keys);
        for (slot, &key) in es.iter_mut().zip(&self.keys) {
            let e = self.copy[key as u32 as usize];
            reach = reach.max(e.max_x);
            *slot = Entry { reach, ..e };
        }
    }

    /// A row longer than the buffers (a world of one long strip, or a few
    /// objects over a huge extent), sorted by min x, ties in input order;
    /// the reach is left to the caller. It is cut in place into buckets of
    /// x of about half the buffers' room (each entry moved once, to the
    /// next free place of its bucket), and each bucket is sorted as a short
    /// row is. The cut does not keep the input order, so each entry's place
    /// in the input waits in its reach, and ties are put back in that order
    /// (`sort_bucket`). A bucket that still overflows the buffers (objects
    /// piled at one x) is sorted whole, as are rows whose x range is a
    /// point. One row of 100k objects builds in 2.8 ms instead of 4.6 with
    /// a whole sort, of a million in 33 instead of 54.
    fn sort_long(&mut self, es: &mut [Entry], (lo, hi): (f64, f64)) {
        let n = es.len();
        for (k, e) in es.iter_mut().enumerate() {
            e.reach = Real::from_bits(k as u32);
        }
        let room = self
            .keys
            .capacity()
            .min(self.copy.capacity())
            .min(self.bins.capacity());
        let buckets = (2 * n).div_ceil(room.max(1));
        if hi <= lo || room < 2 || 2 * buckets > self.bins.capacity() {
            sort_whole(es);
            return;
        }
        let scale = buckets as f64 / (hi - lo);
        // In f32, which is monotone too and shortens the chain of loads
        // and bucket computations that the cut below is.
        let (lo32, scale32) = (lo as f32, scale as f32);
        let bucket_of = |e: &Entry| (((e.min_x - lo32) * scale32) as usize).min(buckets - 1);
        // `bins[b]`: the next place of bucket `b`; `bins[buckets + b]`: its end.
        self.bins.clear();
        self.bins.resize(2 * buckets, 0);
        for e in es.iter() {
            self.bins[bucket_of(e)] += 1;
        }
        prefix_counts(&mut self.bins[..buckets]);
        for b in 0..buckets {
            let end = if b + 1 < buckets {
                self.bins[b + 1]
            } else {
                n as u32
            };
            self.bins[buckets + b] = end;
        }
        let (next, ends) = self.bins.split_at_mut(buckets);
        for b in 0..buckets {
            while next[b] < ends[b] {
                let mut e = es[next[b] as usize];
                let mut t = bucket_of(&e);
                while t != b {
                    let at = next[t] as usize;
                    // Each bucket's next places are read in order: ask
                    // for them early (a row of a million is not cached).
                    prefetch(es.as_ptr().wrapping_add(at + 8));
                    std::mem::swap(&mut e, &mut es[at]);
                    next[t] += 1;
                    t = bucket_of(&e);
                }
                es[next[b] as usize] = e;
                next[b] += 1;
            }
        }
        // The buckets are in order now (`sort_bucket` reuses `bins`, so
        // each bucket's end is found again by its entries' buckets).
        let mut start = 0usize;
        while start < n {
            let b = bucket_of(&es[start]);
            let end = start + es[start..].partition_point(|e| bucket_of(e) <= b);
            let x_range = (lo + b as f64 / scale, lo + (b + 1) as f64 / scale);
            self.sort_bucket(&mut es[start..end], x_range);
            start = end;
        }
    }

    /// Sorts `es` (at most the buffers' room, or else whole) by min x, ties
    /// in order of their reach bits (their places in the input), leaving
    /// the reach as it was. Bins as in [`sort`](Self::sort), over `x_range`
    /// (roughly that of `es`: any range gives the right order).
    fn sort_bucket(&mut self, es: &mut [Entry], (lo, hi): (f64, f64)) {
        let n = es.len();
        if n > self.keys.capacity() || n > self.copy.capacity() || n > self.bins.capacity() {
            sort_whole(es);
            return;
        }
        let scale = if hi > lo { n as f64 / (hi - lo) } else { 0.0 };
        let last = n.saturating_sub(1);
        let bin_of = |e: &Entry| (((f64::from(e.min_x) - lo) * scale) as usize).min(last);
        self.bins.clear();
        self.bins.resize(n, 0);
        for e in es.iter() {
            self.bins[bin_of(e)] += 1;
        }
        prefix_counts(&mut self.bins);
        self.copy.clear();
        self.copy.extend_from_slice(es);
        self.keys.clear();
        self.keys.resize(n, 0);
        for (k, e) in self.copy.iter().enumerate() {
            let bin = &mut self.bins[bin_of(e)];
            self.keys[*bin as usize] = sort_key(e, k);
            *bin += 1;
        }
        sort_keys(&mut self.keys);
        // Equal min x (rare): back in input order.
        let copy = &self.copy;
        for run in self.keys.chunk_by_mut(|a, b| a >> 32 == b >> 32) {
            if run.len() > 1 {
                run.sort_unstable_by_key(|&key| copy[key as u32 as usize].reach.to_bits());
            }
        }
        for (slot, &key) in es.iter_mut().zip(&self.keys) {
            *slot = self.copy[key as u32 as usize];
        }
    }
}

/// Sorts `es` by min x, ties in order of their reach bits, with no buffer.
fn sort_whole(es: &mut [Entry]) {
    es.sort_unstable_by_key(|e| sort_key(e, e.reach.to_bits() as usize));
}

/// An entry's sort key: min x's order bits (-0 as +0), then `k`.
#[inline]
fn sort_key(e: &Entry, k: usize) -> u64 {
    u64::from(order_bits(e.min_x + 0.0)) << 32 | k as u64
}

/// Counts to the place of each count's first item (an exclusive prefix sum).
fn prefix_counts(counts: &mut [u32]) {
    let mut at = 0u32;
    for c in counts {
        let count = *c;
        *c = at;
        at += count;
    }
}

/// Orders `f32`s as integers (total order; -0 before +0).
#[inline]
fn order_bits(x: Real) -> u32 {
    let b = x.to_bits();
    if b >> 31 == 1 { !b } else { b | 0x8000_0000 }
}

impl Layout {
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
        self.rows.clear();
        self.levels.clear();
        self.level_of_slot.fill(u8::MAX);
        self.live = 0;
    }

    pub(crate) fn bytes(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<Entry>()
            + self.rows.capacity() * std::mem::size_of::<Row>()
            + self.levels.capacity() * std::mem::size_of::<Level>()
            + self.level_of_slot.capacity()
    }

    /// The level an object of height `h` belongs to, if the layout has one
    /// tall enough.
    #[inline]
    pub(crate) fn level_for_height(&self, h: f64) -> Option<usize> {
        let l = self.level_of_slot[exp_slot(h)];
        (l != u8::MAX).then_some(l as usize)
    }

    /// Index of the row of `level` with `key`, if occupied.
    pub(crate) fn find_row(&self, level: usize, key: i64) -> Option<usize> {
        let lv = self.levels[level];
        let rows = &self.rows[lv.row_start as usize..lv.row_end as usize];
        rows.binary_search_by(|r| r.key.cmp(&key))
            .ok()
            .map(|k| lv.row_start as usize + k)
    }

    /// Index of the row holding entry position `pos`. Rows are usually of
    /// similar lengths, so the row at the same fraction of the rows is a
    /// close guess; a few steps from it, else a binary search.
    pub(crate) fn row_at(&self, pos: usize) -> usize {
        let (rows, n) = (&self.rows, self.entries.len().max(1));
        // Positions and row counts stay below 2^31, so the product fits.
        let guess = (pos as u64 * rows.len() as u64 / n as u64) as usize;
        let mut r = guess.min(rows.len().saturating_sub(1));
        for _ in 0..8 {
            match rows.get(r) {
                Some(row) if (row.end as usize) <= pos => r += 1,
                Some(row) if (row.start as usize) > pos && r > 0 => r -= 1,
                _ => return r,
            }
        }
        rows.partition_point(|r| (r.end as usize) <= pos)
    }

    /// Rebuilds from `n` source objects (`src(i)` gives the i-th, never a
    /// gap). Entries are placed by a counting sort on (level, row), then
    /// each row is sorted by min x (ties in input order). With `gaps`,
    /// every row gets about one free slot per eight entries, spread
    /// through it.
    ///
    /// With `positions`, `positions[id]` receives a position in each
    /// object's row: where the object was before its row was sorted, or
    /// its final place (only when ids are source indices `0..n`). The exact
    /// places cost a write at random per object, a sixth of a build at a
    /// million objects, and `Grid` sets them only once a handle needs one.
    ///
    /// The work is split into input chunks run by `exec`; where an object
    /// lands does not depend on the number of chunks.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn build<S, E>(
        &mut self,
        n: usize,
        src: S,
        gaps: bool,
        scratch: &mut BuildScratch,
        exec: &E,
        positions: Option<&mut [u32]>,
    ) -> Result<(), CollideError>
    where
        S: Fn(usize) -> Entry + Sync,
        E: Exec,
    {
        self.clear();
        if n == 0 {
            return Ok(());
        }
        let chunks = exec.width().clamp(1, n.div_ceil(4096));
        let chunk = |c: usize| c * n / chunks..(c + 1) * n / chunks;

        // Pass 1: each object's height class (kept in `classes`), the
        // histogram of classes, and the bounding box of the minimum corners.
        try_size(&mut scratch.classes, n, 0, "grid build classes")?;
        let classes = Disjoint::new(&mut scratch.classes);
        let parts = exec.map(chunks, |c| {
            let mut hist = [0u32; EXP_SLOTS];
            let mut widths = [0f64; EXP_SLOTS];
            let mut b = [
                f32::INFINITY,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NEG_INFINITY,
            ];
            for i in chunk(c) {
                let e = src(i);
                let slot = exp_slot(e.height_up());
                hist[slot] += 1;
                widths[slot] += f64::from(e.max_x) - f64::from(e.min_x);
                // SAFETY: chunks are disjoint ranges of indices.
                unsafe { classes.write(i, slot as u16) };
                b = [
                    b[0].min(e.min_x),
                    b[1].min(e.min_y),
                    b[2].max(e.min_x),
                    b[3].max(e.min_y),
                ];
            }
            (hist, widths, b)
        });
        let mut hist_exp = [0u32; EXP_SLOTS];
        let mut widths = [0f64; EXP_SLOTS];
        let mut corners = [
            f32::INFINITY,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NEG_INFINITY,
        ];
        for (h, w, b) in &parts {
            for (t, x) in hist_exp.iter_mut().zip(h) {
                *t += x;
            }
            for (t, x) in widths.iter_mut().zip(w) {
                *t += x;
            }
            corners = [
                corners[0].min(b[0]),
                corners[1].min(b[1]),
                corners[2].max(b[2]),
                corners[3].max(b[3]),
            ];
        }
        let area = (f64::from(corners[2]) - f64::from(corners[0]))
            * (f64::from(corners[3]) - f64::from(corners[1]));
        self.choose_levels(
            &hist_exp,
            &widths,
            n,
            area,
            f64::from(corners[3]) - f64::from(corners[1]),
        );

        // Level geometry from the counts and the corner box: row and column
        // ranges are those of the box (a superset of the level's own).
        let mut plans: Vec<LevelPlan> = Vec::new();
        try_reserve(&mut plans, self.levels.len(), "grid level plans")?;
        for l in &self.levels {
            plans.push(LevelPlan {
                exp: l.exp,
                count: 0,
                row_min: row_key(corners[1], l.exp),
                row_max: row_key(corners[3], l.exp),
            });
        }
        for (slot, &count) in hist_exp.iter().enumerate() {
            let l = self.level_of_slot[slot];
            if l != u8::MAX {
                plans[l as usize].count += count;
            }
        }

        // Counting needs a histogram of every row of every level: worlds
        // with far more rows than objects (a few objects spread over a huge
        // extent) are sorted instead.
        let all_rows: u128 = plans
            .iter()
            .map(|p| (i128::from(p.row_max) - i128::from(p.row_min) + 1) as u128)
            .sum();
        let counting = all_rows <= 2 * n as u128 + 1024;

        let positions = positions.map(Disjoint::new);
        if counting {
            self.place_by_counting(
                n,
                &src,
                &plans,
                (f64::from(corners[0]), f64::from(corners[2])),
                gaps,
                scratch,
                exec,
                chunks,
                positions,
            )?;
        } else {
            self.place_by_sorting(n, &src, &plans, gaps, scratch, positions)?;
            self.finish_rows(exec);
        }
        if gaps {
            self.spread_gaps();
        }
        self.live = n;
        Ok(())
    }

    /// Re-spreads the layout in place: drops the gaps, merges in `extra`
    /// (objects not yet placed), and gives every row fresh gaps, keeping the
    /// levels. No second copy of the entries is made: rows are compacted
    /// forward, then filled backward from the new end, which never
    /// overwrites an entry not yet moved (every row ends at or after where
    /// its compacted entries end). Returns `false`, changing nothing, if an
    /// extra object needs a level the layout lacks.
    ///
    /// Positions of the objects change; the caller refreshes its handles.
    pub(crate) fn respread(&mut self, extra: &[Entry]) -> Result<bool, CollideError> {
        // Extra objects, sorted into place: (row key, index in `extra`,
        // level); 16 bytes each.
        let mut keyed: Vec<(i64, u32, u8)> = Vec::new();
        try_reserve(&mut keyed, extra.len(), "grid relayout")?;
        for (i, e) in extra.iter().enumerate() {
            let Some(l) = self.level_for_height(e.height_up()) else {
                return Ok(false);
            };
            keyed.push((row_key(e.min_y, self.levels[l].exp), i as u32, l as u8));
        }
        keyed.sort_unstable_by(|a, b| {
            let (ea, eb) = (&extra[a.1 as usize], &extra[b.1 as usize]);
            (a.2, a.0)
                .cmp(&(b.2, b.0))
                .then(ea.min_x.total_cmp(&eb.min_x))
                .then(ea.id.cmp(&eb.id))
        });
        let level_key = |k: &(i64, u32, u8)| (k.2 as usize, k.0);
        let entry = |k: &(i64, u32, u8)| extra[k.1 as usize];
        // The new rows: old rows (compacted later) merged with the extras'
        // rows, in (level, key) order. (level, key, old start, old live,
        // extra start, extra count).
        let mut plan: Vec<(usize, i64, usize, usize, usize, usize)> = Vec::new();
        try_reserve(&mut plan, self.rows.len() + keyed.len(), "grid relayout")?;
        let mut compact = 0usize;
        let mut k = 0usize;
        // The extras of one (level, key), starting at `k`.
        let run = |k: usize| {
            let lk = level_key(&keyed[k]);
            keyed[k..].iter().take_while(|x| level_key(x) == lk).count()
        };
        for (l, lv) in self.levels.iter().enumerate() {
            for row in &self.rows[lv.row_start as usize..lv.row_end as usize] {
                let live = (row.end - row.start - row.gaps) as usize;
                while k < keyed.len() && level_key(&keyed[k]) < (l, row.key) {
                    let (kl, kk) = level_key(&keyed[k]);
                    let n = run(k);
                    plan.push((kl, kk, compact, 0, k, n));
                    k += n;
                }
                let n = if k < keyed.len() && level_key(&keyed[k]) == (l, row.key) {
                    run(k)
                } else {
                    0
                };
                plan.push((l, row.key, compact, live, k, n));
                k += n;
                compact += live;
            }
        }
        while k < keyed.len() {
            let (kl, kk) = level_key(&keyed[k]);
            let n = run(k);
            plan.push((kl, kk, compact, 0, k, n));
            k += n;
        }
        let total: usize = plan
            .iter()
            .filter(|r| r.3 + r.5 > 0)
            .map(|r| (r.3 + r.5) + gap_count((r.3 + r.5) as u64) as usize)
            .sum();
        if total >= super::POS_LIMIT as usize {
            return Err(CollideError::TooManyObjects {
                count: compact + extra.len(),
                limit: super::MAX_OBJECTS as usize,
            });
        }
        if total > self.entries.len() {
            let more = total - self.entries.len();
            try_reserve_exact(&mut self.entries, more, "grid entries")?;
        }
        let rows_needed = plan.len().saturating_sub(self.rows.len());
        try_reserve(&mut self.rows, rows_needed, "grid rows")?;
        // Nothing can fail from here on: every buffer has its room.
        let mut w = 0usize;
        for p in 0..self.entries.len() {
            if !self.entries[p].is_gap() {
                self.entries[w] = self.entries[p];
                w += 1;
            }
        }
        debug_assert_eq!(w, compact);
        if total > self.entries.len() {
            self.entries
                .resize(total, Entry::gap(0.0, Real::NEG_INFINITY));
        }
        // Backward fill, row by row: live entry k of a row goes to offset
        // k + k / stride, leaving one gap after every `stride` entries.
        let mut end = total;
        for &(_, _, old_start, old_live, ext_start, ext_n) in plan.iter().rev() {
            let live = old_live + ext_n;
            if live == 0 {
                continue;
            }
            let g = gap_count(live as u64) as usize;
            let start = end - live - g;
            let stride = live.div_ceil(g);
            let (mut i, mut j) = (old_live, ext_n);
            for k in (0..live).rev() {
                // The larger min x goes last; on a tie the extra one.
                let take_extra = j > 0
                    && (i == 0
                        || entry(&keyed[ext_start + j - 1]).min_x
                            >= self.entries[old_start + i - 1].min_x);
                let e = if take_extra {
                    j -= 1;
                    entry(&keyed[ext_start + j])
                } else {
                    i -= 1;
                    self.entries[old_start + i]
                };
                self.entries[start + k + k / stride] = e;
            }
            end = start;
        }
        debug_assert_eq!(end, 0);
        self.entries.truncate(total);
        // Rows, gaps and reach, front to back.
        self.rows.clear();
        let mut at = 0usize;
        let mut level = usize::MAX;
        for &(l, key, _, old_live, _, ext_n) in &plan {
            let live = old_live + ext_n;
            if live == 0 {
                continue;
            }
            while level != l {
                level = level.wrapping_add(1);
                self.levels[level].row_start = self.rows.len() as u32;
                self.levels[level].row_end = self.rows.len() as u32;
            }
            let g = gap_count(live as u64) as usize;
            let stride = live.div_ceil(g);
            let (mut reach, mut last_x) = (Real::NEG_INFINITY, 0.0);
            let mut next = 0usize;
            for t in 0..live + g {
                let p = at + t;
                if next < live && t == next + next / stride {
                    let e = &mut self.entries[p];
                    reach = reach.max(e.max_x);
                    e.reach = reach;
                    last_x = e.min_x;
                    next += 1;
                } else {
                    self.entries[p] = Entry::gap(last_x, reach);
                }
            }
            self.rows.push(Row {
                key,
                start: at as u32,
                end: (at + live + g) as u32,
                gaps: g as u32,
            });
            at += live + g;
            self.levels[level].row_end = self.rows.len() as u32;
        }
        while level.wrapping_add(1) < self.levels.len() {
            level = level.wrapping_add(1);
            self.levels[level].row_start = self.rows.len() as u32;
            self.levels[level].row_end = self.rows.len() as u32;
        }
        self.live = compact + extra.len();
        Ok(true)
    }

    /// Picks the level exponents from the heights (classes of powers of two)
    /// and widths of the objects.
    ///
    /// Levels trade two costs. Objects much shorter than their row height
    /// meet more candidates that miss in y; objects of another level cost
    /// row seeks, each worth about [`SEEK_COST`] candidate tests. Starting
    /// from one level per height class, adjacent levels are merged while the
    /// estimate (see [`level_cost`]) drops, cheapest merge first.
    fn choose_levels(
        &mut self,
        hist: &[u32; EXP_SLOTS],
        widths: &[f64; EXP_SLOTS],
        n: usize,
        area: f64,
        y_span: f64,
    ) {
        let mut groups: Vec<LevelGroup> = (1..EXP_SLOTS)
            .filter(|&s| hist[s] > 0)
            .map(|s| LevelGroup {
                exp: s as i32 + EXP_MIN,
                count: f64::from(hist[s]),
                widths: widths[s].min(1e300),
            })
            .collect();
        let mut exps = Vec::new();
        if groups.is_empty() {
            // Only zero-height objects: rows sized so that about four
            // objects share a row on average.
            let guess = if y_span > 0.0 && n > 0 {
                ceil_log2((y_span * 4.0 / n as f64).max(f64::MIN_POSITIVE))
            } else {
                0
            };
            exps.push(guess.clamp(EXP_MIN + 1, EXP_MAX));
        } else {
            // Zero-height objects join the lowest level.
            groups[0].count += f64::from(hist[0]);
            groups[0].widths += widths[0].min(1e300);
            let area = area.max(f64::MIN_POSITIVE);
            merge_levels(&mut groups, area);
            exps.extend(groups.iter().map(|g| g.exp));
        }
        // Map each slot to the smallest level exponent at or above it: slot
        // exponents rise with the slot (slot 0, zero height, goes to the
        // first level), so one cursor walks the levels.
        let hist_exp = hist;
        let mut counts = vec![0u32; exps.len()];
        let mut l = 0usize;
        for (s, (level, &count)) in self.level_of_slot.iter_mut().zip(hist_exp).enumerate() {
            let exp = if s == 0 { exps[0] } else { s as i32 + EXP_MIN };
            while l < exps.len() && exps[l] < exp {
                l += 1;
            }
            *level = if l < exps.len() {
                counts[l] += count;
                l as u8
            } else {
                u8::MAX
            };
        }
        // Drop empty levels, renumbering the slots.
        let mut renumber = vec![u8::MAX; exps.len()];
        for (l, &exp) in exps.iter().enumerate() {
            if counts[l] > 0 {
                renumber[l] = self.levels.len() as u8;
                self.levels.push(Level {
                    exp,
                    row_start: 0,
                    row_end: 0,
                });
            }
        }
        if counts.iter().all(|&c| c > 0) {
            // Every level kept, numbered as it was (the common case).
            return;
        }
        for s in 0..EXP_SLOTS {
            let l = self.level_of_slot[s];
            if l != u8::MAX {
                // An empty level's slots move up to the next non-empty one.
                let mut k = l as usize;
                while k < exps.len() && renumber[k] == u8::MAX {
                    k += 1;
                }
                self.level_of_slot[s] = if k < exps.len() { renumber[k] } else { u8::MAX };
            }
        }
    }

    /// Places the objects by counting: each object's row (pass 3), rows
    /// and positions from the counts, the entries written to their rows in
    /// input order (pass 4), then each row sorted while it is in the cache
    /// (pass 5).
    ///
    /// Why rows and not finer buckets: a dense world has about a thousand
    /// rows at a million objects, so pass 4 writes a thousand streams, each
    /// a run of consecutive entries, and reads its input in order. Buckets
    /// of about one object each (rows by column bins) made those writes, or
    /// the reads that gather the entries afterwards, fall anywhere in the
    /// entries: a cache miss, and past the cache a trip to memory, each.
    #[allow(clippy::too_many_arguments)]
    fn place_by_counting<S, E>(
        &mut self,
        n: usize,
        src: &S,
        plans: &[LevelPlan],
        x_range: (f64, f64),
        gaps: bool,
        scratch: &mut BuildScratch,
        exec: &E,
        chunks: usize,
        positions: Option<Disjoint<u32>>,
    ) -> Result<(), CollideError>
    where
        S: Fn(usize) -> Entry + Sync,
        E: Exec,
    {
        let chunk = |c: usize| c * n / chunks..(c + 1) * n / chunks;
        let level_of_slot = &self.level_of_slot;
        // Dense row d of all levels: level l's are level_first_row[l]..[l + 1].
        let mut level_first_row: Vec<usize> = Vec::new();
        try_reserve(&mut level_first_row, plans.len() + 1, "grid level plans")?;
        let mut dense = 0usize;
        for p in plans {
            level_first_row.push(dense);
            dense += (p.row_max - p.row_min) as usize + 1;
        }
        level_first_row.push(dense);
        let cells = dense.checked_mul(chunks).ok_or(CollideError::OutOfMemory {
            what: "grid build histogram",
            bytes: usize::MAX,
        })?;
        // Each chunk zeroes its own histogram below, in parallel.
        try_size(&mut scratch.hist, cells, 0, "grid build histogram")?;
        // Pass 3: each object's row, counted per chunk. The rows go to
        // `positions` (where pass 4 replaces each with the object's place in
        // its row), or to a scratch array without it; `classes` are pass 1's
        // height classes.
        let BuildScratch {
            classes,
            source_rows,
            hist,
            row_start,
            row_sorts,
            ..
        } = scratch;
        let row_of = match positions {
            Some(p) => p,
            None => {
                try_size(source_rows, n, 0, "grid build rows")?;
                Disjoint::new(source_rows)
            }
        };
        let classes = &classes[..n];
        let counts_all = Disjoint::new(hist);
        exec.map(chunks, |c| {
            // SAFETY: chunk c owns its input indices and its histogram slice.
            let counts = unsafe { counts_all.slice_mut(c * dense..(c + 1) * dense) };
            counts.fill(0);
            let range = chunk(c);
            let rows = unsafe { row_of.slice_mut(range.clone()) };
            if let [plan] = plans {
                // One level (a world of one size): no lookups.
                for (i, d) in range.zip(rows.iter_mut()) {
                    let r = plan.row_of(&src(i));
                    *d = r as u32;
                    counts[r] += 1;
                }
            } else {
                for ((i, d), &class) in range.clone().zip(rows.iter_mut()).zip(&classes[range]) {
                    let l = level_of_slot[class as usize] as usize;
                    let r = level_first_row[l] + plans[l].row_of(&src(i));
                    *d = r as u32;
                    counts[r] += 1;
                }
            }
        });
        // Each row's live count, then the rows and their positions (each
        // row's gap slots at its end), then each chunk's first position in
        // each row, so that a row keeps its objects in input order.
        try_size(row_start, dense, 0, "grid rows")?;
        for (d, live) in row_start.iter_mut().enumerate() {
            *live = (0..chunks).map(|c| hist[c * dense + d]).sum();
        }
        let mut pos = 0u64;
        for (l, p) in plans.iter().enumerate() {
            self.levels[l].row_start = self.rows.len() as u32;
            let level_rows = level_first_row[l]..level_first_row[l + 1];
            for (r, first) in row_start[level_rows].iter_mut().enumerate() {
                let live = u64::from(*first);
                *first = pos as u32;
                if live == 0 {
                    continue;
                }
                let g = if gaps { gap_count(live) } else { 0 };
                let start = pos;
                pos += live + g;
                if pos >= u64::from(super::POS_LIMIT) {
                    return Err(CollideError::TooManyObjects {
                        count: n,
                        limit: super::MAX_OBJECTS as usize,
                    });
                }
                try_reserve(&mut self.rows, 1, "grid rows")?;
                self.rows.push(Row {
                    key: p.row_min + r as i64,
                    start: start as u32,
                    end: pos as u32,
                    gaps: g as u32,
                });
            }
            self.levels[l].row_end = self.rows.len() as u32;
        }
        for (d, &first) in row_start.iter().enumerate() {
            let mut at = first;
            for c in 0..chunks {
                let k = c * dense + d;
                let count = hist[k];
                hist[k] = at;
                at += count;
            }
        }

        // Pass 4: every entry to its row, in input order: reads in order,
        // writes a stream per row.
        let len = pos as usize;
        // Room for the gaps a later relayout adds, so it stays in place.
        let room = if gaps { len } else { len + len / 8 + 64 };
        if self.entries.capacity() < room {
            try_reserve_exact(&mut self.entries, room, "grid entries")?;
        }
        let entries = Disjoint::new(&mut self.entries.spare_capacity_mut()[..len]);
        let cursor = Disjoint::new(hist);
        exec.map(chunks, |c| {
            // SAFETY: chunk c owns its cursors and input indices; cursors
            // hand out disjoint positions.
            let cursors = unsafe { cursor.slice_mut(c * dense..(c + 1) * dense) };
            for i in chunk(c) {
                let d = unsafe { row_of.read(i) } as usize;
                let at = cursors[d] as usize;
                cursors[d] += 1;
                unsafe { entries.write(at, std::mem::MaybeUninit::new(src(i))) };
                // The object's place before its row is sorted: in its row.
                unsafe { row_of.write(i, at as u32) };
            }
        });

        // Pass 5: row by row, sorted by min x while the row is in the cache,
        // and finished.
        let parts = if exec.width() > 1 {
            exec.width() * 4
        } else {
            1
        };
        let groups = split_rows(&self.rows, parts);
        let longest = self
            .rows
            .iter()
            .map(|r| (r.end - r.start - r.gaps) as usize)
            .max()
            .unwrap_or(0)
            .min(RowSort::LONGEST);
        if row_sorts.len() < groups.len() {
            try_reserve(row_sorts, groups.len() - row_sorts.len(), "grid row sorts")?;
            row_sorts.resize_with(groups.len(), RowSort::default);
        }
        for sort in &mut row_sorts[..groups.len()] {
            sort.reserve(longest)?;
        }
        let sorts = Disjoint::new(&mut row_sorts[..groups.len()]);
        let rows = &self.rows;
        exec.map(groups.len(), |g| {
            // SAFETY: each group has its own row sort.
            let sort = unsafe { &mut sorts.slice_mut(g..g + 1)[0] };
            for row in &rows[groups[g].clone()] {
                let live = (row.end - row.start - row.gaps) as usize;
                // SAFETY: groups are disjoint runs of rows, whose entries are
                // disjoint runs of positions.
                let es = unsafe { entries.slice_mut(row.start as usize..row.end as usize) };
                // Gap slots: set by `fill_gaps` below.
                for slot in &mut es[live..] {
                    slot.write(Entry::gap(0.0, Real::NEG_INFINITY));
                }
                // SAFETY: pass 4 wrote the live slots, and the gap slots were
                // written just above.
                let es = unsafe { &mut *(std::ptr::from_mut(es) as *mut [Entry]) };
                sort.sort(&mut es[..live], x_range);
                fill_gaps(es, row);
            }
        });
        // SAFETY: the rows tile 0..len (each starts where the last ended),
        // and passes 4 and 5 wrote every slot of every row.
        unsafe { self.entries.set_len(len) };
        Ok(())
    }

    fn place_by_sorting<S: Fn(usize) -> Entry>(
        &mut self,
        n: usize,
        src: &S,
        plans: &[LevelPlan],
        gaps: bool,
        scratch: &mut BuildScratch,
        positions: Option<Disjoint<u32>>,
    ) -> Result<(), CollideError> {
        scratch.sort_keys.clear();
        try_reserve(&mut scratch.sort_keys, n, "grid build sort keys")?;
        for i in 0..n {
            let e = src(i);
            let l = u32::from(self.level_of_slot[usize::from(scratch.classes[i])]);
            let exp = plans[l as usize].exp;
            scratch
                .sort_keys
                .push((l, row_key(e.min_y, exp), order_bits(e.min_x), i as u32));
        }
        scratch.sort_keys.sort_unstable();
        // Count rows and their live sizes to place gaps.
        let mut len = 0usize;
        let mut row_count = 0usize;
        let mut k = 0;
        while k < n {
            let (l, r, _, _) = scratch.sort_keys[k];
            let mut m = k;
            while m < n && scratch.sort_keys[m].0 == l && scratch.sort_keys[m].1 == r {
                m += 1;
            }
            row_count += 1;
            len += m - k;
            if gaps {
                len += gap_count((m - k) as u64) as usize;
            }
            k = m;
        }
        if len >= super::POS_LIMIT as usize {
            return Err(CollideError::TooManyObjects {
                count: n,
                limit: super::MAX_OBJECTS as usize,
            });
        }
        try_reserve(&mut self.rows, row_count, "grid rows")?;
        try_reserve(&mut self.entries, len, "grid entries")?;
        let mut k = 0;
        let mut level = 0usize;
        while k < n {
            let (l, r, _, _) = scratch.sort_keys[k];
            while level < l as usize {
                self.levels[level].row_end = self.rows.len() as u32;
                level += 1;
                self.levels[level].row_start = self.rows.len() as u32;
            }
            let start = self.entries.len() as u32;
            let mut m = k;
            while m < n && scratch.sort_keys[m].0 == l && scratch.sort_keys[m].1 == r {
                let e = src(scratch.sort_keys[m].3 as usize);
                if let Some(positions) = positions {
                    // SAFETY: serial, and ids are unique.
                    unsafe { positions.write(e.id as usize, self.entries.len() as u32) };
                }
                self.entries.push(e);
                m += 1;
            }
            let g = if gaps {
                gap_count((m - k) as u64) as u32
            } else {
                0
            };
            for _ in 0..g {
                self.entries.push(Entry::gap(0.0, Real::NEG_INFINITY));
            }
            self.rows.push(Row {
                key: r,
                start,
                end: self.entries.len() as u32,
                gaps: g,
            });
            k = m;
        }
        while level < self.levels.len() {
            self.levels[level].row_end = self.rows.len() as u32;
            level += 1;
            if level < self.levels.len() {
                self.levels[level].row_start = self.rows.len() as u32;
            }
        }
        Ok(())
    }

    /// Sets the reach of each row's entries and marks its tail slots as gaps; unless the
    /// rows are `sorted` already, first sorts each row's live prefix by min
    /// x (insertion sort: the counting sort leaves them nearly sorted).
    /// Groups of rows run on `exec`.
    /// Sets every row's reach and gaps (a sorted build placed the entries).
    fn finish_rows<E: Exec>(&mut self, exec: &E) {
        let groups = split_rows(&self.rows, exec.width() * 4);
        let entries = Disjoint::new(&mut self.entries);
        let rows = &self.rows;
        exec.map(groups.len(), |g| {
            for row in &rows[groups[g].clone()] {
                // SAFETY: groups are disjoint runs of rows, whose entries are
                // disjoint runs of positions.
                let es = unsafe { entries.slice_mut(row.start as usize..row.end as usize) };
                finish_row(es, row);
            }
        });
    }

    /// Sets the reach of entries `from..to` (within row `r`) afresh: from
    /// the row's start, as tight as it can be; from inside the row,
    /// starting from the reach before `from`, which bounds everything
    /// before it. Either way no reach rises and none falls below the
    /// entries' running max, so the row stays valid. Updates only ever
    /// raise the reach (an object that moves left, or leaves, keeps the
    /// reach it gave the entries after it), so over many frames it drifts
    /// up and windows grow.
    pub(crate) fn refresh_reach(&mut self, r: usize, from: usize, to: usize) {
        let row = self.rows[r];
        debug_assert!(row.start as usize <= from && to <= row.end as usize);
        let mut reach = if from > row.start as usize {
            self.entries[from - 1].reach
        } else {
            Real::NEG_INFINITY
        };
        for e in &mut self.entries[from..to] {
            if !e.is_gap() {
                reach = reach.max(e.max_x);
            }
            e.reach = reach;
        }
    }

    /// Moves each row's tail gaps in among its entries: one after every
    /// `stride` live entries, so an insertion shifts a handful of neighbours.
    fn spread_gaps(&mut self) {
        for row in &self.rows {
            let g = row.gaps as usize;
            let start = row.start as usize;
            let live = (row.end - row.start) as usize - g;
            if g == 0 || live == 0 {
                continue;
            }
            let stride = live.div_ceil(g);
            let slot = |j: usize| start + j + j / stride;
            for j in (0..live).rev() {
                let to = slot(j);
                if to != start + j {
                    self.entries[to] = self.entries[start + j];
                }
            }
            let mut next_live = 0usize;
            let (mut last_x, mut last_reach) =
                (self.entries[start].min_x, self.entries[start].reach);
            for p in start..row.end as usize {
                if next_live < live && p == slot(next_live) {
                    last_x = self.entries[p].min_x;
                    last_reach = self.entries[p].reach;
                    next_live += 1;
                } else {
                    self.entries[p] = Entry::gap(last_x, last_reach);
                }
            }
        }
    }

    /// Checks every invariant of the layout; panics with a message naming the
    /// broken one. For tests and debug builds.
    pub(crate) fn validate(&self) {
        let mut live = 0usize;
        let mut next_start = 0u32;
        for (li, lv) in self.levels.iter().enumerate() {
            if li > 0 {
                assert!(self.levels[li - 1].exp < lv.exp, "levels ascend");
                assert_eq!(
                    self.levels[li - 1].row_end,
                    lv.row_start,
                    "levels tile rows"
                );
            } else {
                assert_eq!(lv.row_start, 0);
            }
            let rows = &self.rows[lv.row_start as usize..lv.row_end as usize];
            for (k, row) in rows.iter().enumerate() {
                if k > 0 {
                    assert!(rows[k - 1].key < row.key, "row keys ascend in a level");
                }
                assert_eq!(row.start, next_start, "rows tile entries");
                let index = lv.row_start as usize + k;
                assert_eq!(
                    self.row_at(row.start as usize),
                    index,
                    "row_at finds the first"
                );
                assert_eq!(
                    self.row_at(row.end as usize - 1),
                    index,
                    "row_at finds the last"
                );
                assert!(row.start < row.end, "rows are non-empty");
                next_start = row.end;
                let es = &self.entries[row.start as usize..row.end as usize];
                let mut gaps = 0;
                let mut reach = Real::NEG_INFINITY;
                for (m, e) in es.iter().enumerate() {
                    if m > 0 {
                        assert!(es[m - 1].min_x <= e.min_x, "row sorted by min x");
                        assert!(
                            es[m - 1].reach <= e.reach,
                            "reach never decreases along a row"
                        );
                    }
                    if !e.is_gap() {
                        reach = reach.max(e.max_x);
                    }
                    assert!(e.reach >= reach, "reach covers every live entry before it");
                    if e.is_gap() {
                        gaps += 1;
                        continue;
                    }
                    live += 1;
                    assert_eq!(row_key(e.min_y, lv.exp), row.key, "entry in its row");
                    assert_eq!(
                        self.level_for_height(e.height_up()),
                        Some(li),
                        "entry in its level"
                    );
                    assert!(e.height_up() <= pow2(lv.exp), "entry fits its row height");
                }
                assert_eq!(gaps, row.gaps, "row gap count");
            }
        }
        assert_eq!(
            next_start as usize,
            self.entries.len(),
            "rows cover all entries"
        );
        assert_eq!(live, self.live, "live count");
    }
}

/// Gap slots given to a row of `live` entries by a relayout.
fn gap_count(live: u64) -> u64 {
    live / 8 + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Runs tile the items in order, none empty, at most `parts` of
        /// them, and none heavier than a fair share plus one item.
        #[test]
        fn split_by_weight_tiles_and_balances(
            weights in proptest::collection::vec(prop_oneof![0u64..4, 0u64..1000], 0..200),
            parts in 1usize..20,
        ) {
            let mut upto = Vec::new();
            let mut sum = 0u64;
            for w in &weights {
                sum += w;
                upto.push(sum);
            }
            let runs = split_by_weight(weights.len(), parts, |i| upto[i]);
            prop_assert!(runs.len() <= parts);
            let mut next = 0;
            let heaviest = weights.iter().copied().max().unwrap_or(0);
            for r in &runs {
                prop_assert_eq!(r.start, next);
                prop_assert!(r.start < r.end);
                let w: u64 = weights[r.clone()].iter().sum();
                prop_assert!(w <= sum.div_ceil(parts as u64) + heaviest, "run {:?} weighs {}", r, w);
                next = r.end;
            }
            prop_assert_eq!(next, weights.len());
        }

        /// The row sort's keys come out sorted, whether nearly sorted (runs
        /// with local swaps, as the counting sort leaves them), repeated, or
        /// far from sorted (the fallback).
        #[test]
        fn sort_keys_sorts(
            base in proptest::collection::vec(0u64..1000, 0..300),
            swaps in proptest::collection::vec(0usize..300, 0..100),
            shuffled in proptest::bool::ANY,
        ) {
            let mut keys = base.clone();
            if !shuffled {
                keys.sort_unstable();
                for s in swaps {
                    if s + 1 < keys.len() {
                        keys.swap(s, s + 1);
                    }
                }
            }
            let mut want = keys.clone();
            want.sort_unstable();
            sort_keys(&mut keys);
            prop_assert_eq!(keys, want);
        }

        /// A build's row sort is a stable sort by min x (-0 and +0 equal)
        /// with every reach set, through its buffers and, for rows longer
        /// than they hold, cut into buckets or sorted whole in place; with
        /// an x range wider than the row's, as a build gives it.
        #[test]
        fn row_sort_is_a_stable_sort_by_min_x(
            xs in proptest::collection::vec(
                prop_oneof![-4i32..4, -1000i32..1000].prop_map(|x| x as f32 * 0.5),
                0..300,
            ),
            zeros in proptest::collection::vec(proptest::bool::ANY, 0..300),
            widths in proptest::collection::vec(0f32..50.0, 300),
            // Rooms under the row's length: in place, whole (small rooms)
            // or cut into buckets of x (rooms of at least twice the root
            // of the length, so the buckets' bounds fit the buffers).
            room in prop_oneof![Just(usize::MAX), 0usize..40, 36usize..150],
            margin in 0f64..100.0,
        ) {
            // Some zeros are -0.
            let es: Vec<Entry> = xs
                .iter()
                .zip(zeros.iter().chain(std::iter::repeat(&false)))
                .zip(&widths)
                .enumerate()
                .map(|(k, ((&x, &neg), &w))| {
                    let x = if x == 0.0 && neg { -0.0 } else { x };
                    Entry::new(&Aabb::new([x, 0.0], [x + w, 1.0]).unwrap(), k as u32)
                })
                .collect();
            let mut want = es.clone();
            // Stable: ties keep input order (ids are input places here).
            want.sort_by(|a, b| (a.min_x + 0.0).total_cmp(&(b.min_x + 0.0)));
            let mut reach = Real::NEG_INFINITY;
            for e in &mut want {
                reach = reach.max(e.max_x);
                e.reach = reach;
            }
            let lo = es.iter().map(|e| f64::from(e.min_x)).fold(f64::INFINITY, f64::min);
            let hi = es.iter().map(|e| f64::from(e.min_x)).fold(f64::NEG_INFINITY, f64::max);
            let mut sort = RowSort::default();
            sort.reserve(room.min(es.len())).unwrap();
            let mut got = es.clone();
            sort.sort(&mut got, (lo - margin, hi + margin));
            let ids = |v: &[Entry]| v.iter().map(|e| e.id).collect::<Vec<_>>();
            prop_assert_eq!(ids(&got), ids(&want));
            let reaches = |v: &[Entry]| v.iter().map(|e| e.reach.to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(reaches(&got), reaches(&want));
        }

        /// The galloping search answers as a binary search does, on rows of
        /// any spread (clumps and repeated values included).
        #[test]
        fn count_starting_by_is_the_partition_point(
            mut xs in proptest::collection::vec(
                prop_oneof![-1e6f32..1e6, 0f32..4.0, Just(7.0f32)], 0..300),
            probes in proptest::collection::vec(-2e6f32..2e6, 1..20),
        ) {
            xs.sort_by(f32::total_cmp);
            let es: Vec<Entry> = xs.iter().map(|&x| Entry::gap(x, x)).collect();
            let mut probes = probes;
            probes.extend(xs.iter().step_by(7).copied());
            for x in probes {
                prop_assert_eq!(
                    count_starting_by(&es, x),
                    es.partition_point(|e| e.min_x <= x),
                    "x = {}", x
                );
            }
        }
    }
}
