//! Everything the benchmark times, behind one trait: our structures and the
//! peers a user would pick instead, each used as its authors intend.

mod box2d;
mod broccoli_peer;
mod ours;
mod parry;
mod rstar_peer;

use collide::{Aabb, Pair};

use crate::workloads::{Family, World};

/// What a frame is asked to find.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Track {
    /// Every intersecting pair, rebuilding from the boxes each frame.
    Rebuild,
    /// Pairs touching the objects moved this frame, from a structure kept
    /// between frames.
    Incremental,
    /// Pairs between the two sets of a bipartite world.
    Bipartite,
}

/// Counters a frame may report.
#[derive(Clone, Copy, Debug, Default)]
pub struct FrameStats {
    /// Box tests, where the engine counts them.
    pub tests: Option<u64>,
}

/// What one frame gives an engine.
#[derive(Clone, Copy)]
pub struct Frame<'a> {
    /// This frame's boxes (for a bipartite world, the first set).
    pub boxes: &'a [Aabb],
    /// The second set of a bipartite world (else empty).
    pub others: &'a [Aabb],
    /// Indices of the boxes that moved since the last frame.
    pub moved: &'a [u32],
}

/// One engine under test.
pub trait Engine {
    /// Gets ready for `world` (not timed): builds persistent structures.
    /// Engines that rebuild every frame need nothing.
    fn prepare(&mut self, _world: &World) -> anyhow::Result<()> {
        Ok(())
    }

    /// One timed frame: appends the pairs to `out` (ordered `a < b`, except
    /// bipartite pairs: `a` from `boxes`, `b` from `others`).
    fn frame(&mut self, f: &Frame<'_>, out: &mut Vec<Pair>) -> anyhow::Result<FrameStats>;

    /// Bytes the engine holds outside Rust's allocator (C code), at most.
    fn native_bytes(&self) -> usize {
        0
    }
}

/// A named constructor.
pub struct Spec {
    pub name: &'static str,
    pub track: Track,
    /// Uses the rayon pool the runner installs.
    pub parallel: bool,
    pub make: fn() -> Box<dyn Engine>,
}

/// The engines to run on a world, or why one is skipped.
pub fn for_world(world: &World) -> Vec<Result<Spec, (&'static str, String)>> {
    let n = world.boxes.len();
    let family = world.family;
    let mut v: Vec<Result<Spec, (&'static str, String)>> = Vec::new();
    fn add(
        v: &mut Vec<Result<Spec, (&'static str, String)>>,
        name: &'static str,
        track: Track,
        parallel: bool,
        make: fn() -> Box<dyn Engine>,
    ) {
        v.push(Ok(Spec {
            name,
            track,
            parallel,
            make,
        }))
    }
    if family == Family::Bipartite {
        add(&mut v, "grid", Track::Bipartite, false, ours::grid_between);
        add(
            &mut v,
            "parry2d-bvh",
            Track::Bipartite,
            false,
            parry::between,
        );
        add(
            &mut v,
            "broccoli",
            Track::Bipartite,
            false,
            broccoli_peer::between,
        );
        add(
            &mut v,
            "rstar",
            Track::Bipartite,
            false,
            rstar_peer::between,
        );
        box2d::add_between(&mut v);
        return v;
    }
    add(&mut v, "grid", Track::Rebuild, false, ours::grid_rebuild);
    add(
        &mut v,
        "grid-par",
        Track::Rebuild,
        true,
        ours::grid_rebuild_par,
    );
    if family.is_motion() {
        add(
            &mut v,
            "grid",
            Track::Incremental,
            false,
            ours::grid_incremental,
        );
        add(
            &mut v,
            "grid-par",
            Track::Incremental,
            true,
            ours::grid_incremental_par,
        );
        add(
            &mut v,
            "parry2d-bvh",
            Track::Incremental,
            false,
            parry::incremental,
        );
        box2d::add_incremental(&mut v);
    }
    // Moertel's grid only where his size rule gives sectors of reasonable
    // size; elsewhere it shows why the rule must go, at the small sizes.
    let extent = crate::workloads::max_extent(&world.boxes);
    if extent <= 64.0 || n <= 100_000 {
        add(
            &mut v,
            "sectors-raw",
            Track::Rebuild,
            false,
            ours::sectors_raw,
        );
        add(
            &mut v,
            "sectors-exact",
            Track::Rebuild,
            false,
            ours::sectors_exact,
        );
    } else {
        v.push(Err((
            "sectors",
            format!(
                "objects up to {extent:.0} px need {:.0}-px sectors",
                2.0 * extent
            ),
        )));
    }
    if extent <= 64.0 && n <= 100_000 {
        add(
            &mut v,
            "adjacent-sectors",
            Track::Rebuild,
            false,
            ours::adjacent,
        );
    }
    if n <= 100_000 {
        add(
            &mut v,
            "sweep-and-prune",
            Track::Rebuild,
            false,
            ours::sweep_and_prune,
        );
    } else {
        v.push(Err((
            "sweep-and-prune",
            "O(n·column) at 1M: seconds per frame".into(),
        )));
    }
    if n <= 10_000 {
        add(
            &mut v,
            "brute-force",
            Track::Rebuild,
            false,
            ours::brute_force,
        );
    }
    add(&mut v, "parry2d-bvh", Track::Rebuild, false, parry::rebuild);
    add(
        &mut v,
        "broccoli",
        Track::Rebuild,
        false,
        broccoli_peer::rebuild,
    );
    add(&mut v, "rstar", Track::Rebuild, false, rstar_peer::rebuild);
    box2d::add_rebuild(&mut v);
    v
}

/// Appends `Pair::ordered(i, j)` when the two boxes truly intersect: peers
/// that report candidates (fat boxes, node overlaps) are filtered exactly.
#[inline]
pub fn push_if_overlapping(boxes: &[Aabb], i: u32, j: u32, out: &mut Vec<Pair>) {
    if boxes[i as usize].intersects(&boxes[j as usize]) {
        out.push(Pair::ordered(i, j));
    }
}
