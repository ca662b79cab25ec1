//! The narrow phase: exact tests between placed shapes.
//!
//! Every query takes two shapes, each with the [`Transform`] that places it
//! in the world, and dispatches on the pair. Convex pairs go to one
//! implementation written against the core-plus-radius view of
//! [`shape`]; compounds pair their parts by walking trees of bounding
//! circles (`circle_tree.rs`).
//!
//! | query | answers | method |
//! | --- | --- | --- |
//! | [`intersects`] | yes / no | bounding discs or a closed form when sure; else separating axes, stopping at the first that separates; rounded corners by distance |
//! | [`separating_axis`] | an axis that separates, if any | as above |
//! | [`contact`] | normal, depth, 1–2 points | deepest axis + edge clipping |
//! | [`closest_points`], [`distance`] | for apart shapes | GJK |
//! | [`time_of_impact`] | first touch of two moving shapes | conservative advancement on the distance |
//!
//! Touching counts as intersecting, as it does for [`Aabb`](crate::Aabb).

mod circle_tree;
mod contact;
mod gjk;
pub(crate) mod polygon;
mod sat;
pub(crate) mod shape;
mod shortcut;
mod toi;

pub use contact::{Contact, ContactPoint};
pub use toi::Impact;

use std::cell::Cell;

use crate::error::CollideError;
use crate::math::{Real, Vec2};
use crate::transform::Transform;
use shape::{Core, Shape};

/// The closest points of two shapes that do not overlap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClosestPoints {
    /// The point on the first shape nearest the second (world).
    pub on_a: Vec2,
    /// The point on the second shape nearest the first (world).
    pub on_b: Vec2,
    /// Their distance (> 0).
    pub distance: Real,
    /// Unit direction from `on_a` to `on_b`, computed from the shapes'
    /// cores, so it stays accurate even when the gap is tiny.
    pub normal: Vec2,
}

fn check(a: &Transform, b: &Transform) -> Result<(), CollideError> {
    if a.is_finite() && b.is_finite() {
        Ok(())
    } else {
        Err(CollideError::NonFiniteTransform {
            what: "shape transform",
        })
    }
}

/// The convex pieces of a shape with the transform placing each in the world.
fn for_each_piece<'s>(
    shape: &'s Shape,
    transform: &Transform,
    mut f: impl FnMut(Core<'s>, Transform) -> bool,
) {
    match shape {
        Shape::Compound(c) => {
            for part in c.parts() {
                if !f(part.shape.core(), transform.compose(&part.transform)) {
                    return;
                }
            }
        }
        _ => {
            if let Some(core) = shape.as_convex() {
                f(core, *transform);
            }
        }
    }
}

/// Calls `f` for every pair of convex pieces of `a` and `b` whose bounding
/// circles overlap, until `f` returns false: a walk of the two compounds'
/// circle trees (a convex shape is a tree of one leaf).
fn for_each_pair<'s>(
    a: &'s Shape,
    xa: &Transform,
    b: &'s Shape,
    xb: &Transform,
    floor: &Cell<Real>,
    mut f: impl FnMut(Core<'s>, Transform, Core<'s>, Transform) -> bool,
) {
    if let (Some(ca), Some(cb)) = (a.as_convex(), b.as_convex()) {
        f(ca, *xa, cb, *xb);
        return;
    }
    let alone = |s: &Shape| {
        s.as_convex().map(|c| {
            [circle_tree::Node::leaf(
                c.bound.centre,
                c.bound.outer + c.radius,
                0,
            )]
        })
    };
    let (alone_a, alone_b) = (alone(a), alone(b));
    fn tree<'t>(
        s: &'t Shape,
        alone: &'t Option<[circle_tree::Node; 1]>,
    ) -> &'t [circle_tree::Node] {
        match s {
            Shape::Compound(c) => c.tree(),
            _ => alone.as_ref().map_or(&[], |n| n.as_slice()),
        }
    }
    let piece = |s: &'s Shape, x: &Transform, i: u32| match s {
        Shape::Compound(c) => c
            .parts()
            .get(i as usize)
            .map(|part| (part.shape.core(), x.compose(&part.transform))),
        _ => s.as_convex().map(|core| (core, *x)),
    };
    circle_tree::overlapping_leaves(
        tree(a, &alone_a),
        tree(b, &alone_b),
        &xa.relative(xb),
        floor,
        |i, j| match (piece(a, xa, i), piece(b, xb, j)) {
            (Some((ca, ta)), Some((cb, tb))) => f(ca, ta, cb, tb),
            _ => true,
        },
    );
}

pub(crate) fn intersects_cores(a: &Core<'_>, b: &Core<'_>, xf: &Transform) -> bool {
    let r = a.radius + b.radius;
    if let ([pa], [pb]) = (a.points, b.points) {
        // Two discs: one distance, no axes.
        return (xf.apply(*pb) - *pa).length_squared() <= r * r;
    }
    if let Some(answer) = shortcut::by_bounds(a, b, xf) {
        return answer;
    }
    let mut best = Real::NEG_INFINITY;
    if !a.normals.is_empty() {
        let s = sat::max_separation(a, b, xf, r).separation;
        if s > r {
            return false;
        }
        best = s;
    }
    if !b.normals.is_empty() {
        let s = sat::max_separation(b, a, &xf.inverse(), r).separation;
        if s > r {
            return false;
        }
        best = best.max(s);
    }
    if best <= 0.0 && best > Real::NEG_INFINITY {
        return true;
    }
    // Rounded shapes with no separating face: the axis towards the closest
    // feature decides (the circle's axis towards the nearest corner).
    gjk::distance(a, b, xf).distance <= r
}

/// Do the shapes overlap or touch?
///
/// # Errors
/// [`CollideError::NonFiniteTransform`] when a transform holds NaN or ∞.
///
/// ```
/// use collide::{Circle, Rect, Shape, Transform, intersects};
/// let wall = Shape::Rect(Rect::new(5.0, 0.5)?);
/// let ball = Shape::Circle(Circle::new(1.0)?);
/// let here = Transform::translation([0.0, 1.4])?;
/// assert!(intersects(&wall, &Transform::IDENTITY, &ball, &here)?);
/// # Ok::<(), collide::CollideError>(())
/// ```
pub fn intersects(
    a: &Shape,
    xa: &Transform,
    b: &Shape,
    xb: &Transform,
) -> Result<bool, CollideError> {
    check(xa, xb)?;
    match (a, b) {
        (Shape::Circle(ca), Shape::Circle(cb)) => {
            return Ok(shortcut::discs_intersect(
                xa.translation,
                ca.radius(),
                xb.translation,
                cb.radius(),
            ));
        }
        (Shape::Rect(ra), Shape::Rect(rb)) => {
            if let Some(answer) = shortcut::rects_intersect(ra, xa, rb, xb) {
                return Ok(answer);
            }
        }
        _ => {}
    }
    let mut hit = false;
    for_each_pair(a, xa, b, xb, &Cell::new(0.0), |ca, ta, cb, tb| {
        hit = intersects_cores(&ca, &cb, &ta.relative(&tb));
        !hit
    });
    Ok(hit)
}

/// A world-space unit axis on which the shapes' projections (radii
/// included) are disjoint, or `None` when they intersect. For compounds,
/// the axis separates one pair of parts only, so it is not offered:
/// [`CollideError::Unsupported`].
///
/// # Errors
/// [`CollideError::NonFiniteTransform`] or [`CollideError::Unsupported`].
pub fn separating_axis(
    a: &Shape,
    xa: &Transform,
    b: &Shape,
    xb: &Transform,
) -> Result<Option<Vec2>, CollideError> {
    check(xa, xb)?;
    let (Some(ca), Some(cb)) = (a.as_convex(), b.as_convex()) else {
        return Err(CollideError::Unsupported {
            operation: "separating_axis",
            reason: "compound shapes have no single separating axis; test their parts",
        });
    };
    let xf = xa.relative(xb);
    let r = ca.radius + cb.radius;
    if !ca.normals.is_empty() {
        let f = sat::max_separation(&ca, &cb, &xf, r);
        if f.separation > r {
            return Ok(Some(xa.rotation.apply(ca.normals[f.edge])));
        }
    }
    if !cb.normals.is_empty() {
        let f = sat::max_separation(&cb, &ca, &xf.inverse(), r);
        if f.separation > r {
            return Ok(Some(xb.rotation.apply(cb.normals[f.edge])));
        }
    }
    let d = gjk::distance(&ca, &cb, &xf);
    if d.distance > r {
        let axis = (d.on_b - d.on_a) * (1.0 / d.distance);
        return Ok(Some(xa.rotation.apply(axis)));
    }
    Ok(None)
}

/// The contact between two shapes: the minimum translation (normal from
/// `a` to `b`, depth) and contact points; `None` when they are apart.
/// For compounds, the deepest contact among the parts' pairs.
///
/// # Errors
/// [`CollideError::NonFiniteTransform`] when a transform holds NaN or ∞.
pub fn contact(
    a: &Shape,
    xa: &Transform,
    b: &Shape,
    xb: &Transform,
) -> Result<Option<Contact>, CollideError> {
    check(xa, xb)?;
    if let (Shape::Circle(ca), Shape::Circle(cb)) = (a, b) {
        return Ok(contact::discs(
            xa.translation,
            ca.radius(),
            xb.translation,
            cb.radius(),
            xa.rotation,
        ));
    }
    let mut best: Option<Contact> = None;
    // Only pairs that could overlap deeper than the deepest so far.
    let floor = Cell::new(0.0);
    for_each_pair(a, xa, b, xb, &floor, |ca, ta, cb, tb| {
        if let Some(c) = contact::contact(&ca, &cb, &ta.relative(&tb)) {
            let c = c.to_world(&ta);
            if best.is_none_or(|b| c.depth > b.depth) {
                best = Some(c);
                floor.set(c.depth);
            }
        }
        true
    });
    Ok(best)
}

/// Appends one contact per touching pair of parts to `out` (one at most for
/// two convex shapes), and returns how many it added.
///
/// # Errors
/// [`CollideError::NonFiniteTransform`] or [`CollideError::OutOfMemory`].
pub fn contacts(
    a: &Shape,
    xa: &Transform,
    b: &Shape,
    xb: &Transform,
    out: &mut Vec<Contact>,
) -> Result<usize, CollideError> {
    check(xa, xb)?;
    let before = out.len();
    let mut result = Ok(());
    for_each_pair(a, xa, b, xb, &Cell::new(0.0), |ca, ta, cb, tb| {
        if let Some(c) = contact::contact(&ca, &cb, &ta.relative(&tb)) {
            if let Err(e) = crate::error::try_reserve(out, 1, "contacts") {
                result = Err(e);
                return false;
            }
            out.push(c.to_world(&ta));
        }
        true
    });
    result.map(|()| out.len() - before)
}

/// The closest points of two shapes, or `None` when they overlap or touch.
///
/// # Errors
/// [`CollideError::NonFiniteTransform`] when a transform holds NaN or ∞.
pub fn closest_points(
    a: &Shape,
    xa: &Transform,
    b: &Shape,
    xb: &Transform,
) -> Result<Option<ClosestPoints>, CollideError> {
    check(xa, xb)?;
    let mut best: Option<ClosestPoints> = None;
    let mut touching = false;
    for_each_pieces_all(a, xa, b, xb, |ca, ta, cb, tb| {
        match convex_closest(&ca, &ta, &cb, &tb) {
            None => {
                touching = true;
                false
            }
            Some(c) => {
                if best.is_none_or(|b| c.distance < b.distance) {
                    best = Some(c);
                }
                true
            }
        }
    });
    Ok(if touching { None } else { best })
}

/// Distance between two shapes: 0 when they overlap or touch.
///
/// # Errors
/// [`CollideError::NonFiniteTransform`] when a transform holds NaN or ∞.
pub fn distance(
    a: &Shape,
    xa: &Transform,
    b: &Shape,
    xb: &Transform,
) -> Result<Real, CollideError> {
    Ok(closest_points(a, xa, b, xb)?.map_or(0.0, |c| c.distance))
}

/// Every pair of pieces, without culling (distance needs them all).
fn for_each_pieces_all<'s>(
    a: &'s Shape,
    xa: &Transform,
    b: &'s Shape,
    xb: &Transform,
    mut f: impl FnMut(Core<'s>, Transform, Core<'s>, Transform) -> bool,
) {
    let mut go_on = true;
    for_each_piece(a, xa, |ca, ta| {
        for_each_piece(b, xb, |cb, tb| {
            go_on = f(ca, ta, cb, tb);
            go_on
        });
        go_on
    });
}

pub(crate) fn convex_closest(
    ca: &Core<'_>,
    ta: &Transform,
    cb: &Core<'_>,
    tb: &Transform,
) -> Option<ClosestPoints> {
    let xf = ta.relative(tb);
    let r = ca.radius + cb.radius;
    if intersects_cores(ca, cb, &xf) {
        return None;
    }
    let d = gjk::distance(ca, cb, &xf);
    if d.distance <= r {
        return None;
    }
    let n = (d.on_b - d.on_a) * (1.0 / d.distance);
    let on_a = ta.apply(d.on_a + n * ca.radius);
    let on_b = ta.apply(d.on_b - n * cb.radius);
    Some(ClosestPoints {
        on_a,
        on_b,
        distance: d.distance - r,
        normal: ta.rotation.apply(n),
    })
}

pub use toi::time_of_impact;
