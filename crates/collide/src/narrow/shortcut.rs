//! Answers that settle a pair before the general tests run: bounding discs
//! for every pair, and closed forms for two circles and two rectangles
//! (the commonest pairs in games, where the general core view costs more
//! than the test itself).
//!
//! A shortcut only answers when it is sure by a margin ([`SLACK`] of the
//! sizes involved); near touching it defers to the general test, so
//! `intersects` and `contact` can never disagree on a pair.

use crate::math::{Real, Vec2};
use crate::narrow::shape::{Core, Rect};
use crate::transform::Transform;

/// Relative margin a shortcut needs before it answers: far above the
/// rounding of the general tests (a few ulps), far below any real gap.
const SLACK: Real = 1e-5;

/// Decides `a` against `b` (placed in `a`'s frame by `xf`) from their
/// bounding discs alone, when that is certain: `Some(false)` when even the
/// outer discs are apart, `Some(true)` when even the inner ones overlap.
#[inline]
pub(crate) fn by_bounds(a: &Core<'_>, b: &Core<'_>, xf: &Transform) -> Option<bool> {
    let r = a.radius + b.radius;
    let gap2 = (xf.apply(b.bound.centre) - a.bound.centre).length_squared();
    let outer = a.bound.outer + b.bound.outer + r;
    let slack = SLACK * (outer + xf.translation.x.abs() + xf.translation.y.abs());
    let far = outer + slack;
    if gap2 > far * far {
        return Some(false);
    }
    let near = a.bound.inner + b.bound.inner + r - slack;
    (near > 0.0 && gap2 < near * near).then_some(true)
}

/// Do two discs with these world centres and radii overlap or touch?
#[inline]
pub(crate) fn discs_intersect(ca: Vec2, ra: Real, cb: Vec2, rb: Real) -> bool {
    let r = ra + rb;
    (cb - ca).length_squared() <= r * r
}

/// Two placed rectangles by their four axes, relative to `a`: `Some` when
/// certain by the margin, `None` near touching.
#[inline]
pub(crate) fn rects_intersect(a: &Rect, xa: &Transform, b: &Rect, xb: &Transform) -> Option<bool> {
    let (ha, hb) = (a.half_extents(), b.half_extents());
    // b's centre and rotation in a's frame.
    let t = xa.rotation.apply_inverse(xb.translation - xa.translation);
    let (ra, rb) = (xa.rotation, xb.rotation);
    let c = ra.cos() * rb.cos() + ra.sin() * rb.sin();
    let s = ra.cos() * rb.sin() - ra.sin() * rb.cos();
    let (ac, as_) = (c.abs(), s.abs());
    // b's centre seen from b's own axes.
    let u = Vec2::new(c * t.x + s * t.y, c * t.y - s * t.x);
    let gaps = [
        t.x.abs() - (ha.x + hb.x * ac + hb.y * as_),
        t.y.abs() - (ha.y + hb.x * as_ + hb.y * ac),
        u.x.abs() - (hb.x + ha.x * ac + ha.y * as_),
        u.y.abs() - (hb.y + ha.x * as_ + ha.y * ac),
    ];
    let gap = gaps.into_iter().fold(Real::NEG_INFINITY, Real::max);
    let slack = SLACK * (ha.x + ha.y + hb.x + hb.y + t.x.abs() + t.y.abs());
    if gap > slack {
        Some(false)
    } else if gap < -slack {
        Some(true)
    } else {
        None
    }
}
