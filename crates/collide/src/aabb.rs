//! Axis-aligned bounding boxes.

use crate::error::CollideError;
use crate::math::{Real, Vec2};

/// An axis-aligned box: every point `p` with `min <= p <= max` on both axes.
///
/// **Boxes are closed: touching edges and corners intersect.** Every structure
/// in this crate follows that rule, and it is the rule parry, rstar, broccoli
/// and Box2D use. For pixel sprites, give the *last* pixel as `max` (a 30-pixel
/// sprite at `x` spans `x ..= x + 29`): two such sprites then intersect exactly
/// when they share a pixel, which is Moertel's `|dx| < 30` test.
///
/// Invariant: all four coordinates are finite and `min <= max` on both axes;
/// the constructors check it, so a NaN can never make a query silently miss.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    min: Vec2,
    max: Vec2,
}

impl Aabb {
    /// The box from `min` to `max`.
    ///
    /// # Errors
    /// [`CollideError::NonFinite`] if a coordinate is NaN or infinite,
    /// [`CollideError::Inverted`] if `min > max` on an axis.
    pub fn new(min: impl Into<Vec2>, max: impl Into<Vec2>) -> Result<Self, CollideError> {
        let (min, max) = (min.into(), max.into());
        if !(min.is_finite() && max.is_finite()) {
            return Err(CollideError::NonFinite {
                min: min.into(),
                max: max.into(),
            });
        }
        if min.x > max.x || min.y > max.y {
            return Err(CollideError::Inverted {
                min: min.into(),
                max: max.into(),
            });
        }
        Ok(Self { min, max })
    }

    /// The smallest box holding the two corners `a` and `b`, in any order.
    ///
    /// # Errors
    /// [`CollideError::NonFinite`] if a coordinate is NaN or infinite.
    pub fn from_corners(a: impl Into<Vec2>, b: impl Into<Vec2>) -> Result<Self, CollideError> {
        let (a, b) = (a.into(), b.into());
        if !(a.is_finite() && b.is_finite()) {
            return Err(CollideError::NonFinite {
                min: a.into(),
                max: b.into(),
            });
        }
        Ok(Self {
            min: a.min(b),
            max: a.max(b),
        })
    }

    /// The degenerate box holding only `p`.
    ///
    /// # Errors
    /// [`CollideError::NonFinite`] if a coordinate is NaN or infinite.
    pub fn from_point(p: impl Into<Vec2>) -> Result<Self, CollideError> {
        let p = p.into();
        Self::new(p, p)
    }

    /// The minimum corner.
    pub fn min(&self) -> Vec2 {
        self.min
    }

    /// The maximum corner.
    pub fn max(&self) -> Vec2 {
        self.max
    }

    /// `max.x - min.x`, rounded to nearest (may overflow to infinity for boxes
    /// spanning more than `f32::MAX`).
    pub fn width(&self) -> Real {
        self.max.x - self.min.x
    }

    /// `max.y - min.y`, rounded as [`width`](Self::width).
    pub fn height(&self) -> Real {
        self.max.y - self.min.y
    }

    /// Whether the two boxes share at least one point, decided by elimination
    /// (Jim Blinn's interview question, seed 002): they are apart only if one
    /// lies wholly left of, right of, above or below the other.
    #[inline]
    pub fn intersects(&self, other: &Aabb) -> bool {
        !(self.max.x < other.min.x
            || self.min.x > other.max.x
            || self.max.y < other.min.y
            || self.min.y > other.max.y)
    }

    /// Whether `p` lies in the box (edges included).
    pub fn contains_point(&self, p: Vec2) -> bool {
        self.min.x <= p.x && p.x <= self.max.x && self.min.y <= p.y && p.y <= self.max.y
    }

    /// The smallest box holding both.
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// Sweeps this box along `motion` (its displacement over the step, from
    /// `t = 0` to `t = 1`) against a still `other`: the first `t` at which
    /// they touch, and the normal of `other`'s face that was hit (pointing
    /// back at this box; zero when they already overlap at `t = 0`). Exact,
    /// by intersecting the time intervals in which each axis overlaps, so a
    /// box fast enough to skip over a thin wall between two frames still hits it.
    pub fn sweep(&self, motion: Vec2, other: &Aabb) -> Option<(Real, Vec2)> {
        if !motion.is_finite() {
            return None;
        }
        if self.intersects(other) {
            return Some((0.0, Vec2::ZERO));
        }
        let mut enter: Real = 0.0;
        let mut exit: Real = 1.0;
        let mut normal = Vec2::ZERO;
        let axes = [
            (
                self.min.x,
                self.max.x,
                other.min.x,
                other.max.x,
                motion.x,
                Vec2::new(1.0, 0.0),
            ),
            (
                self.min.y,
                self.max.y,
                other.min.y,
                other.max.y,
                motion.y,
                Vec2::new(0.0, 1.0),
            ),
        ];
        for (lo, hi, olo, ohi, v, axis) in axes {
            if v == 0.0 {
                if hi < olo || lo > ohi {
                    return None;
                }
                continue;
            }
            // Times at which this axis starts and stops overlapping.
            let (t0, t1, n) = if v > 0.0 {
                ((olo - hi) / v, (ohi - lo) / v, -axis)
            } else {
                ((ohi - lo) / v, (olo - hi) / v, axis)
            };
            if t0 > enter {
                enter = t0;
                normal = n;
            }
            exit = exit.min(t1);
            if enter > exit {
                return None;
            }
        }
        Some((enter, normal))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(x0: Real, y0: Real, x1: Real, y1: Real) -> Aabb {
        Aabb::new([x0, y0], [x1, y1]).unwrap()
    }

    #[test]
    fn touching_edges_and_corners_intersect() {
        let a = b(0.0, 0.0, 10.0, 10.0);
        assert!(a.intersects(&b(10.0, 0.0, 20.0, 10.0)), "shared edge");
        assert!(a.intersects(&b(10.0, 10.0, 20.0, 20.0)), "shared corner");
        assert!(!a.intersects(&b(10.000001, 0.0, 20.0, 10.0)));
        assert!(a.intersects(&b(5.0, 5.0, 5.0, 5.0)), "point inside");
    }

    #[test]
    fn bad_coordinates_are_errors() {
        assert!(matches!(
            Aabb::new([0.0, f32::NAN], [1.0, 1.0]),
            Err(CollideError::NonFinite { .. })
        ));
        assert!(matches!(
            Aabb::new([0.0, 0.0], [f32::INFINITY, 1.0]),
            Err(CollideError::NonFinite { .. })
        ));
        assert!(matches!(
            Aabb::new([2.0, 0.0], [1.0, 1.0]),
            Err(CollideError::Inverted { .. })
        ));
        assert_eq!(
            Aabb::from_corners([2.0, 5.0], [1.0, 1.0]).unwrap(),
            b(1.0, 1.0, 2.0, 5.0)
        );
    }

    #[test]
    fn a_fast_box_hits_a_thin_wall_it_would_skip_over() {
        let bullet = b(0.0, 0.0, 1.0, 1.0);
        let wall = b(50.0, -10.0, 50.5, 10.0);
        let (t, n) = bullet.sweep(Vec2::new(100.0, 0.0), &wall).unwrap();
        assert!((t - 0.49).abs() < 1e-6, "{t}");
        assert_eq!(n, Vec2::new(-1.0, 0.0));
        // Ends of the step on either side of the wall: a discrete test misses it.
        assert!(!b(0.0, 0.0, 1.0, 1.0).intersects(&wall));
        assert!(!b(100.0, 0.0, 101.0, 1.0).intersects(&wall));
        assert_eq!(bullet.sweep(Vec2::new(100.0, 30.0), &wall), None);
        assert_eq!(bullet.sweep(Vec2::new(-100.0, 0.0), &wall), None);
        assert_eq!(
            bullet.sweep(Vec2::new(40.0, 0.0), &wall),
            None,
            "stops short"
        );
        assert_eq!(
            bullet.sweep(Vec2::new(0.0, 0.0), &bullet),
            Some((0.0, Vec2::ZERO))
        );
    }

    #[test]
    fn crossing_boxes_intersect_though_no_corner_is_inside() {
        // The "check the corners" answer fails on a plus sign; elimination does not.
        let tall = b(4.0, 0.0, 6.0, 10.0);
        let wide = b(0.0, 4.0, 10.0, 6.0);
        assert!(tall.intersects(&wide));
    }
}
