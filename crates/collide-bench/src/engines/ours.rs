//! collide's own structures.

use collide::{
    AdjacentSectors, BroadPhase, BruteForce, Execution, Grid, GridConfig, Pair, SectorMode,
    Sectors, SweepAndPrune,
};

use super::{Engine, Frame, FrameStats};
use crate::workloads::{World, max_extent, pow2_above};

/// Any [`BroadPhase`], rebuilt from the boxes every frame.
struct Stateless<B> {
    make: fn(&World) -> anyhow::Result<B>,
    inner: Option<B>,
}

impl<B: BroadPhase> Engine for Stateless<B> {
    fn prepare(&mut self, world: &World) -> anyhow::Result<()> {
        self.inner = Some((self.make)(world)?);
        Ok(())
    }

    fn frame(&mut self, f: &Frame<'_>, out: &mut Vec<Pair>) -> anyhow::Result<FrameStats> {
        let Frame { boxes, .. } = *f;
        let bp = self
            .inner
            .as_mut()
            .ok_or_else(|| anyhow::anyhow!("not prepared"))?;
        bp.find_pairs(boxes, out)?;
        Ok(FrameStats {
            tests: Some(bp.last_stats().tests),
        })
    }
}

fn stateless<B: BroadPhase + 'static>(make: fn(&World) -> anyhow::Result<B>) -> Box<dyn Engine> {
    Box::new(Stateless { make, inner: None })
}

fn grid_with(execution: Execution) -> Grid {
    Grid::with_config(GridConfig { execution })
}

pub fn grid_rebuild() -> Box<dyn Engine> {
    stateless(|_| Ok(grid_with(Execution::Serial)))
}

pub fn grid_rebuild_par() -> Box<dyn Engine> {
    stateless(|_| Ok(grid_with(Execution::Parallel)))
}

pub fn sectors_raw() -> Box<dyn Engine> {
    stateless(|w| {
        Ok(Sectors::new(
            pow2_above(max_extent(&w.boxes), 2.0),
            SectorMode::Raw,
        )?)
    })
}

pub fn sectors_exact() -> Box<dyn Engine> {
    stateless(|w| {
        Ok(Sectors::new(
            pow2_above(max_extent(&w.boxes), 2.0),
            SectorMode::Exact,
        )?)
    })
}

pub fn adjacent() -> Box<dyn Engine> {
    stateless(|w| Ok(AdjacentSectors::new(pow2_above(max_extent(&w.boxes), 1.0))?))
}

pub fn sweep_and_prune() -> Box<dyn Engine> {
    stateless(|_| Ok(SweepAndPrune::new()))
}

pub fn brute_force() -> Box<dyn Engine> {
    stateless(|_| Ok(BruteForce::new()))
}

/// The grid kept between frames: moved objects are updated, and the frame
/// asks for the pairs touching them.
struct Incremental {
    grid: Grid,
}

impl Engine for Incremental {
    fn prepare(&mut self, world: &World) -> anyhow::Result<()> {
        // Bulk load, as the docs advise; the initial pairs are not wanted.
        self.grid.rebuild(&world.boxes)?;
        self.grid.forget_moved();
        Ok(())
    }

    fn frame(&mut self, f: &Frame<'_>, out: &mut Vec<Pair>) -> anyhow::Result<FrameStats> {
        let Frame { boxes, moved, .. } = *f;
        for &i in moved {
            // After `rebuild`, object i's handle has index i.
            let h = self
                .grid
                .handle(i)
                .ok_or_else(|| anyhow::anyhow!("no object {i}"))?;
            self.grid.update(h, boxes[i as usize])?;
        }
        self.grid.find_moved_pairs(out)?;
        Ok(FrameStats {
            tests: Some(self.grid.last_stats().tests),
        })
    }
}

pub fn grid_incremental() -> Box<dyn Engine> {
    Box::new(Incremental {
        grid: grid_with(Execution::Serial),
    })
}

pub fn grid_incremental_par() -> Box<dyn Engine> {
    Box::new(Incremental {
        grid: grid_with(Execution::Parallel),
    })
}

/// Two grids, rebuilt each frame, asked for the pairs between them.
struct Between {
    a: Grid,
    b: Grid,
}

impl Engine for Between {
    fn frame(&mut self, f: &Frame<'_>, out: &mut Vec<Pair>) -> anyhow::Result<FrameStats> {
        let Frame { boxes, others, .. } = *f;
        self.a.rebuild(boxes)?;
        self.b.rebuild(others)?;
        self.a.find_pairs_between(&mut self.b, out)?;
        Ok(FrameStats {
            tests: Some(self.a.last_stats().tests),
        })
    }
}

pub fn grid_between() -> Box<dyn Engine> {
    Box::new(Between {
        a: Grid::new(),
        b: Grid::new(),
    })
}
