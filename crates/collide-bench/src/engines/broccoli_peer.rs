//! broccoli 6.3: a KD-tree / sweep-and-prune hybrid, rebuilt every frame
//! (as it is meant to be).

use broccoli::aabb::Rect;
use broccoli::aabb::pin::AabbPin;
use broccoli::rect;
use collide::{Aabb, Pair};

use super::{Engine, Frame, FrameStats};

fn to_rect(b: &Aabb) -> Rect<f32> {
    rect(b.min().x, b.max().x, b.min().y, b.max().y)
}

struct Rebuild {
    bots: Vec<(Rect<f32>, u32)>,
}

impl Engine for Rebuild {
    fn frame(&mut self, f: &Frame<'_>, out: &mut Vec<Pair>) -> anyhow::Result<FrameStats> {
        let Frame { boxes, .. } = *f;
        self.bots.clear();
        self.bots.extend(
            boxes
                .iter()
                .enumerate()
                .map(|(i, b)| (to_rect(b), i as u32)),
        );
        let mut tree = broccoli::Tree::new(&mut self.bots);
        tree.find_colliding_pairs(|a, b| {
            out.push(Pair::ordered(*a.unpack_inner(), *b.unpack_inner()));
        });
        Ok(FrameStats::default())
    }
}

pub fn rebuild() -> Box<dyn Engine> {
    Box::new(Rebuild { bots: Vec::new() })
}

struct Between {
    a: Vec<(Rect<f32>, u32)>,
    b: Vec<(Rect<f32>, u32)>,
}

impl Engine for Between {
    fn frame(&mut self, f: &Frame<'_>, out: &mut Vec<Pair>) -> anyhow::Result<FrameStats> {
        let Frame { boxes, others, .. } = *f;
        self.a.clear();
        self.a.extend(
            boxes
                .iter()
                .enumerate()
                .map(|(i, b)| (to_rect(b), i as u32)),
        );
        self.b.clear();
        self.b.extend(
            others
                .iter()
                .enumerate()
                .map(|(i, b)| (to_rect(b), i as u32)),
        );
        // The tree around the bigger set, as broccoli's docs advise; one
        // intersection query per element of the smaller set. (Its
        // `find_colliding_pairs_with` is not used: in 6.3 it goes through
        // `find_all_in_rect`, which tests containment, and misses pairs.)
        let mut big = broccoli::Tree::new(&mut self.b);
        for a in self.a.iter_mut() {
            big.find_all_intersect_rect(AabbPin::from_mut(a), |x, y| {
                out.push(Pair {
                    a: *x.unpack_inner(),
                    b: *y.unpack_inner(),
                });
            });
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
