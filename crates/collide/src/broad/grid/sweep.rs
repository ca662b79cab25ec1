//! Finding pairs in a [`Layout`](super::layout::Layout): the hot loops.
//!
//! Three sweeps cover every intersecting pair exactly once:
//!
//! 1. **Within a row.** Entries sorted by min x; each tests those after it
//!    that start before it ends.
//! 2. **A row against the next row of its level.** Objects of a level are at
//!    most one row tall, so two that intersect have rows at most one apart.
//!    A monotone pointer walks the upper row; the window for `a` starts at
//!    the first entry whose reach (the row's running maximum of max x) is at
//!    least `a.min_x`, and ends where entries start after `a` ends.
//! 3. **A row against the rows of another level.** From the side of the
//!    level that costs less as the outer one (usually the coarser), inside
//!    the band of inner rows its objects can reach; each outer object visits
//!    only the inner rows under its own y-extent, with one monotone pointer
//!    per inner row. A plain `find_all_pairs` runs it from the inner row's
//!    side instead (`cross_into`): each inner row meets the outer objects
//!    over it while it is in the cache.
//!
//! The *moved* variants report only pairs with at least one moved object,
//! either by filtering the full sweep (many moved) or by sweeping from the
//! moved objects alone (few moved): forward windows report every partner,
//! backward windows only partners that did not move (a moved partner
//! reports the pair from its own forward window).

use super::layout::{Entry, Level, Row, count_starting_by, row_key};
use super::wide::{self, WideRows};
use crate::{CollideError, Real};

/// Read-only view of one grid for a sweep.
#[derive(Clone, Copy)]
pub(crate) struct Ctx<'a> {
    pub entries: &'a [Entry],
    pub rows: &'a [Row],
    pub levels: &'a [Level],
    /// One bit per entry position: moved since the last moved-pairs query.
    pub moved: &'a [u64],
}

impl Ctx<'_> {
    #[inline]
    pub(crate) fn moved(&self, pos: usize) -> bool {
        self.moved
            .get(pos / 64)
            .is_some_and(|w| w >> (pos % 64) & 1 == 1)
    }

    pub(crate) fn row_entries(&self, row: &Row) -> &[Entry] {
        &self.entries[row.start as usize..row.end as usize]
    }
}

/// What a pair callback gets: positions and entries of both objects.
pub(crate) trait Emit:
    FnMut(usize, &Entry, usize, &Entry) -> Result<(), CollideError>
{
}
impl<F: FnMut(usize, &Entry, usize, &Entry) -> Result<(), CollideError>> Emit for F {}

/// Reused per-sweep buffers.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    /// One cursor per fine row of a band.
    cursors: Vec<u32>,
    /// The moved sweep's bands in other levels, for one row: (level, first
    /// row index, row count, index of the first row's cursor).
    bands: Vec<(usize, usize, usize, usize)>,
    /// One cursor (an entry position) per row of those bands.
    band_cursors: Vec<u32>,
    /// Row copies for the wide sweep.
    wide: WideRows,
}

impl Scratch {
    pub(crate) fn bytes(&self) -> usize {
        self.cursors.capacity() * 4
            + self.bands.capacity() * std::mem::size_of::<(usize, usize, usize, usize)>()
            + self.band_cursors.capacity() * 4
            + self.wide.bytes()
    }
}

/// First index in `es` at or after `from` whose reach is at least `x`
/// (galloping, so a cursor that moves a little costs a little). Reach never
/// decreases along a row, and no entry before that index touches `x`.
#[inline]
fn seek_reach(es: &[Entry], from: usize, x: Real) -> usize {
    let n = es.len();
    // Short moves (the common case: cursors creep along a row) are walked:
    // one predictable branch per step, where galloping pays several
    // unpredictable ones.
    let walk_end = (from + 16).min(n);
    let mut i = from;
    while i < walk_end {
        if es[i].reach >= x {
            return i;
        }
        i += 1;
    }
    if i >= n {
        return n;
    }
    // The walk checked es[i - 1]: it falls short.
    let from = i - 1;
    let mut lo = from; // es[lo].reach < x
    let mut step = 1;
    let mut hi = from + 1;
    while hi < n && es[hi].reach < x {
        lo = hi;
        step *= 2;
        hi = lo + step;
    }
    let hi = hi.min(n);
    lo + 1 + es[lo + 1..hi].partition_point(|e| e.reach < x)
}

/// As [`seek_reach`], for a cursor that may be far behind its target (a
/// coarse object's first visit of a fine row): a few steps, then from where
/// `x` falls between the row's ends (every entry starting after `x` reaches
/// it), galloping back to the first entry that reaches `x`. A few probes,
/// where walking and galloping forward from the row's start take dozens.
#[inline]
fn seek_reach_far(es: &[Entry], from: usize, x: Real) -> usize {
    let n = es.len();
    let near_end = (from + 4).min(n);
    for (i, e) in es.iter().enumerate().take(near_end).skip(from) {
        if e.reach >= x {
            return i;
        }
    }
    if near_end == n {
        return n;
    }
    let from = near_end;
    // Entries from `g` on start after `x`, so they reach it: the answer is
    // in [from, g].
    let g = from + count_starting_by(&es[from..], x);
    let (mut hi, mut step) = (g, 1);
    let lo = loop {
        if hi <= from {
            break from;
        }
        let probe = hi.saturating_sub(step).max(from);
        if es[probe].reach < x {
            break probe + 1;
        }
        hi = probe;
        step *= 2;
    };
    lo + es[lo..hi].partition_point(|e| e.reach < x)
}

/// Sweep 1: pairs inside one row. With `only_moved`, only moved entries
/// query, and `emit` must drop backward partners itself (see `moved_row`).
pub(crate) fn self_row(
    ctx: &Ctx<'_>,
    row: &Row,
    tests: &mut u64,
    emit: &mut impl Emit,
) -> Result<(), CollideError> {
    let es = ctx.row_entries(row);
    let base = row.start as usize;
    for (i, a) in es.iter().enumerate() {
        if a.is_gap() {
            continue;
        }
        for (k, b) in es[i + 1..].iter().enumerate() {
            if b.min_x > a.max_x {
                break;
            }
            *tests += 1;
            // x overlap is implied by the sort; a gap fails on y.
            if b.min_y <= a.max_y && a.min_y <= b.max_y {
                emit(base + i, a, base + i + 1 + k, b)?;
            }
        }
    }
    Ok(())
}

/// Sweep 2: a row against the next row (key + 1) of the same level.
pub(crate) fn next_row(
    ctx: &Ctx<'_>,
    lower: &Row,
    upper: &Row,
    tests: &mut u64,
    emit: &mut impl Emit,
) -> Result<(), CollideError> {
    let (los, ups) = (ctx.row_entries(lower), ctx.row_entries(upper));
    let (lo_base, up_base) = (lower.start as usize, upper.start as usize);
    let mut cursor = 0usize;
    for (i, a) in los.iter().enumerate() {
        if a.is_gap() {
            continue;
        }
        cursor = seek_reach(ups, cursor, a.min_x);
        for (k, b) in ups[cursor..].iter().enumerate() {
            if b.min_x > a.max_x {
                break;
            }
            *tests += 1;
            if a.min_x <= b.max_x && b.min_y <= a.max_y && a.min_y <= b.max_y {
                emit(lo_base + i, a, up_base + cursor + k, b)?;
            }
        }
    }
    Ok(())
}

/// Rows of `level` (in `inner`) whose key lies in `[lo, hi]`.
fn rows_in<'a>(inner: &Ctx<'a>, level: &Level, lo: i128, hi: i128) -> (&'a [Row], usize) {
    let rows = &inner.rows[level.row_start as usize..level.row_end as usize];
    let first = rows.partition_point(|r| i128::from(r.key) < lo);
    let last = first + rows[first..].partition_point(|r| i128::from(r.key) <= hi);
    (&rows[first..last], level.row_start as usize + first)
}

/// `key · 2^d` rounded down, for either sign of `d`, without overflow (far
/// beyond `i64` when `d` is large: the band bounds are clamped afterwards).
fn scaled(key: i64, d: i32) -> i128 {
    if d >= 64 {
        i128::from(key.signum()) << 100
    } else if d >= 0 {
        i128::from(key) << d
    } else {
        i128::from(key >> (-d).min(63))
    }
}

/// Whether, for levels `a` and `b` (indices into `levels`), the rows of `a`
/// sweep the rows of `b` (else `b`'s sweep `a`'s). Each object of the outer
/// level visits the inner rows under its own height, about
/// `2^(e_outer - e_inner) + 2` of them, so the cheaper side is the one with
/// fewer objects times rows; a tie goes to the taller level.
pub(crate) fn is_outer(levels: &[Level], rows: &[Row], a: usize, b: usize) -> bool {
    let (la, lb) = (levels[a], levels[b]);
    prefer_outer(
        level_count(&la, rows),
        la.exp,
        level_count(&lb, rows),
        lb.exp,
    )
}

/// Entries (gaps included) of a level.
pub(crate) fn level_count(l: &Level, rows: &[Row]) -> u128 {
    if l.row_start == l.row_end {
        0
    } else {
        u128::from(rows[l.row_end as usize - 1].end - rows[l.row_start as usize].start)
    }
}

/// [`is_outer`] from counts and row exponents (also across two grids).
pub(crate) fn prefer_outer(count_a: u128, exp_a: i32, count_b: u128, exp_b: i32) -> bool {
    let span = |from: i32, to: i32| {
        if from > to {
            1u128 << (from - to).min(100)
        } else {
            1
        }
    };
    let cost_a = count_a * (span(exp_a, exp_b) + 2);
    let cost_b = count_b * (span(exp_b, exp_a) + 2);
    cost_a < cost_b || (cost_a == cost_b && exp_a > exp_b)
}

/// For the work estimate of a parallel split, for each row of
/// `outer_level` in turn: the rows of `inner_level` in the band that the
/// row sweeps (global row indices). Bands only move up as the outer rows
/// do, so two cursors find them (a binary search per row and level took
/// 4.5 µs of a mixed 10k sweep, all of it before the threads start).
#[cfg(feature = "rayon")]
pub(crate) fn bands_of(
    ctx: &Ctx<'_>,
    outer_level: &Level,
    inner_level: &Level,
    mut each: impl FnMut(usize, std::ops::Range<usize>),
) {
    let d = outer_level.exp - inner_level.exp;
    let base = inner_level.row_start as usize;
    let inner = &ctx.rows[base..inner_level.row_end as usize];
    let (mut first, mut last) = (0usize, 0usize);
    for r in outer_level.row_start as usize..outer_level.row_end as usize {
        let (lo, hi) = band_keys(&ctx.rows[r], d);
        while first < inner.len() && i128::from(inner[first].key) < lo {
            first += 1;
        }
        last = last.max(first);
        while last < inner.len() && i128::from(inner[last].key) <= hi {
            last += 1;
        }
        each(r, base + first..base + last);
    }
}

/// Keys of the inner rows an outer row of key `k` may meet, `d` being the
/// outer row exponent minus the inner one. Objects of the outer row have min
/// y in [k·Co, (k+1)·Co) and max y below (k+2)·Co; inner objects are at most
/// Ci tall, so their rows lie in [floor(k·Co/Ci) - 1, floor((k+2)·Co/Ci)].
/// Clamped to i64, as the keys themselves saturate: a key of i64::MIN holds
/// every object whose true key is lower, so a saturated outer key stands
/// for every key beyond it and its band is open on that side.
fn band_keys(outer_row: &Row, d: i32) -> (i128, i128) {
    let clamp = |k: i128| k.clamp(i128::from(i64::MIN), i128::from(i64::MAX));
    let lo = match outer_row.key {
        i64::MIN => i128::from(i64::MIN),
        k => clamp(scaled(k, d) - 1),
    };
    let hi = match outer_row.key {
        i64::MAX => i128::from(i64::MAX),
        k => clamp(scaled(k.saturating_add(2), d)),
    };
    (lo, hi)
}

/// Sweep 3: an outer row (row height `2^outer_exp`) against the rows of an
/// inner level of any height, possibly of another grid. `emit` gets (outer
/// pos, outer entry, inner pos, inner entry). With `only_moved`, only moved
/// outer entries query.
#[allow(clippy::too_many_arguments)]
pub(crate) fn cross(
    outer: &Ctx<'_>,
    outer_row: &Row,
    outer_exp: i32,
    inner: &Ctx<'_>,
    inner_level: &Level,
    only_moved: bool,
    scratch: &mut Scratch,
    tests: &mut u64,
    emit: &mut impl Emit,
) -> Result<(), CollideError> {
    let ek = inner_level.exp;
    let (lo, hi) = band_keys(outer_row, outer_exp - ek);
    let (band, _) = rows_in(inner, inner_level, lo, hi);
    if band.is_empty() {
        return Ok(());
    }
    scratch.cursors.clear();
    scratch.cursors.extend(band.iter().map(|_| 0u32));
    let os = outer.row_entries(outer_row);
    let o_base = outer_row.start as usize;
    for (i, a) in os.iter().enumerate() {
        if a.is_gap() || (only_moved && !outer.moved(o_base + i)) {
            continue;
        }
        // The fine rows under this object: [row(min_y) - 1, row(max_y)].
        let r0 = row_key(a.min_y, ek).saturating_sub(1);
        let r1 = row_key(a.max_y, ek);
        let first = band.partition_point(|r| r.key < r0);
        for (bi, row) in band.iter().enumerate().skip(first) {
            if row.key > r1 {
                break;
            }
            let es = inner.row_entries(row);
            let c = seek_reach_far(es, scratch.cursors[bi] as usize, a.min_x);
            scratch.cursors[bi] = c as u32;
            for (k, b) in es[c..].iter().enumerate() {
                if b.min_x > a.max_x {
                    break;
                }
                *tests += 1;
                if a.min_x <= b.max_x && b.min_y <= a.max_y && a.min_y <= b.max_y {
                    emit(o_base + i, a, row.start as usize + c + k, b)?;
                }
            }
        }
    }
    Ok(())
}

/// Sweep 3 as [`cross`] does it for every object of `outer_level`, from the
/// inner row's side: the outer rows whose band holds `inner_row`, each
/// object of theirs that lies over it, its window found from a cursor that
/// only moves forward (objects of one outer row come sorted by min x).
///
/// Why from this side: an outer object visits up to a dozen inner rows,
/// each somewhere else in memory, and its window in each needs a search
/// from afar. Here an inner row is met once, while it is in the cache, and
/// each of its cursors walks it once. The windows, and so the pairs and
/// the tests, are those of [`cross`]; only their order differs.
fn cross_into(
    ctx: &Ctx<'_>,
    outer_level: &Level,
    inner_row: &Row,
    inner_exp: i32,
    copy: Option<&WideRows>,
    tests: &mut u64,
    out: &mut FastOut<'_>,
) -> Result<(), CollideError> {
    let d = outer_level.exp - inner_exp;
    let key = i128::from(inner_row.key);
    let outer_rows = &ctx.rows[outer_level.row_start as usize..outer_level.row_end as usize];
    // Bands rise with the outer key at both ends.
    let first = outer_rows.partition_point(|r| band_keys(r, d).1 < key);
    let es = ctx.row_entries(inner_row);
    // An object lies over this row when row(max y) >= key and row(min y)
    // - 1 <= key, that is max y >= key·h and min y < (key + 2)·h: exact in
    // f64 for keys below 2^52 (the scaling is by a power of two), which
    // saves two row keys per object. Beyond, the keys themselves decide.
    let small = inner_row.key.unsigned_abs() < 1 << 52 && (-1000..1000).contains(&inner_exp);
    let h = crate::math::pow2(inner_exp.clamp(-1000, 1000));
    let (y_lo, y_hi) = (inner_row.key as f64 * h, (inner_row.key as f64 + 2.0) * h);
    for orow in &outer_rows[first..] {
        if band_keys(orow, d).0 > key {
            break;
        }
        let mut cursor = 0usize;
        for a in ctx.row_entries(orow) {
            if a.is_gap() {
                continue;
            }
            // The inner rows under `a`: [row(min y) - 1, row(max y)].
            let over = if small {
                f64::from(a.max_y) >= y_lo && f64::from(a.min_y) < y_hi
            } else {
                let r0 = row_key(a.min_y, inner_exp).saturating_sub(1);
                let r1 = row_key(a.max_y, inner_exp);
                (r0..=r1).contains(&inner_row.key)
            };
            if !over {
                continue;
            }
            if let Some(copy) = copy {
                cursor = copy.window_in_own(cursor, a, tests, out)?;
                continue;
            }
            cursor = seek_reach(es, cursor, a.min_x);
            *tests += window_fast(es, cursor, a, out)? as u64;
        }
    }
    Ok(())
}

/// Appends pairs without a branch per candidate: each candidate's pair is
/// written to the spare capacity, and the length advances by the hit bit.
/// Buffer pointer and capacity are cached here, so the room check is a
/// register compare.
pub(crate) struct FastOut<'a> {
    out: &'a mut Vec<crate::Pair>,
    ptr: *mut crate::Pair,
    cap: usize,
    len: usize,
}

impl<'a> FastOut<'a> {
    pub(crate) fn new(out: &'a mut Vec<crate::Pair>) -> Self {
        Self {
            ptr: out.as_mut_ptr(),
            cap: out.capacity(),
            len: out.len(),
            out,
        }
    }

    /// Makes room for one more write.
    #[inline(always)]
    fn room(&mut self) -> Result<(), CollideError> {
        if self.len == self.cap {
            self.grow()
        } else {
            Ok(())
        }
    }

    #[cold]
    fn grow(&mut self) -> Result<(), CollideError> {
        // SAFETY: positions below `len` were all written (see `put`).
        unsafe { self.out.set_len(self.len) };
        let extra = self.out.capacity().max(1024);
        crate::error::try_reserve(self.out, extra, "pair output")?;
        self.ptr = self.out.as_mut_ptr();
        self.cap = self.out.capacity();
        Ok(())
    }

    /// Makes room for `k` more writes (`k` at most 1,024).
    #[inline(always)]
    pub(crate) fn room_for(&mut self, k: usize) -> Result<(), CollideError> {
        if self.cap - self.len < k {
            self.grow()
        } else {
            Ok(())
        }
    }

    /// Where the next pair goes: `room_for(k)` makes `k` slots from here
    /// writable.
    #[inline(always)]
    pub(crate) fn end_ptr(&mut self) -> *mut crate::Pair {
        // SAFETY: `len <= cap`, so this is inside the allocation or one past it.
        unsafe { self.ptr.add(self.len) }
    }

    /// Keeps the next `k` pairs written at [`Self::end_ptr`].
    ///
    /// # Safety
    /// Those `k` slots were written, and `room_for` covered them.
    #[inline(always)]
    pub(crate) unsafe fn advance(&mut self, k: usize) {
        debug_assert!(self.len + k <= self.cap);
        self.len += k;
    }

    /// Writes `p` at the end; keeps it if `keep`. Needs `room` first.
    #[inline(always)]
    fn put(&mut self, p: crate::Pair, keep: bool) {
        debug_assert!(self.len < self.cap);
        // SAFETY: `room` guaranteed `len < cap`; the slot is inside the
        // allocation and a plain `Copy` value is written.
        unsafe { self.ptr.add(self.len).write(p) };
        self.len += usize::from(keep);
    }

    /// A checked push, for the generic paths that share this output.
    pub(crate) fn push(&mut self, p: crate::Pair) -> Result<(), CollideError> {
        self.room()?;
        self.put(p, true);
        Ok(())
    }

    pub(crate) fn finish(self) {
        // SAFETY: positions below `len` were all written.
        unsafe { self.out.set_len(self.len) };
    }
}

/// The window of `a` in another row (`es`) from `from`, its first entry
/// reaching `a`: every entry that starts before `a` ends, its pair kept if
/// it hits. Returns how many it tested.
#[inline(always)]
fn window_fast(
    es: &[Entry],
    from: usize,
    a: &Entry,
    out: &mut FastOut<'_>,
) -> Result<usize, CollideError> {
    let mut j = from;
    while j < es.len() {
        let b = es[j];
        if b.min_x > a.max_x {
            break;
        }
        out.room()?;
        let hit = (a.min_x <= b.max_x) & (b.min_y <= a.max_y) & (a.min_y <= b.max_y);
        out.put(crate::Pair::ordered(a.id, b.id), hit);
        j += 1;
    }
    Ok(j - from)
}

/// Sweeps 1 and 2 for every pair; the only branch per candidate is the
/// window's end, the hit itself is branch-free (see [`FastOut`]).
fn rows_all_fast(
    es: &[Entry],
    ups: Option<&[Entry]>,
    tests: &mut u64,
    out: &mut FastOut<'_>,
) -> Result<(), CollideError> {
    let n = es.len();
    let mut cursor = 0usize;
    let mut count = 0u64;
    for i in 0..n {
        let a = es[i];
        if a.is_gap() {
            continue;
        }
        // Own row, forward: candidates start before `a` ends.
        let mut j = i + 1;
        while j < n {
            let b = es[j];
            if b.min_x > a.max_x {
                break;
            }
            out.room()?;
            let hit = (b.min_y <= a.max_y) & (a.min_y <= b.max_y);
            out.put(crate::Pair::ordered(a.id, b.id), hit);
            j += 1;
        }
        count += (j - i - 1) as u64;
        // Next row: from the first entry reaching `a` to the last starting
        // before `a` ends.
        let Some(ups) = ups else { continue };
        while cursor < ups.len() && ups[cursor].reach < a.min_x {
            cursor += 1;
        }
        count += window_fast(ups, cursor, &a, out)? as u64;
    }
    *tests += count;
    Ok(())
}

/// The rows of `row_range` (global indices), each with its level's index.
fn rows_with_levels<'a>(
    ctx: &'a Ctx<'_>,
    row_range: std::ops::Range<usize>,
) -> impl Iterator<Item = (usize, usize)> + 'a {
    let mut li = ctx
        .levels
        .partition_point(|l| (l.row_end as usize) <= row_range.start);
    row_range.map(move |ri| {
        while ctx.levels[li].row_end as usize <= ri {
            li += 1;
        }
        (ri, li)
    })
}

/// The row of the same level whose key is `step` (±1) from row `ri`'s, if
/// occupied: rows of a level are stored by ascending key, so it can only be
/// the adjacent one.
fn neighbour<'a>(ctx: &'a Ctx<'_>, ri: usize, level: Level, step: i64) -> Option<&'a Row> {
    let other = ri.checked_add_signed(step as isize)?;
    let inside = other >= level.row_start as usize && other < level.row_end as usize;
    (inside && ctx.rows[other].key == ctx.rows[ri].key.wrapping_add(step)).then(|| &ctx.rows[other])
}

/// All three sweeps for `row_range` with every pair kept and no filter:
/// the fast path of a plain `find_all_pairs`. Same pairs as [`sweep_rows`]
/// with an emit that keeps everything, in another fixed order: row by row,
/// each entry's own-row and next-row windows together, then the row's
/// pairs with the outer levels' objects over it.
pub(crate) fn sweep_rows_all(
    ctx: &Ctx<'_>,
    row_range: std::ops::Range<usize>,
    scratch: &mut Scratch,
    tests: &mut u64,
    out: &mut FastOut<'_>,
) -> Result<(), CollideError> {
    sweep_rows_all_with(ctx, row_range, scratch, tests, out, wide::available())
}

/// [`sweep_rows_all`], with the wide sweep for the rows it takes if `wide`
/// (which needs [`wide::available`]).
pub(crate) fn sweep_rows_all_with(
    ctx: &Ctx<'_>,
    row_range: std::ops::Range<usize>,
    scratch: &mut Scratch,
    tests: &mut u64,
    out: &mut FastOut<'_>,
    wide: bool,
) -> Result<(), CollideError> {
    assert!(!wide || wide::available());
    scratch.wide.forget();
    let max_row = wide::max_row(ctx.entries.len());
    for (ri, li) in rows_with_levels(ctx, row_range) {
        let (level, row) = (ctx.levels[li], &ctx.rows[ri]);
        let own = ctx.row_entries(row);
        let next = neighbour(ctx, ri, level, 1).map(|r| ctx.row_entries(r));
        let short = |es: &[Entry]| es.len() <= max_row;
        let wide_row = wide && short(own) && next.is_none_or(short);
        if wide_row {
            let up = next.map(|ups| (ri + 1, ups));
            scratch.wide.sweep(ri, own, up, tests, out)?;
        } else {
            rows_all_fast(own, next, tests, out)?;
        }
        // Sweep 3 from the inner side: this row against the outer rows of
        // every level that sweeps this one's (its windows wide too where
        // the row's copy was made).
        let copy = wide_row.then_some(&scratch.wide);
        for (lo, other) in ctx.levels.iter().enumerate() {
            if lo != li && is_outer(ctx.levels, ctx.rows, lo, li) {
                cross_into(ctx, other, row, level.exp, copy, tests, out)?;
            }
        }
    }
    Ok(())
}

/// Every entry of `level` intersecting `q`, by binary search per row:
/// `found(pos, entry)`.
pub(crate) fn query_level(
    ctx: &Ctx<'_>,
    level: &Level,
    q: &Entry,
    tests: &mut u64,
    mut found: impl FnMut(usize, &Entry) -> Result<(), CollideError>,
) -> Result<(), CollideError> {
    let r0 = row_key(q.min_y, level.exp).saturating_sub(1);
    let r1 = row_key(q.max_y, level.exp);
    let (rows, _) = rows_in(ctx, level, i128::from(r0), i128::from(r1));
    for row in rows {
        let es = ctx.row_entries(row);
        let mut j = es.partition_point(|e| e.reach < q.min_x);
        while j < es.len() && es[j].min_x <= q.max_x {
            *tests += 1;
            if es[j].overlaps(q) {
                found(row.start as usize + j, &es[j])?;
            }
            j += 1;
        }
    }
    Ok(())
}

/// All three sweeps for the rows `row_range` (global row indices), in row
/// order: the unit of work, serial or parallel. `emit` decides what to keep.
pub(crate) fn sweep_rows(
    ctx: &Ctx<'_>,
    row_range: std::ops::Range<usize>,
    scratch: &mut Scratch,
    tests: &mut u64,
    emit: &mut impl Emit,
) -> Result<(), CollideError> {
    for (ri, li) in rows_with_levels(ctx, row_range) {
        let (level, row) = (ctx.levels[li], &ctx.rows[ri]);
        self_row(ctx, row, tests, emit)?;
        if let Some(upper) = neighbour(ctx, ri, level, 1) {
            next_row(ctx, row, upper, tests, emit)?;
        }
        for (lo, other) in ctx.levels.iter().enumerate() {
            if lo != li && is_outer(ctx.levels, ctx.rows, li, lo) {
                cross(ctx, row, level.exp, ctx, other, false, scratch, tests, emit)?;
            }
        }
    }
    Ok(())
}

/// The sparse moved sweep for rows `row_range`: every pair with a moved
/// entry of these rows, where a pair of two moved entries is reported once.
/// `emit` is called as (moved pos, moved entry, partner pos, partner entry)
/// and must keep every pair; this function drops the duplicates.
pub(crate) fn sweep_moved_rows(
    ctx: &Ctx<'_>,
    row_range: std::ops::Range<usize>,
    scratch: &mut Scratch,
    tests: &mut u64,
    emit: &mut impl Emit,
) -> Result<(), CollideError> {
    sweep_moved_rows_with(ctx, row_range, scratch, tests, emit, wide::available())
}

/// [`sweep_moved_rows`], with the wide windows for the rows they take if
/// `wide` (which needs [`wide::available`]).
///
/// Per row: first every moved entry's windows in its own level (own row
/// forward and backward, next and previous row), then every moved entry's
/// windows in the finer levels, then the coarser levels' objects against
/// the row's moved entries.
pub(crate) fn sweep_moved_rows_with(
    ctx: &Ctx<'_>,
    row_range: std::ops::Range<usize>,
    scratch: &mut Scratch,
    tests: &mut u64,
    emit: &mut impl Emit,
    wide: bool,
) -> Result<(), CollideError> {
    assert!(!wide || wide::available());
    scratch.wide.forget();
    let max_row = wide::max_row(ctx.entries.len());
    for (ri, li) in rows_with_levels(ctx, row_range) {
        let (level, row) = (ctx.levels[li], &ctx.rows[ri]);
        let (start, end) = (row.start as usize, row.end as usize);
        let moved = moved_count(ctx.moved, start, end);
        if moved == 0 {
            continue;
        }
        let next = neighbour(ctx, ri, level, 1).map(|r| (ri + 1, r));
        let prev = neighbour(ctx, ri, level, -1).map(|r| (ri - 1, r));
        let short = |r: &Row| (r.end - r.start) as usize <= max_row;
        // Copied only with enough moved entries to pay for the copy (see
        // `MOVED_PER_COPIED`).
        let wide_row = wide
            && moved * wide::MOVED_PER_COPIED >= end - start
            && short(row)
            && next.is_none_or(|(_, r)| short(r))
            && prev.is_none_or(|(_, r)| short(r));
        if wide_row {
            scratch
                .wide
                .moved_windows(ctx, (ri, row), next, prev, tests, emit)?;
        } else {
            same_level_moved(ctx, row, next.map(|n| n.1), prev.map(|p| p.1), tests, emit)?;
        }
        finer_levels_moved(ctx, li, row, scratch, tests, emit)?;
        // Levels this one's rows sweep: every partner, from the moved
        // entries of this row.
        for (lo, other) in ctx.levels.iter().enumerate() {
            if lo != li && is_outer(ctx.levels, ctx.rows, li, lo) {
                cross(ctx, row, level.exp, ctx, other, true, scratch, tests, emit)?;
            }
        }
    }
    Ok(())
}

/// The moved entries of `row` against their own level: own row forward
/// (every partner), own row backward (partners that did not move), next
/// row (every partner), previous row (partners that did not move). Each
/// window in ascending position. `wide::WideRows::moved_windows` finds the
/// same pairs, in the same order, with the same tests.
fn same_level_moved(
    ctx: &Ctx<'_>,
    row: &Row,
    next: Option<&Row>,
    prev: Option<&Row>,
    tests: &mut u64,
    emit: &mut impl Emit,
) -> Result<(), CollideError> {
    let (start, end) = (row.start as usize, row.end as usize);
    // Moved entries are visited in row order, so each neighbour row's
    // window start only moves forward: one galloping cursor per row.
    let mut cursor_next = next.map_or(0, |r| r.start as usize);
    let mut cursor_prev = prev.map_or(0, |r| r.start as usize);
    for p in MovedIn::new(ctx.moved, start, end) {
        let a = ctx.entries[p];
        // Own row, forward: everyone.
        for (k, b) in ctx.entries[p + 1..end].iter().enumerate() {
            if b.min_x > a.max_x {
                break;
            }
            *tests += 1;
            if b.min_y <= a.max_y && a.min_y <= b.max_y {
                emit(p, &a, p + 1 + k, b)?;
            }
        }
        // Own row, backward: only partners that did not move. Reach never
        // decreases, so the window is the entries before `a` from the
        // first that reaches it.
        let mut first = p;
        while first > start && ctx.entries[first - 1].reach >= a.min_x {
            first -= 1;
        }
        *tests += (p - first) as u64;
        for q in first..p {
            let b = &ctx.entries[q];
            if b.overlaps(&a) && !ctx.moved(q) {
                emit(p, &a, q, b)?;
            }
        }
        // Next row: everyone; previous row: only still partners.
        for (other, cursor, keep_moved) in [
            (next, &mut cursor_next, true),
            (prev, &mut cursor_prev, false),
        ] {
            let Some(other) = other else { continue };
            let (o_start, o_end) = (other.start as usize, other.end as usize);
            let es = &ctx.entries[o_start..o_end];
            *cursor = o_start + seek_reach(es, *cursor - o_start, a.min_x);
            let mut q = *cursor;
            while q < o_end && ctx.entries[q].min_x <= a.max_x {
                *tests += 1;
                let b = &ctx.entries[q];
                if b.overlaps(&a) && (keep_moved || !ctx.moved(q)) {
                    emit(p, &a, q, b)?;
                }
                q += 1;
            }
        }
    }
    Ok(())
}

/// The moved entries of `row` (level `li`) against the levels whose rows
/// sweep this one's: only still partners (a moved partner there finds
/// this one from its side). The rows under the object, [row(min y) - 1,
/// row(max y)], as a region query takes them, each window found from its
/// row's cursor.
fn finer_levels_moved(
    ctx: &Ctx<'_>,
    li: usize,
    row: &Row,
    scratch: &mut Scratch,
    tests: &mut u64,
    emit: &mut impl Emit,
) -> Result<(), CollideError> {
    let level = ctx.levels[li];
    // The rows of theirs that this row's objects can reach, once per row,
    // each with a cursor.
    let Scratch {
        bands,
        band_cursors,
        ..
    } = &mut *scratch;
    bands.clear();
    band_cursors.clear();
    for (lo, other) in ctx.levels.iter().enumerate() {
        if lo != li && !is_outer(ctx.levels, ctx.rows, li, lo) {
            let (keys_lo, keys_hi) = band_keys(row, level.exp - other.exp);
            let (band, first) = rows_in(ctx, other, keys_lo, keys_hi);
            if !band.is_empty() {
                bands.push((lo, first, band.len(), band_cursors.len()));
                band_cursors.extend(band.iter().map(|r| r.start));
            }
        }
    }
    if bands.is_empty() {
        return Ok(());
    }
    for p in MovedIn::new(ctx.moved, row.start as usize, row.end as usize) {
        let a = ctx.entries[p];
        for &(lo, first, len, cursor0) in bands.iter() {
            let exp = ctx.levels[lo].exp;
            let (r0, r1) = (
                row_key(a.min_y, exp).saturating_sub(1),
                row_key(a.max_y, exp),
            );
            for (k, other) in ctx.rows[first..first + len].iter().enumerate() {
                if other.key < r0 {
                    continue;
                }
                if other.key > r1 {
                    break;
                }
                let es = ctx.row_entries(other);
                let o_start = other.start as usize;
                let cursor = &mut band_cursors[cursor0 + k];
                let mut q = seek_reach(es, *cursor as usize - o_start, a.min_x);
                *cursor = (o_start + q) as u32;
                while q < es.len() && es[q].min_x <= a.max_x {
                    *tests += 1;
                    let b = &es[q];
                    if b.overlaps(&a) && !ctx.moved(o_start + q) {
                        emit(p, &a, o_start + q, b)?;
                    }
                    q += 1;
                }
            }
        }
    }
    Ok(())
}

/// How many bits of `bits` are set in `start..end`.
fn moved_count(bits: &[u64], start: usize, end: usize) -> usize {
    if start >= end {
        return 0;
    }
    let (first, last) = (start / 64, (end - 1) / 64);
    let mut count = 0;
    for w in first..=last {
        let mut word = bits.get(w).copied().unwrap_or(0);
        if w == first {
            word &= !0u64 << (start % 64);
        }
        if w == last && !end.is_multiple_of(64) {
            word &= !(!0u64 << (end % 64));
        }
        count += word.count_ones() as usize;
    }
    count
}

/// The set bits of `bits` in `start..end`, in order, a word at a time.
pub(crate) struct MovedIn<'a> {
    bits: &'a [u64],
    end: usize,
    /// Index of the current word, and its bits not yet returned.
    word: usize,
    rest: u64,
}

impl<'a> MovedIn<'a> {
    pub(crate) fn new(bits: &'a [u64], start: usize, end: usize) -> Self {
        let word = start / 64;
        let rest = bits.get(word).map_or(0, |w| w & (!0u64 << (start % 64)));
        Self {
            bits,
            end,
            word,
            rest,
        }
    }
}

impl Iterator for MovedIn<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        loop {
            if self.rest != 0 {
                let p = self.word * 64 + self.rest.trailing_zeros() as usize;
                self.rest &= self.rest - 1;
                return (p < self.end).then_some(p);
            }
            self.word += 1;
            if self.word * 64 >= self.end {
                return None;
            }
            self.rest = *self.bits.get(self.word)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The work estimate's band cursors find, for every row of every
        /// level against every other level, the band that binary searches
        /// find: worlds of several heights, negative and huge coordinates.
        #[cfg(feature = "rayon")]
        #[test]
        fn band_cursors_find_the_searched_bands(
            boxes in proptest::collection::vec(
                (
                    prop_oneof![-3000f32..3000.0, -1e30f32..1e30],
                    prop_oneof![-3000f32..3000.0, -1e30f32..1e30],
                    prop_oneof![0f32..4.0, 0f32..40.0, 0f32..900.0],
                ),
                0..300,
            ),
        ) {
            let boxes: Vec<crate::Aabb> = boxes
                .iter()
                .map(|&(x, y, h)| crate::Aabb::new([x, y], [x + 10.0, y + h]).unwrap())
                .collect();
            let mut grid = crate::Grid::new();
            grid.rebuild(&boxes).unwrap();
            let ctx = grid.ctx();
            for outer in ctx.levels {
                for inner in ctx.levels {
                    let mut got = Vec::new();
                    bands_of(&ctx, outer, inner, |r, band| got.push((r, band)));
                    let want: Vec<(usize, std::ops::Range<usize>)> = (outer.row_start as usize
                        ..outer.row_end as usize)
                        .map(|r| {
                            let (lo, hi) = band_keys(&ctx.rows[r], outer.exp - inner.exp);
                            let (band, first) = rows_in(&ctx, inner, lo, hi);
                            (r, first..first + band.len())
                        })
                        .collect();
                    prop_assert_eq!(got, want);
                }
            }
        }

        /// Both seeks find the first entry at or after the cursor that
        /// reaches `x`, on rows of any spread of starts and widths.
        #[test]
        fn seeks_agree_with_a_scan(
            boxes in proptest::collection::vec(
                (prop_oneof![0f32..2000.0, 0f32..20.0], prop_oneof![0f32..40.0, 0f32..600.0]),
                1..400),
            probes in proptest::collection::vec((0usize..400, -50f32..2700.0), 1..20),
        ) {
            let mut starts: Vec<(f32, f32)> = boxes;
            starts.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut reach = f32::NEG_INFINITY;
            let es: Vec<Entry> = starts
                .iter()
                .map(|&(x, w)| {
                    reach = reach.max(x + w);
                    Entry { min_x: x, min_y: 0.0, max_x: x + w, max_y: 1.0, id: 0, reach }
                })
                .collect();
            // Also exactly at reaches and starts: ties are where a seek
            // goes wrong by one.
            let mut probes = probes;
            for (k, e) in es.iter().enumerate().step_by(5) {
                probes.push((k / 2, e.reach));
                probes.push((k / 3, e.min_x));
            }
            for (from, x) in probes {
                let from = from % (es.len() + 1);
                let scan = from + es[from..].iter().take_while(|e| e.reach < x).count();
                prop_assert_eq!(seek_reach(&es, from, x), scan, "walk, from {} x {}", from, x);
                prop_assert_eq!(seek_reach_far(&es, from, x), scan, "far, from {} x {}", from, x);
            }
        }
    }
}
