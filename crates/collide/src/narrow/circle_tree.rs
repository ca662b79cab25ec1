//! A tree of bounding circles over a compound's parts, built once with the
//! compound. Circles do not care how the compound is turned, so two trees
//! are walked against each other in any placement by moving one node
//! centre per step into the other's frame: the pairs of parts whose circles
//! overlap come out in O(log P + log Q) per pair found, instead of every
//! part of one against every part of the other.

use std::cell::Cell;

use crate::error::{CollideError, try_reserve_exact};
use crate::math::{Real, Vec2};
use crate::transform::Transform;

/// A node: a circle holding every part below it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Node {
    centre: Vec2,
    radius: Real,
    /// A leaf's part index, or an inner node's first child (the second
    /// follows its whole subtree, at `second`).
    first: u32,
    /// 0 for a leaf.
    second: u32,
}

impl Node {
    /// A tree of one leaf: how a convex shape joins a walk.
    pub(crate) fn leaf(centre: Vec2, radius: Real, part: u32) -> Self {
        Self {
            centre,
            radius,
            first: part,
            second: 0,
        }
    }

    fn is_leaf(&self) -> bool {
        self.second == 0
    }
}

/// Builds the tree over `circles` (centre, radius) of parts `0..n`, root first: split at the median centre along the wider axis.
///
/// # Errors
/// [`CollideError::OutOfMemory`](crate::CollideError) when the tree does
/// not fit.
pub(crate) fn build(circles: &[(Vec2, Real)]) -> Result<Vec<Node>, CollideError> {
    let mut order: Vec<u32> = Vec::new();
    try_reserve_exact(&mut order, circles.len(), "compound tree")?;
    order.extend(0..circles.len() as u32);
    let mut nodes = Vec::new();
    try_reserve_exact(&mut nodes, 2 * circles.len(), "compound tree")?;
    if !circles.is_empty() {
        grow(circles, &mut order, &mut nodes);
    }
    Ok(nodes)
}

fn grow(circles: &[(Vec2, Real)], order: &mut [u32], nodes: &mut Vec<Node>) -> usize {
    let at = nodes.len();
    let (lo, hi) = order.iter().fold(
        (
            Vec2::new(Real::INFINITY, Real::INFINITY),
            Vec2::new(Real::NEG_INFINITY, Real::NEG_INFINITY),
        ),
        |(lo, hi), &i| {
            let (c, r) = circles[i as usize];
            (
                Vec2::new(lo.x.min(c.x - r), lo.y.min(c.y - r)),
                Vec2::new(hi.x.max(c.x + r), hi.y.max(c.y + r)),
            )
        },
    );
    let centre = (lo + hi) * 0.5;
    let radius = order
        .iter()
        .map(|&i| {
            let (c, r) = circles[i as usize];
            (c - centre).length() + r
        })
        .fold(0.0, Real::max);
    if let [only] = order {
        nodes.push(Node::leaf(centre, radius, *only));
        return at;
    }
    nodes.push(Node {
        centre,
        radius,
        first: 0,
        second: 0,
    });
    let wide_x = hi.x - lo.x >= hi.y - lo.y;
    let key = |i: &u32| {
        let c = circles[*i as usize].0;
        if wide_x { c.x } else { c.y }
    };
    let half = order.len() / 2;
    order.select_nth_unstable_by(half, |a, b| key(a).total_cmp(&key(b)));
    let (left, right) = order.split_at_mut(half);
    let first = grow(circles, left, nodes) as u32;
    let second = grow(circles, right, nodes) as u32;
    nodes[at].first = first;
    nodes[at].second = second;
    at
}

/// Deepest pair walk: one step per level of each tree, and a tree of any
/// size that fits in memory is under 64 levels deep.
const STACK: usize = 160;

/// Calls `f(part of a, part of b)` for every pair of leaves whose circles
/// overlap by at least `floor` (0: touching will do; a search for the
/// deepest pair raises it as it goes), `b`'s tree placed in `a`'s frame by
/// `xf`, until `f` returns false.
pub(crate) fn overlapping_leaves(
    a: &[Node],
    b: &[Node],
    xf: &Transform,
    floor: &Cell<Real>,
    mut f: impl FnMut(u32, u32) -> bool,
) {
    if a.is_empty() || b.is_empty() {
        return;
    }
    let inverse = xf.inverse();
    let mut stack = [(0u32, 0u32); STACK];
    let mut depth = 1;
    while depth > 0 {
        depth -= 1;
        let (i, j) = stack[depth];
        let (na, nb) = (a[i as usize], b[j as usize]);
        // Circles overlapping by less than `floor` cannot hold a pair that
        // overlaps by more (moving one circle clear moves its part clear).
        let need = na.radius + nb.radius - floor.get();
        if need < 0.0 || (xf.apply(nb.centre) - na.centre).length_squared() > need * need {
            continue;
        }
        let open_a = match (na.is_leaf(), nb.is_leaf()) {
            (true, true) => {
                if !f(na.first, nb.first) {
                    return;
                }
                continue;
            }
            // Open the bigger circle, or the only one that opens.
            (false, true) => true,
            (true, false) => false,
            (false, false) => na.radius >= nb.radius,
        };
        // Deeper child first (its circle reaches furthest past the other's
        // centre): where the shapes overlap, the walk heads into the
        // overlap and a yes/no query stops at its first pair.
        let (first, second) = if open_a {
            let other = xf.apply(nb.centre);
            let gap = |k: u32| (a[k as usize].centre - other).length() - a[k as usize].radius;
            if gap(na.second) < gap(na.first) {
                ((na.second, j), (na.first, j))
            } else {
                ((na.first, j), (na.second, j))
            }
        } else {
            let other = inverse.apply(na.centre);
            let gap = |k: u32| (b[k as usize].centre - other).length() - b[k as usize].radius;
            if gap(nb.second) < gap(nb.first) {
                ((i, nb.second), (i, nb.first))
            } else {
                ((i, nb.first), (i, nb.second))
            }
        };
        let pairs = [first, second];
        if depth + 2 > STACK {
            // Unreachable for trees built here; never lose a pair.
            brute_force(a, b, &mut f);
            return;
        }
        stack[depth] = pairs[1];
        stack[depth + 1] = pairs[0];
        depth += 2;
    }
}

fn brute_force(a: &[Node], b: &[Node], f: &mut impl FnMut(u32, u32) -> bool) {
    for na in a.iter().filter(|n| n.is_leaf()) {
        for nb in b.iter().filter(|n| n.is_leaf()) {
            if !f(na.first, nb.first) {
                return;
            }
        }
    }
}
