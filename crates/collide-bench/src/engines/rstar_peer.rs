//! rstar 0.14: an R*-tree, bulk-loaded every frame, then one envelope query
//! per object (its self-join).

use collide::{Aabb, Pair};
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{AABB, RTree};

use super::{Engine, Frame, FrameStats};

type Item = GeomWithData<Rectangle<[f32; 2]>, u32>;

fn envelope(b: &Aabb) -> AABB<[f32; 2]> {
    AABB::from_corners([b.min().x, b.min().y], [b.max().x, b.max().y])
}

fn item(i: usize, b: &Aabb) -> Item {
    GeomWithData::new(
        Rectangle::from_corners([b.min().x, b.min().y], [b.max().x, b.max().y]),
        i as u32,
    )
}

struct Rebuild;

impl Engine for Rebuild {
    fn frame(&mut self, f: &Frame<'_>, out: &mut Vec<Pair>) -> anyhow::Result<FrameStats> {
        let Frame { boxes, .. } = *f;
        let tree = RTree::bulk_load(boxes.iter().enumerate().map(|(i, b)| item(i, b)).collect());
        for (i, b) in boxes.iter().enumerate() {
            for hit in tree.locate_in_envelope_intersecting(envelope(b)) {
                if hit.data > i as u32 {
                    out.push(Pair {
                        a: i as u32,
                        b: hit.data,
                    });
                }
            }
        }
        Ok(FrameStats::default())
    }
}

pub fn rebuild() -> Box<dyn Engine> {
    Box::new(Rebuild)
}

struct Between;

impl Engine for Between {
    fn frame(&mut self, f: &Frame<'_>, out: &mut Vec<Pair>) -> anyhow::Result<FrameStats> {
        let Frame { boxes, others, .. } = *f;
        let tree = RTree::bulk_load(others.iter().enumerate().map(|(i, b)| item(i, b)).collect());
        for (i, b) in boxes.iter().enumerate() {
            for hit in tree.locate_in_envelope_intersecting(envelope(b)) {
                out.push(Pair {
                    a: i as u32,
                    b: hit.data,
                });
            }
        }
        Ok(FrameStats::default())
    }
}

pub fn between() -> Box<dyn Engine> {
    Box::new(Between)
}
