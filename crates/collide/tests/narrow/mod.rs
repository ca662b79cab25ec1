//! Random shapes for the narrow-phase tests, built both as ours and as parry2d's.

#![allow(dead_code)]

use collide::{Capsule, Circle, ConvexPolygon, Rect, Shape, Transform, Vec2};
use parry2d::math::{Pose, Vec2 as PVec2};
use parry2d::shape::SharedShape;
use proptest::prelude::*;

/// A shape described by numbers, so proptest can shrink it.
#[derive(Clone, Debug)]
pub enum Spec {
    Circle(f32),
    Capsule(f32, f32),
    Rect(f32, f32),
    /// Points on an ellipse with semi-axes (a, b) at these angles (sorted).
    Polygon(f32, f32, Vec<f32>),
}

/// Angles sorted and spaced at least 0.08 rad apart, so no corner is
/// welded or dropped as collinear (which would change the shape).
fn spaced(mut angles: Vec<f32>) -> Vec<f32> {
    angles.sort_by(f32::total_cmp);
    let mut out: Vec<f32> = Vec::new();
    for a in angles {
        if out.last().is_none_or(|&b| a - b > 0.08) {
            out.push(a);
        }
    }
    if out.len() > 1 && out[0] + std::f32::consts::TAU - out[out.len() - 1] <= 0.08 {
        out.pop();
    }
    out
}

/// The widest angular gap between consecutive corners (no slivers).
fn max_gap(sorted: &[f32]) -> f32 {
    let wrap = sorted[0] + std::f32::consts::TAU - sorted[sorted.len() - 1];
    sorted.windows(2).map(|w| w[1] - w[0]).fold(wrap, f32::max)
}

pub fn polygon_spec(max_points: usize) -> impl Strategy<Value = Spec> {
    (
        0.3f32..3.0,
        0.3f32..3.0,
        prop::collection::vec(0.0f32..std::f32::consts::TAU, 3..=max_points),
    )
        .prop_map(|(a, b, angles)| Spec::Polygon(a, b, spaced(angles)))
        .prop_filter(
            "three corners around the centre",
            |s| matches!(s, Spec::Polygon(_, _, v) if v.len() >= 3 && max_gap(v) < 2.5),
        )
}

pub fn spec() -> impl Strategy<Value = Spec> {
    prop_oneof![
        (0.1f32..3.0).prop_map(Spec::Circle),
        (0.1f32..3.0, 0.1f32..2.0).prop_map(|(h, r)| Spec::Capsule(h, r)),
        (0.1f32..3.0, 0.1f32..3.0).prop_map(|(x, y)| Spec::Rect(x, y)),
        polygon_spec(8),
    ]
}

/// Position within ±`spread` and any angle.
pub fn pose(spread: f32) -> impl Strategy<Value = (f32, f32, f32)> {
    (-spread..spread, -spread..spread, -3.2f32..3.2)
}

pub fn points(spec: &Spec) -> Vec<Vec2> {
    match spec {
        Spec::Polygon(a, b, angles) => angles
            .iter()
            .map(|t| Vec2::new(a * t.cos(), b * t.sin()))
            .collect(),
        _ => Vec::new(),
    }
}

pub fn ours(spec: &Spec) -> Shape {
    match spec {
        Spec::Circle(r) => Shape::Circle(Circle::new(*r).unwrap()),
        Spec::Capsule(h, r) => Shape::Capsule(Capsule::along_x(*h, *r).unwrap()),
        Spec::Rect(x, y) => Shape::Rect(Rect::new(*x, *y).unwrap()),
        Spec::Polygon(..) => Shape::Polygon(ConvexPolygon::new(&points(spec)).unwrap()),
    }
}

pub fn theirs(spec: &Spec) -> SharedShape {
    match spec {
        Spec::Circle(r) => SharedShape::ball(*r),
        Spec::Capsule(h, r) => SharedShape::capsule(PVec2::new(-h, 0.0), PVec2::new(*h, 0.0), *r),
        Spec::Rect(x, y) => SharedShape::cuboid(*x, *y),
        Spec::Polygon(..) => {
            let pts: Vec<PVec2> = points(spec).iter().map(|p| PVec2::new(p.x, p.y)).collect();
            // `convex_polyline` drops corners whose edges turn by less than
            // ~0.026 rad, which shrinks the shape by up to ~0.01 here: use
            // the exact outline so both libraries test the same polygon.
            SharedShape::convex_polyline_unmodified(pts).unwrap()
        }
    }
}

pub fn our_pose((x, y, a): (f32, f32, f32)) -> Transform {
    Transform::new([x, y], a).unwrap()
}

pub fn their_pose((x, y, a): (f32, f32, f32)) -> Pose {
    Pose::new(PVec2::new(x, y), a)
}

/// Case count: `PROPTEST_CASES` or the default given.
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// The shape as a convex core (world points) and a radius, from its definition.
pub fn world_core(spec: &Spec, x: &Transform) -> (Vec<Vec2>, f32) {
    let (pts, r): (Vec<Vec2>, f32) = match spec {
        Spec::Circle(r) => (vec![Vec2::ZERO], *r),
        Spec::Capsule(h, r) => (vec![Vec2::new(-h, 0.0), Vec2::new(*h, 0.0)], *r),
        Spec::Rect(hx, hy) => (
            vec![
                Vec2::new(-hx, -hy),
                Vec2::new(*hx, -hy),
                Vec2::new(*hx, *hy),
                Vec2::new(-hx, *hy),
            ],
            0.0,
        ),
        Spec::Polygon(..) => (points(spec), 0.0),
    };
    (pts.into_iter().map(|p| x.apply(p)).collect(), r)
}

fn point_segment(p: Vec2, a: Vec2, b: Vec2) -> f64 {
    let (px, py) = (f64::from(p.x - a.x), f64::from(p.y - a.y));
    let (dx, dy) = (f64::from(b.x - a.x), f64::from(b.y - a.y));
    let len2 = dx * dx + dy * dy;
    let t = if len2 > 0.0 {
        ((px * dx + py * dy) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (px - t * dx).hypot(py - t * dy)
}

fn edges(p: &[Vec2]) -> Vec<(Vec2, Vec2)> {
    match p.len() {
        1 => vec![(p[0], p[0])],
        2 => vec![(p[0], p[1])],
        n => (0..n).map(|i| (p[i], p[(i + 1) % n])).collect(),
    }
}

fn orient(a: Vec2, b: Vec2, c: Vec2) -> f64 {
    f64::from(b.x - a.x) * f64::from(c.y - a.y) - f64::from(b.y - a.y) * f64::from(c.x - a.x)
}

fn inside(p: Vec2, poly: &[Vec2]) -> bool {
    poly.len() >= 3 && edges(poly).iter().all(|&(a, b)| orient(a, b, p) >= 0.0)
}

fn segments_cross(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> bool {
    let (o1, o2, o3, o4) = (
        orient(a, b, c),
        orient(a, b, d),
        orient(c, d, a),
        orient(c, d, b),
    );
    o1 * o2 < 0.0 && o3 * o4 < 0.0
}

/// Brute force: the distance between two placed shapes (0 when they
/// overlap), from every corner-to-edge distance of their cores.
pub fn oracle_distance(a: &Spec, xa: &Transform, b: &Spec, xb: &Transform) -> f64 {
    let (pa, ra) = world_core(a, xa);
    let (pb, rb) = world_core(b, xb);
    let overlap = pa.iter().any(|&p| inside(p, &pb))
        || pb.iter().any(|&p| inside(p, &pa))
        || edges(&pa)
            .iter()
            .any(|&(p, q)| edges(&pb).iter().any(|&(r, s)| segments_cross(p, q, r, s)));
    if overlap {
        return 0.0;
    }
    let mut d = f64::INFINITY;
    for &p in &pa {
        for &(r, s) in &edges(&pb) {
            d = d.min(point_segment(p, r, s));
        }
    }
    for &p in &pb {
        for &(r, s) in &edges(&pa) {
            d = d.min(point_segment(p, r, s));
        }
    }
    (d - f64::from(ra) - f64::from(rb)).max(0.0)
}
