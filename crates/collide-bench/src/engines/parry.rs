//! parry2d 0.31's `Bvh`, as rapier uses it: rebuilt (binned SAH) and
//! traversed against itself, or kept and updated incrementally
//! (`insert_or_update_partially`, `optimize_incremental`, `refit`, then a
//! traversal of changed leaves only).

use collide::{Aabb, Pair};
use parry2d::bounding_volume::Aabb as PAabb;
use parry2d::math::Vector;
use parry2d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};

use super::{Engine, Frame, FrameStats, push_if_overlapping};
use crate::workloads::World;

fn to_parry(b: &Aabb) -> PAabb {
    PAabb::new(
        Vector::new(b.min().x, b.min().y),
        Vector::new(b.max().x, b.max().y),
    )
}

/// Change-detection margin: small enough that every moving object (at least
/// 0.1 px per frame) is flagged, so the pairs are those touching moved ones.
const MARGIN: f32 = 1e-3;

struct Rebuild {
    leaves: Vec<PAabb>,
    workspace: BvhWorkspace,
}

impl Engine for Rebuild {
    fn frame(&mut self, f: &Frame<'_>, out: &mut Vec<Pair>) -> anyhow::Result<FrameStats> {
        let Frame { boxes, .. } = *f;
        self.leaves.clear();
        self.leaves.extend(boxes.iter().map(to_parry));
        let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &self.leaves);
        bvh.traverse_bvtt_single_tree::<false>(&mut self.workspace, &mut |a, b| {
            out.push(Pair::ordered(a, b));
        });
        Ok(FrameStats::default())
    }
}

pub fn rebuild() -> Box<dyn Engine> {
    Box::new(Rebuild {
        leaves: Vec::new(),
        workspace: BvhWorkspace::default(),
    })
}

struct Incremental {
    bvh: Bvh,
    workspace: BvhWorkspace,
}

impl Engine for Incremental {
    fn prepare(&mut self, world: &World) -> anyhow::Result<()> {
        self.bvh = Bvh::new();
        for (i, b) in world.boxes.iter().enumerate() {
            self.bvh
                .insert_or_update_partially(to_parry(b), i as u32, MARGIN);
        }
        self.bvh.optimize_incremental(&mut self.workspace);
        self.bvh.refit(&mut self.workspace);
        self.bvh
            .traverse_bvtt_single_tree::<true>(&mut self.workspace, &mut |_, _| {});
        // A second refit clears the change flags of the initial insertion.
        self.bvh.refit(&mut self.workspace);
        Ok(())
    }

    fn frame(&mut self, f: &Frame<'_>, out: &mut Vec<Pair>) -> anyhow::Result<FrameStats> {
        let Frame { boxes, moved, .. } = *f;
        for &i in moved {
            self.bvh
                .insert_or_update_partially(to_parry(&boxes[i as usize]), i, MARGIN);
        }
        self.bvh.optimize_incremental(&mut self.workspace);
        self.bvh.refit(&mut self.workspace);
        self.bvh
            .traverse_bvtt_single_tree::<true>(&mut self.workspace, &mut |a, b| {
                push_if_overlapping(boxes, a, b, out);
            });
        Ok(FrameStats::default())
    }
}

pub fn incremental() -> Box<dyn Engine> {
    Box::new(Incremental {
        bvh: Bvh::new(),
        workspace: BvhWorkspace::default(),
    })
}

struct Between {
    a: Vec<PAabb>,
    b: Vec<PAabb>,
}

impl Engine for Between {
    fn frame(&mut self, f: &Frame<'_>, out: &mut Vec<Pair>) -> anyhow::Result<FrameStats> {
        let Frame { boxes, others, .. } = *f;
        self.a.clear();
        self.a.extend(boxes.iter().map(to_parry));
        self.b.clear();
        self.b.extend(others.iter().map(to_parry));
        let ta = Bvh::from_leaves(BvhBuildStrategy::Binned, &self.a);
        let tb = Bvh::from_leaves(BvhBuildStrategy::Binned, &self.b);
        for (i, j) in ta.leaf_pairs(&tb, |x, y| x.intersects(y)) {
            out.push(Pair { a: i, b: j });
        }
        Ok(FrameStats::default())
    }
}

pub fn between() -> Box<dyn Engine> {
    Box::new(Between {
        a: Vec::new(),
        b: Vec::new(),
    })
}
