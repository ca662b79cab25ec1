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
    fn crossing_boxes_intersect_though_no_corner_is_inside() {
        // The "check the corners" answer fails on a plus sign; elimination does not.
        let tall = b(4.0, 0.0, 6.0, 10.0);
        let wide = b(0.0, 4.0, 10.0, 6.0);
        assert!(tall.intersects(&wide));
    }
}
