//! The shapes the narrow phase tests, each in its own local frame.
//!
//! Every convex shape is stored the same way underneath: a convex *core*
//! (one point, a segment, or a counter-clockwise polygon) with its outward
//! edge normals, grown by a radius. A circle is a point grown by its radius,
//! a capsule a segment grown by its radius, a rectangle or polygon a polygon
//! grown by nothing. The tests are written once against that view
//! ([`Core`]), so every pair of shape kinds is covered by the same code.

use crate::aabb::Aabb;
use crate::error::CollideError;
use crate::math::{Real, Vec2};
use crate::narrow::circle_tree;
use crate::narrow::polygon;
use crate::transform::Transform;

/// A convex core seen by the algorithms: points in counter-clockwise order,
/// the outward unit normal of edge `i` (from point `i` to point `i + 1`), and
/// the radius it is grown by.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Core<'a> {
    pub(crate) points: &'a [Vec2],
    pub(crate) normals: &'a [Vec2],
    pub(crate) radius: Real,
    pub(crate) bound: Bound,
}

/// Two discs about one centre (local frame, radius not included): every
/// point of the core lies within `outer` of `centre`, and the disc of
/// radius `inner` lies inside the core. Together they settle most pairs
/// before any axis is tried.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Bound {
    pub(crate) centre: Vec2,
    pub(crate) outer: Real,
    pub(crate) inner: Real,
}

impl Bound {
    const POINT: Self = Self {
        centre: Vec2::ZERO,
        outer: 0.0,
        inner: 0.0,
    };

    /// The bound of a convex polygon about its vertex mean (inside it).
    fn of_polygon(points: &[Vec2], normals: &[Vec2]) -> Self {
        let mut sum = Vec2::ZERO;
        for &p in points {
            sum += p;
        }
        let centre = sum * (1.0 / points.len() as Real);
        let outer = points
            .iter()
            .map(|&p| (p - centre).length())
            .fold(0.0, Real::max);
        let inner = points
            .iter()
            .zip(normals)
            .map(|(&p, &n)| n.dot(p - centre))
            .fold(Real::INFINITY, Real::min)
            .max(0.0);
        Self {
            centre,
            outer,
            inner,
        }
    }
}

const ORIGIN: [Vec2; 1] = [Vec2::ZERO];

/// A disc centred on its local origin.
#[derive(Clone, Debug, PartialEq)]
pub struct Circle {
    radius: Real,
}

impl Circle {
    /// A circle of this radius (0 is a point).
    ///
    /// # Errors
    /// [`CollideError::InvalidShapeParameter`] for a negative or non-finite radius.
    pub fn new(radius: Real) -> Result<Self, CollideError> {
        check_radius(radius)?;
        Ok(Self { radius })
    }

    /// The radius.
    pub fn radius(&self) -> Real {
        self.radius
    }

    pub(crate) fn core(&self) -> Core<'_> {
        Core {
            points: &ORIGIN,
            normals: &[],
            radius: self.radius,
            bound: Bound::POINT,
        }
    }
}

/// A segment grown by a radius (a stadium).
#[derive(Clone, Debug, PartialEq)]
pub struct Capsule {
    /// The two ends; only the first is used when they coincide.
    points: [Vec2; 2],
    /// The outward normals of the two sides of the segment.
    normals: [Vec2; 2],
    radius: Real,
    degenerate: bool,
}

impl Capsule {
    /// The capsule around the segment from `a` to `b`.
    ///
    /// # Errors
    /// [`CollideError::NonFinitePoint`] or [`CollideError::InvalidShapeParameter`].
    pub fn new(a: impl Into<Vec2>, b: impl Into<Vec2>, radius: Real) -> Result<Self, CollideError> {
        let (a, b) = (a.into(), b.into());
        for (index, p) in [a, b].into_iter().enumerate() {
            if !p.is_finite() {
                return Err(CollideError::NonFinitePoint {
                    index,
                    point: p.into(),
                });
            }
        }
        check_radius(radius)?;
        let (normals, degenerate) = match (b - a).normalized() {
            Some(d) => {
                let n = Vec2::new(d.y, -d.x);
                ([n, -n], false)
            }
            None => ([Vec2::ZERO; 2], true),
        };
        Ok(Self {
            points: [a, b],
            normals,
            radius,
            degenerate,
        })
    }

    /// A capsule along the local x axis, `half_length` each side of the origin.
    ///
    /// # Errors
    /// As [`Capsule::new`].
    pub fn along_x(half_length: Real, radius: Real) -> Result<Self, CollideError> {
        if !(half_length >= 0.0 && half_length.is_finite()) {
            return Err(CollideError::InvalidShapeParameter {
                name: "half_length",
                value: half_length,
                expected: "finite and >= 0",
            });
        }
        Self::new([-half_length, 0.0], [half_length, 0.0], radius)
    }

    /// The segment's ends.
    pub fn segment(&self) -> [Vec2; 2] {
        self.points
    }

    /// The radius.
    pub fn radius(&self) -> Real {
        self.radius
    }

    pub(crate) fn core(&self) -> Core<'_> {
        if self.degenerate {
            Core {
                points: &self.points[..1],
                normals: &[],
                radius: self.radius,
                bound: Bound {
                    centre: self.points[0],
                    ..Bound::POINT
                },
            }
        } else {
            let [a, b] = self.points;
            Core {
                points: &self.points,
                normals: &self.normals,
                radius: self.radius,
                bound: Bound {
                    centre: (a + b) * 0.5,
                    outer: (b - a).length() * 0.5,
                    inner: 0.0,
                },
            }
        }
    }
}

/// A rectangle centred on its local origin. With an unrotated transform it
/// is an axis-aligned box; rotated, an oriented box.
#[derive(Clone, Debug, PartialEq)]
pub struct Rect {
    half_extents: Vec2,
    points: [Vec2; 4],
}

const RECT_NORMALS: [Vec2; 4] = [
    Vec2::new(0.0, -1.0),
    Vec2::new(1.0, 0.0),
    Vec2::new(0.0, 1.0),
    Vec2::new(-1.0, 0.0),
];

impl Rect {
    /// A rectangle `2·hx` wide and `2·hy` high.
    ///
    /// # Errors
    /// [`CollideError::InvalidShapeParameter`] unless both half extents are
    /// finite and positive.
    pub fn new(hx: Real, hy: Real) -> Result<Self, CollideError> {
        for (name, value) in [("half width", hx), ("half height", hy)] {
            if !(value > 0.0 && value.is_finite()) {
                return Err(CollideError::InvalidShapeParameter {
                    name,
                    value,
                    expected: "finite and > 0",
                });
            }
        }
        Ok(Self {
            half_extents: Vec2::new(hx, hy),
            points: [
                Vec2::new(-hx, -hy),
                Vec2::new(hx, -hy),
                Vec2::new(hx, hy),
                Vec2::new(-hx, hy),
            ],
        })
    }

    /// The rectangle and the translation that place it over `aabb`.
    ///
    /// # Errors
    /// [`CollideError::InvalidShapeParameter`] for a box of zero width or height.
    pub fn from_aabb(aabb: &Aabb) -> Result<(Self, Transform), CollideError> {
        let (min, max) = (aabb.min(), aabb.max());
        let rect = Self::new((max.x - min.x) * 0.5, (max.y - min.y) * 0.5)?;
        let centre = (min + max) * 0.5;
        Ok((
            rect,
            Transform {
                translation: centre,
                rotation: crate::transform::Rot::IDENTITY,
            },
        ))
    }

    /// Half the width and half the height.
    pub fn half_extents(&self) -> Vec2 {
        self.half_extents
    }

    pub(crate) fn core(&self) -> Core<'_> {
        Core {
            points: &self.points,
            normals: &RECT_NORMALS,
            radius: 0.0,
            bound: Bound {
                centre: Vec2::ZERO,
                outer: self.half_extents.length(),
                inner: self.half_extents.x.min(self.half_extents.y),
            },
        }
    }
}

/// A convex polygon, counter-clockwise (with y up), with no repeated or
/// collinear corners. Made only through [`ConvexPolygon::new`] or
/// [`ConvexPolygon::hull`], which check and repair the input.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexPolygon {
    pub(crate) points: Vec<Vec2>,
    pub(crate) normals: Vec<Vec2>,
    bound: Bound,
}

impl ConvexPolygon {
    /// The most corners a polygon may have.
    pub const MAX_POINTS: usize = 1 << 20;

    /// A convex polygon through `points`, in either winding.
    ///
    /// Near-duplicate points (closer than about 10⁻⁵ of the polygon's size)
    /// are welded and collinear ones dropped; a clockwise polygon is
    /// reversed.
    ///
    /// # Errors
    /// [`CollideError::NonFinitePoint`], [`CollideError::TooFewPoints`],
    /// [`CollideError::TooManyPoints`], [`CollideError::NotConvex`] (naming
    /// the reflex corner) or [`CollideError::SelfIntersecting`] (a convex-
    /// looking outline that winds around twice). Nothing panics.
    pub fn new(points: &[Vec2]) -> Result<Self, CollideError> {
        let outline = polygon::clean(points, Self::MAX_POINTS)?;
        polygon::check_convex(&outline)?;
        Self::from_clean_ccw(outline.points)
    }

    /// The convex hull of `points` (any order, any number ≥ 3 not all on a line).
    ///
    /// # Errors
    /// [`CollideError::NonFinitePoint`], [`CollideError::TooFewPoints`] or
    /// [`CollideError::TooManyPoints`].
    pub fn hull(points: &[Vec2]) -> Result<Self, CollideError> {
        let hull = polygon::convex_hull(points, Self::MAX_POINTS)?;
        Self::new(&hull)
    }

    /// Builds from points already checked convex and counter-clockwise.
    pub(crate) fn from_clean_ccw(points: Vec<Vec2>) -> Result<Self, CollideError> {
        let n = points.len();
        let mut normals = Vec::new();
        crate::error::try_reserve_exact(&mut normals, n, "polygon normals")?;
        for i in 0..n {
            let e = points[(i + 1) % n] - points[i];
            let normal = Vec2::new(e.y, -e.x)
                .normalized()
                .ok_or(CollideError::TooFewPoints {
                    given: n,
                    distinct: i,
                })?;
            normals.push(normal);
        }
        let bound = Bound::of_polygon(&points, &normals);
        Ok(Self {
            points,
            normals,
            bound,
        })
    }

    /// The corners, counter-clockwise.
    pub fn points(&self) -> &[Vec2] {
        &self.points
    }

    pub(crate) fn core(&self) -> Core<'_> {
        Core {
            points: &self.points,
            normals: &self.normals,
            radius: 0.0,
            bound: self.bound,
        }
    }
}

/// One convex piece of any kind.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ConvexShape {
    /// A disc.
    Circle(Circle),
    /// A stadium.
    Capsule(Capsule),
    /// An axis-aligned or oriented box.
    Rect(Rect),
    /// A convex polygon.
    Polygon(ConvexPolygon),
}

impl ConvexShape {
    pub(crate) fn core(&self) -> Core<'_> {
        match self {
            Self::Circle(s) => s.core(),
            Self::Capsule(s) => s.core(),
            Self::Rect(s) => s.core(),
            Self::Polygon(s) => s.core(),
        }
    }

    /// The box around this shape placed by `transform`.
    ///
    /// # Errors
    /// [`CollideError::NonFinite`] when the placed shape reaches past the
    /// range of `f32` (or the transform is not finite).
    pub fn aabb(&self, transform: &Transform) -> Result<Aabb, CollideError> {
        self.core().aabb(transform)
    }

    /// The same shape scaled by `factor` about its local origin.
    ///
    /// # Errors
    /// [`CollideError::InvalidShapeParameter`] unless `factor` is finite and > 0.
    pub fn scaled(&self, factor: Real) -> Result<Self, CollideError> {
        if !(factor > 0.0 && factor.is_finite()) {
            return Err(CollideError::InvalidShapeParameter {
                name: "scale",
                value: factor,
                expected: "finite and > 0",
            });
        }
        Ok(match self {
            Self::Circle(c) => Self::Circle(Circle::new(c.radius * factor)?),
            Self::Capsule(c) => Self::Capsule(Capsule::new(
                c.points[0] * factor,
                c.points[1] * factor,
                c.radius * factor,
            )?),
            Self::Rect(r) => Self::Rect(Rect::new(
                r.half_extents.x * factor,
                r.half_extents.y * factor,
            )?),
            Self::Polygon(p) => {
                let mut points = Vec::new();
                crate::error::try_reserve_exact(&mut points, p.points.len(), "scaled polygon")?;
                points.extend(p.points.iter().map(|&v| v * factor));
                Self::Polygon(ConvexPolygon::new(&points)?)
            }
        })
    }
}

/// Polygons with at least this many corners find supports by climbing.
const CLIMB_FROM: usize = 48;

/// The best of `points[i]` for `i` in `range` stepping by `stride`.
#[inline]
fn scan_support(points: &[Vec2], dir: Vec2, range: std::ops::Range<usize>, stride: usize) -> usize {
    let mut best = range.start;
    let mut best_d = Real::NEG_INFINITY;
    for i in range.step_by(stride) {
        let d = points[i].dot(dir);
        if d > best_d {
            best_d = d;
            best = i;
        }
    }
    best
}

/// From `start`, steps to the neighbour further along `dir` while there is
/// one. On a convex outline that ends at the furthest point; the step count
/// is capped at one lap so rounding can never make it spin.
fn climb_support(points: &[Vec2], dir: Vec2, start: usize) -> usize {
    let n = points.len();
    let next = |i: usize| if i + 1 == n { 0 } else { i + 1 };
    let prev = |i: usize| if i == 0 { n - 1 } else { i - 1 };
    let mut at = start;
    let mut here = points[at].dot(dir);
    let forward = points[next(at)].dot(dir) > here;
    for _ in 0..n {
        let k = if forward { next(at) } else { prev(at) };
        let there = points[k].dot(dir);
        if there <= here {
            break;
        }
        at = k;
        here = there;
    }
    at
}

impl Core<'_> {
    /// The world box around the core grown by its radius.
    pub(crate) fn aabb(&self, transform: &Transform) -> Result<Aabb, CollideError> {
        let mut min = Vec2::new(Real::INFINITY, Real::INFINITY);
        let mut max = -min;
        for &p in self.points {
            let w = transform.apply(p);
            min = min.min(w);
            max = max.max(w);
        }
        let r = Vec2::new(self.radius, self.radius);
        Aabb::new(min - r, max + r)
    }

    /// Index of a point furthest along `dir`.
    ///
    /// Small cores are scanned. On a large polygon the projections rise
    /// and fall once around the outline, so the best of every √n-th point
    /// is climbed from to the top: O(√n) instead of O(n).
    #[inline]
    pub(crate) fn support(&self, dir: Vec2) -> usize {
        let n = self.points.len();
        if n < CLIMB_FROM || self.normals.len() != n {
            return scan_support(self.points, dir, 0..n, 1);
        }
        let stride = n.isqrt();
        let start = scan_support(self.points, dir, 0..n, stride);
        climb_support(self.points, dir, start)
    }
}

/// A convex part of a compound, placed in the compound's frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    /// Where the part sits in the compound's local frame.
    pub transform: Transform,
    /// The part.
    pub shape: ConvexShape,
}

/// A shape made of convex parts, each with its own transform (a concave
/// polygon is decomposed into one).
#[derive(Clone, Debug, PartialEq)]
pub struct Compound {
    parts: Vec<Part>,
    /// Bounding circles over the parts, for pairing parts of two shapes.
    tree: Vec<circle_tree::Node>,
}

impl Compound {
    /// A compound of these parts.
    ///
    /// # Errors
    /// [`CollideError::EmptyCompound`] for no parts,
    /// [`CollideError::NonFiniteTransform`] for a part placed at NaN.
    pub fn new(parts: Vec<(Transform, ConvexShape)>) -> Result<Self, CollideError> {
        if parts.is_empty() {
            return Err(CollideError::EmptyCompound);
        }
        let mut out = Vec::new();
        crate::error::try_reserve_exact(&mut out, parts.len(), "compound parts")?;
        for (transform, shape) in parts {
            if !transform.is_finite() {
                return Err(CollideError::NonFiniteTransform {
                    what: "compound part transform",
                });
            }
            // Checks the placed part stays within f32's range.
            shape.aabb(&transform)?;
            out.push(Part { transform, shape });
        }
        let mut circles = Vec::new();
        crate::error::try_reserve_exact(&mut circles, out.len(), "compound parts")?;
        circles.extend(out.iter().map(|part| {
            // About the middle of the part's box, not its vertex mean: near
            // the smallest circle, which matters for thin parts (the
            // spikes of a star), whose circles would otherwise overlap
            // many more of the other shape's.
            let core = part.shape.core();
            let (lo, hi) = core.points.iter().fold(
                (
                    Vec2::new(Real::INFINITY, Real::INFINITY),
                    Vec2::new(Real::NEG_INFINITY, Real::NEG_INFINITY),
                ),
                |(lo, hi), p| {
                    (
                        Vec2::new(lo.x.min(p.x), lo.y.min(p.y)),
                        Vec2::new(hi.x.max(p.x), hi.y.max(p.y)),
                    )
                },
            );
            let centre = (lo + hi) * 0.5;
            let reach = core
                .points
                .iter()
                .map(|&p| (p - centre).length())
                .fold(0.0, Real::max);
            (part.transform.apply(centre), reach + core.radius)
        }));
        let tree = circle_tree::build(&circles)?;
        Ok(Self { parts: out, tree })
    }

    /// The parts.
    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    pub(crate) fn tree(&self) -> &[circle_tree::Node] {
        &self.tree
    }
}

/// Any shape the narrow phase accepts.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Shape {
    /// A disc.
    Circle(Circle),
    /// A stadium.
    Capsule(Capsule),
    /// An axis-aligned or oriented box.
    Rect(Rect),
    /// A convex polygon.
    Polygon(ConvexPolygon),
    /// Convex parts (a concave polygon becomes one).
    Compound(Compound),
}

impl Shape {
    /// A simple polygon through `points`, convex or not. Convex input gives
    /// [`Shape::Polygon`]; concave input is decomposed once (ear clipping,
    /// then Hertel–Mehlhorn merging of triangles across removable diagonals:
    /// at most four times the fewest possible convex parts) into a
    /// [`Shape::Compound`].
    ///
    /// # Errors
    /// As [`ConvexPolygon::new`], plus [`CollideError::SelfIntersecting`]
    /// naming two crossing edges.
    pub fn polygon(points: &[Vec2]) -> Result<Self, CollideError> {
        let outline = polygon::clean(points, polygon::MAX_CONCAVE_POINTS)?;
        polygon::check_simple(&outline)?;
        if polygon::check_convex(&outline).is_ok() {
            return Ok(Self::Polygon(ConvexPolygon::from_clean_ccw(
                outline.points,
            )?));
        }
        let pieces = polygon::decompose(&outline.points)?;
        let mut parts = Vec::new();
        crate::error::try_reserve_exact(&mut parts, pieces.len(), "polygon parts")?;
        for piece in pieces {
            parts.push((
                Transform::IDENTITY,
                ConvexShape::Polygon(ConvexPolygon::from_clean_ccw(piece)?),
            ));
        }
        Ok(Self::Compound(Compound::new(parts)?))
    }

    /// The box around the shape placed by `transform`.
    ///
    /// # Errors
    /// [`CollideError::NonFinite`] when the placed shape reaches past the
    /// range of `f32` (or the transform is not finite).
    pub fn aabb(&self, transform: &Transform) -> Result<Aabb, CollideError> {
        match self {
            Self::Compound(c) => {
                let mut acc: Option<Aabb> = None;
                for p in &c.parts {
                    let b = p.shape.aabb(&transform.compose(&p.transform))?;
                    acc = Some(acc.map_or(b, |a| a.union(&b)));
                }
                acc.ok_or(CollideError::EmptyCompound)
            }
            _ => match self.as_convex() {
                Some(core) => core.aabb(transform),
                None => Err(CollideError::EmptyCompound),
            },
        }
    }

    pub(crate) fn as_convex(&self) -> Option<Core<'_>> {
        match self {
            Self::Circle(s) => Some(s.core()),
            Self::Capsule(s) => Some(s.core()),
            Self::Rect(s) => Some(s.core()),
            Self::Polygon(s) => Some(s.core()),
            Self::Compound(_) => None,
        }
    }
}

impl From<ConvexShape> for Shape {
    fn from(s: ConvexShape) -> Self {
        match s {
            ConvexShape::Circle(c) => Self::Circle(c),
            ConvexShape::Capsule(c) => Self::Capsule(c),
            ConvexShape::Rect(r) => Self::Rect(r),
            ConvexShape::Polygon(p) => Self::Polygon(p),
        }
    }
}

fn check_radius(radius: Real) -> Result<(), CollideError> {
    if radius >= 0.0 && radius.is_finite() {
        Ok(())
    } else {
        Err(CollideError::InvalidShapeParameter {
            name: "radius",
            value: radius,
            expected: "finite and >= 0",
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Climbing finds a point as far along the direction as a full scan
        /// does, on outlines long enough to climb (up to rounding).
        #[test]
        fn climbed_support_is_the_furthest_point(
            n in CLIMB_FROM..400usize,
            (a, b) in (0.2f32..5.0, 0.2f32..5.0),
            phase in 0.0f32..6.3,
            dir_angle in 0.0f32..6.3,
        ) {
            let points: Vec<Vec2> = (0..n)
                .map(|k| {
                    let t = phase + k as f32 * std::f32::consts::TAU / n as f32;
                    Vec2::new(a * t.cos(), b * t.sin())
                })
                .collect();
            let polygon = ConvexPolygon::new(&points).unwrap();
            let core = polygon.core();
            let dir = Vec2::new(dir_angle.cos(), dir_angle.sin());
            let best = core.points.iter().map(|p| p.dot(dir)).fold(f32::NEG_INFINITY, f32::max);
            let got = core.points[core.support(dir)].dot(dir);
            prop_assert!(got >= best - 1e-5 * (a + b), "{got} < {best}");
        }

        /// The bound's discs hold: every corner within `outer`, and the
        /// inner disc inside every edge.
        #[test]
        fn polygon_bound_encloses_and_is_enclosed(
            n in 3usize..40,
            (a, b) in (0.2f32..5.0, 0.2f32..5.0),
            (x, y) in (-50.0f32..50.0, -50.0f32..50.0),
        ) {
            let points: Vec<Vec2> = (0..n)
                .map(|k| {
                    let t = k as f32 * std::f32::consts::TAU / n as f32;
                    Vec2::new(x + a * t.cos(), y + b * t.sin())
                })
                .collect();
            let polygon = ConvexPolygon::new(&points).unwrap();
            let bound = polygon.core().bound;
            let tol = 1e-5 * (a + b + x.abs() + y.abs());
            prop_assert!(bound.inner > 0.0);
            for (p, nrm) in polygon.points.iter().zip(&polygon.normals) {
                prop_assert!((*p - bound.centre).length() <= bound.outer + tol);
                prop_assert!(nrm.dot(*p - bound.centre) >= bound.inner - tol);
            }
        }
    }
}
