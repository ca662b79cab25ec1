//! [`Execution::Parallel`](super::Execution::Parallel): the same sweeps, cut
//! into runs of rows that a team of threads (`team.rs`) runs at once.
//!
//! Determinism: a build places each object where the serial build would (per
//! bucket, input chunks are concatenated in input order). A sweep gives each
//! worker a fixed run of rows and its own output buffer; the buffers are
//! joined in row order, which is the serial order. So pairs, their order and
//! the test counts do not depend on the number of threads.

use super::layout::{Disjoint, Exec, split_by_weight};
use super::sweep::{self, Ctx, Scratch};
use super::{Grid, push_pair};
use crate::error::try_reserve;
use crate::pair::PairSink;
use crate::{CollideError, Pair};

/// Pairs of the layout (not of pending objects), as the serial sweep finds
/// them, appended to `out`. Returns the number of tests. Each run of rows
/// fills its own buffer from `buffers`, with its own sweep scratch (both
/// kept by the grid, so a frame grows nothing once they are large enough);
/// they are joined in row order.
pub(crate) fn find_in_layout(
    grid: &Grid,
    exec: &impl Exec,
    buffers: &mut Vec<(Vec<Pair>, Scratch)>,
    out: &mut Vec<Pair>,
    moved_only: bool,
    sparse: bool,
) -> Result<u64, CollideError> {
    let ctx = grid.ctx();
    let filters = &grid.filters;
    // Several runs per thread, so one dense run does not hold up the rest,
    // cut by estimated work rather than by entries: a row of large objects
    // also walks the finer rows under it.
    // The plain all-pairs sweep (below) runs the sweeps between levels
    // from the inner rows; the others from the outer rows.
    let fast = !moved_only && filters.is_empty();
    let runs = split_rows_by_work(&ctx, exec.width() * 4, fast)?;
    let used = runs.len();
    if buffers.len() < used {
        try_reserve(buffers, used - buffers.len(), "pair buffers")?;
        buffers.resize_with(used, Default::default);
    }
    let buffers = &mut buffers[..used];
    let shared = Disjoint::new(buffers);
    let results = exec.map(used, |k| {
        // SAFETY: piece `k` alone touches buffer `k`.
        let (local, scratch) = &mut unsafe { shared.slice_mut(k..k + 1) }[0];
        let range = runs[k].clone();
        local.clear();
        let mut tests = 0u64;
        if !moved_only && filters.is_empty() {
            let mut fast = sweep::FastOut::new(local);
            let r = sweep::sweep_rows_all(&ctx, range, scratch, &mut tests, &mut fast);
            fast.finish();
            r?;
            return Ok(tests);
        }
        let mut sink = PairSink::new(local);
        if sparse {
            sweep::sweep_moved_rows(&ctx, range, scratch, &mut tests, &mut |_, a, _, b| {
                push_pair(&mut sink, filters, a.id, b.id)
            })?;
        } else if moved_only {
            sweep::sweep_rows(&ctx, range, scratch, &mut tests, &mut |pa, a, pb, b| {
                if ctx.moved(pa) || ctx.moved(pb) {
                    push_pair(&mut sink, filters, a.id, b.id)
                } else {
                    Ok(())
                }
            })?;
        } else {
            sweep::sweep_rows(&ctx, range, scratch, &mut tests, &mut |_, a, _, b| {
                push_pair(&mut sink, filters, a.id, b.id)
            })?;
        }
        Ok(tests)
    });
    let mut tests = 0u64;
    for r in results {
        tests += r?;
    }
    join_in_order(exec, buffers, out)?;
    Ok(tests)
}

/// Appends the buffers to `out` in order, copying them in parallel (a
/// serial copy of a million pairs costs as much as a tenth of the sweep).
fn join_in_order(
    exec: &impl Exec,
    buffers: &[(Vec<Pair>, Scratch)],
    out: &mut Vec<Pair>,
) -> Result<(), CollideError> {
    let total: usize = buffers.iter().map(|(b, _)| b.len()).sum();
    try_reserve(out, total, "pair output")?;
    let mut spare = &mut out.spare_capacity_mut()[..total];
    let mut pieces = Vec::new();
    try_reserve(&mut pieces, buffers.len(), "pair output")?;
    for (b, _) in buffers {
        let (piece, rest) = spare.split_at_mut(b.len());
        pieces.push((piece, b.as_slice()));
        spare = rest;
    }
    let shared = Disjoint::new(&mut pieces);
    exec.map(buffers.len(), |k| {
        // SAFETY: piece `k` alone touches its slice of `out`.
        let (piece, b) = &mut unsafe { shared.slice_mut(k..k + 1) }[0];
        for (slot, p) in piece.iter_mut().zip(b.iter()) {
            slot.write(*p);
        }
    });
    // SAFETY: the pieces tile the first `total` spare slots, and each slot
    // was written above.
    unsafe { out.set_len(out.len() + total) };
    Ok(())
}

/// Runs of rows of about equal estimated work, in row order. A row's work
/// is its entries, plus its share of the sweeps between levels. An outer
/// object's window in an inner row costs about one and a half entries'
/// work (as measured on the mixed workload), and a cursor's walk through
/// an inner row a sixteenth of an entry's work each, as most of it is
/// galloped over.
///
/// Which row does that work depends on the sweep. The filtered and
/// moved-pairs sweeps run it from the outer row (each of its objects
/// visits the inner rows under it). The plain all-pairs sweep runs it from
/// each inner row (`cross_into`). That row reads every object of the outer
/// rows over it (a quarter of an entry's work each) and takes the windows
/// of those objects that lie over it. Charged to the outer rows there, the
/// thin world's lasers and walls put nearly all of the sweep in one run,
/// and two threads swept no faster than one.
fn split_rows_by_work(
    ctx: &Ctx<'_>,
    parts: usize,
    from_inner: bool,
) -> Result<Vec<std::ops::Range<usize>>, CollideError> {
    let rows = ctx.rows;
    let entries = |r: usize| u64::from(rows[r].end - rows[r].start);
    let mut ends: Vec<u64> = Vec::new();
    try_reserve(&mut ends, rows.len(), "parallel row runs")?;
    // Each row's work first (rows are in level order), then summed.
    ends.extend((0..rows.len()).map(entries));
    // From the inner side, an outer row's work is spread over the rows of
    // its band: per-row amounts and cursor counts as differences, summed
    // below (wrapping, as a difference may be negative for a while).
    let mut spread: Vec<u64> = Vec::new();
    let mut cover: Vec<u64> = Vec::new();
    if from_inner {
        try_reserve(&mut spread, rows.len() + 1, "parallel row runs")?;
        try_reserve(&mut cover, rows.len() + 1, "parallel row runs")?;
        spread.resize(rows.len() + 1, 0);
        cover.resize(rows.len() + 1, 0);
    }
    for (li, level) in ctx.levels.iter().enumerate() {
        for (lo, inner) in ctx.levels.iter().enumerate() {
            if lo == li || !sweep::is_outer(ctx.levels, rows, li, lo) {
                continue;
            }
            let span = 1u64 << (level.exp - inner.exp).clamp(0, 20);
            sweep::bands_of(ctx, level, inner, |r, band| {
                let Some(last) = band.end.checked_sub(1).filter(|_| !band.is_empty()) else {
                    return;
                };
                let own = entries(r);
                let len = band.len() as u64;
                let visits = (span + 2).min(len);
                let windows = own.saturating_mul(visits).saturating_mul(3) / 2;
                if from_inner {
                    let per_row = own / 4 + windows / len;
                    spread[band.start] = spread[band.start].wrapping_add(per_row);
                    spread[band.end] = spread[band.end].wrapping_sub(per_row);
                    cover[band.start] = cover[band.start].wrapping_add(1);
                    cover[band.end] = cover[band.end].wrapping_sub(1);
                } else {
                    let walked = u64::from(rows[last].end - rows[band.start].start);
                    ends[r] = ends[r].saturating_add(walked / 16).saturating_add(windows);
                }
            });
        }
    }
    if from_inner {
        let (mut shared, mut cursors) = (0u64, 0u64);
        for (r, work) in ends.iter_mut().enumerate() {
            shared = shared.wrapping_add(spread[r]);
            cursors = cursors.wrapping_add(cover[r]);
            let walked = cursors.saturating_mul(entries(r)) / 16;
            *work = work.saturating_add(shared).saturating_add(walked);
        }
    }
    let mut total = 0u64;
    for w in &mut ends {
        total = total.saturating_add(*w);
        *w = total;
    }
    Ok(split_by_weight(ends.len(), parts, |i| ends[i]))
}
