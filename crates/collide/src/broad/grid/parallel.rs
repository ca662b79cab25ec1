//! [`Execution::Parallel`](super::Execution::Parallel): the same build and
//! sweeps, cut into pieces that rayon runs at once.
//!
//! Determinism: a build places each object where the serial build would (per
//! bucket, input chunks are concatenated in input order). A sweep gives each
//! worker a fixed run of rows and its own output buffer; the buffers are
//! joined in row order, which is the serial order. So pairs, their order and
//! the test counts do not depend on the number of threads.

use rayon::prelude::*;

use super::layout::{Exec, split_rows};
use super::sweep::{self, Scratch};
use super::{Grid, push_pair};
use crate::error::try_reserve;
use crate::pair::PairSink;
use crate::{CollideError, Pair};

/// Runs pieces on rayon's current pool.
pub(crate) struct Rayon;

impl Exec for Rayon {
    fn width(&self) -> usize {
        rayon::current_num_threads()
    }

    fn map<T: Send, F: Fn(usize) -> T + Sync>(&self, k: usize, f: F) -> Vec<T> {
        // `&F` is `Send` because `F` is `Sync`.
        let f = &f;
        (0..k).into_par_iter().map(f).collect()
    }
}

/// Pairs of the layout (not of pending objects), as the serial sweep finds
/// them, appended to `out`. Returns the number of tests. Each run of rows
/// fills its own buffer from `buffers` (kept by the grid, so a frame
/// grows nothing once they are large enough); they are joined in row order.
pub(crate) fn find_in_layout(
    grid: &Grid,
    buffers: &mut Vec<Vec<Pair>>,
    out: &mut Vec<Pair>,
    moved_only: bool,
    sparse: bool,
) -> Result<u64, CollideError> {
    let ctx = grid.ctx();
    let filters = &grid.filters;
    // Several runs per thread, so one dense run does not hold up the rest.
    let runs = split_rows(ctx.rows, Rayon.width() * 4);
    let used = runs.len();
    if buffers.len() < used {
        try_reserve(buffers, used - buffers.len(), "pair buffers")?;
        buffers.resize_with(used, Vec::new);
    }
    let buffers = &mut buffers[..used];
    let results: Vec<Result<u64, CollideError>> = runs
        .into_par_iter()
        .zip(buffers.par_iter_mut())
        .map(|(range, local)| {
            local.clear();
            let mut scratch = Scratch::default();
            let mut tests = 0u64;
            if !moved_only && filters.is_empty() {
                let mut fast = sweep::FastOut::new(local);
                let r = sweep::sweep_rows_all(&ctx, range, &mut scratch, &mut tests, &mut fast);
                fast.finish();
                r?;
                return Ok(tests);
            }
            let mut sink = PairSink::new(local);
            if sparse {
                sweep::sweep_moved_rows(
                    &ctx,
                    range,
                    &mut scratch,
                    &mut tests,
                    &mut |_, a, _, b| push_pair(&mut sink, filters, a.id, b.id),
                )?;
            } else if moved_only {
                sweep::sweep_rows(
                    &ctx,
                    range,
                    &mut scratch,
                    &mut tests,
                    &mut |pa, a, pb, b| {
                        if ctx.moved(pa) || ctx.moved(pb) {
                            push_pair(&mut sink, filters, a.id, b.id)
                        } else {
                            Ok(())
                        }
                    },
                )?;
            } else {
                sweep::sweep_rows(&ctx, range, &mut scratch, &mut tests, &mut |_, a, _, b| {
                    push_pair(&mut sink, filters, a.id, b.id)
                })?;
            }
            Ok(tests)
        })
        .collect();
    let mut tests = 0u64;
    for r in results {
        tests += r?;
    }
    let total: usize = buffers.iter().map(Vec::len).sum();
    try_reserve(out, total, "pair output")?;
    for b in buffers.iter() {
        out.extend_from_slice(b);
    }
    Ok(tests)
}
