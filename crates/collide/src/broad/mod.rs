//! Broad phase: which pairs of boxes intersect, without testing all n² pairs.
//!
//! One file per method. All of them answer the same question with the same
//! rule (closed boxes: touching counts), so any one can be the oracle of any
//! other; [`BruteForce`] is the one the tests trust.

mod adjacent_sectors;
mod brute_force;
pub(crate) mod grid;
mod sectors;
mod sweep_and_prune;

pub use adjacent_sectors::AdjacentSectors;
pub use brute_force::BruteForce;
pub use grid::{Execution, Filter, Grid, GridConfig, Handle};
pub use sectors::{SectorMode, Sectors};
pub use sweep_and_prune::SweepAndPrune;

use crate::{Aabb, CollideError, Pair, QueryStats};

/// A method that finds every intersecting pair of a slice of boxes.
///
/// This is the stateless, rebuild-every-frame use. [`Grid`] also keeps
/// objects between frames (handles, `update`, pairs of moved objects only);
/// its implementation of this trait rebuilds from the slice.
pub trait BroadPhase {
    /// Appends to `out` one [`Pair`] `(i, j)`, `i < j`, for every two boxes
    /// `boxes[i]` and `boxes[j]` that intersect (exactly once, except for
    /// [`Sectors`] in [`SectorMode::Raw`], which reproduces Moertel's
    /// duplicates). Indices are positions in `boxes`. The order is
    /// deterministic for a given input.
    ///
    /// # Errors
    /// [`CollideError::OutOfMemory`] if a buffer sized by the input cannot be
    /// allocated; method-specific limits (object size for the fixed sector
    /// grids, at most `u32::MAX` objects).
    fn find_pairs(&mut self, boxes: &[Aabb], out: &mut Vec<Pair>) -> Result<(), CollideError>;

    /// Counters from the last [`find_pairs`](Self::find_pairs).
    fn last_stats(&self) -> QueryStats;
}

/// Objects are indexed by `u32` everywhere.
pub(crate) fn check_count(n: usize) -> Result<(), CollideError> {
    const LIMIT: usize = u32::MAX as usize;
    if n > LIMIT {
        return Err(CollideError::TooManyObjects {
            count: n,
            limit: LIMIT,
        });
    }
    Ok(())
}
