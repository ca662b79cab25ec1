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
    let runs = split_rows_by_work(&ctx, exec.width() * 4)?;
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
/// is its entries, plus, for each level its rows sweep, a window and a
/// seek (about one and a half entries' work, as measured on the mixed
/// workload) per row of that level each of its objects visits, and the
/// cursors' walk through the band (a sixteenth of an entry's work each,
/// as most of it is galloped over).
fn split_rows_by_work(
    ctx: &Ctx<'_>,
    parts: usize,
) -> Result<Vec<std::ops::Range<usize>>, CollideError> {
    let mut ends: Vec<u64> = Vec::new();
    try_reserve(&mut ends, ctx.rows.len(), "parallel row runs")?;
    // Each row's work first (rows are in level order), then summed.
    ends.extend(ctx.rows.iter().map(|r| u64::from(r.end - r.start)));
    for (li, level) in ctx.levels.iter().enumerate() {
        for (lo, inner) in ctx.levels.iter().enumerate() {
            if lo != li && sweep::is_outer(ctx.levels, ctx.rows, li, lo) {
                sweep::bands_of(ctx, level, inner, |r, band, visits| {
                    let entries = u64::from(ctx.rows[r].end - ctx.rows[r].start);
                    let windows = entries.saturating_mul(visits).saturating_mul(3) / 2;
                    ends[r] = ends[r].saturating_add(band / 16).saturating_add(windows);
                });
            }
        }
    }
    let mut total = 0u64;
    for w in &mut ends {
        total = total.saturating_add(*w);
        *w = total;
    }
    Ok(split_by_weight(ends.len(), parts, |i| ends[i]))
}
