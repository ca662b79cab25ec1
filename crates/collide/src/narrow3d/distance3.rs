//! Distance and closest points between two apart polyhedra by GJK (Gilbert,
//! Johnson & Keerthi 1988, with Ericson's closest-point routines): the
//! point of the Minkowski difference B − A nearest the origin, found on a
//! simplex of at most four support points that moves towards it. Each
//! support point remembers the corners of A and B it came from, so the
//! barycentric weights of the nearest point give the closest points on
//! both shapes.

use crate::error::CollideError;
use crate::math::Real;
use crate::narrow3d::gjk3::Difference;
use crate::narrow3d::math3::{Transform3, Vec3};
use crate::narrow3d::polyhedron::ConvexPolyhedron;
use crate::narrow3d::sat3;

/// The nearest points of two apart polyhedra.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClosestPoints3 {
    /// The point on the first shape nearest the second (world).
    pub on_a: Vec3,
    /// The point on the second shape nearest the first (world).
    pub on_b: Vec3,
    /// Their distance (> 0, or 0 within rounding of touching).
    pub distance: Real,
}

/// The closest points of the placed polyhedra; `None` when they overlap
/// or touch (as [`sat3::intersects_polyhedra`] decides).
///
/// # Errors
/// [`CollideError::NonFiniteTransform`] for a NaN or infinite transform.
pub fn closest_points_polyhedra(
    a: &ConvexPolyhedron,
    xa: &Transform3,
    b: &ConvexPolyhedron,
    xb: &Transform3,
) -> Result<Option<ClosestPoints3>, CollideError> {
    if sat3::intersects_polyhedra(a, xa, b, xb)? {
        return Ok(None);
    }
    let x = sat3::relative(xa, xb);
    let start = x.apply(b.centroid) - a.centroid;
    let (on_a, on_b) = closest(&mut Difference::new(a, b, &x), start);
    Ok(Some(ClosestPoints3 {
        on_a: xa.apply(on_a),
        on_b: xa.apply(on_b),
        distance: (on_b - on_a).length(),
    }))
}

/// A unit axis (world, from the first shape towards the second) on which
/// the placed polyhedra's projections do not overlap: the direction between
/// their closest points, the axis that separates them most, or on a very
/// thin gap a face normal or edge cross product (exact where the closest
/// points' direction is not). `None` when they overlap or touch.
///
/// # Errors
/// [`CollideError::NonFiniteTransform`] for a NaN or infinite transform.
pub fn separating_axis_polyhedra(
    a: &ConvexPolyhedron,
    xa: &Transform3,
    b: &ConvexPolyhedron,
    xb: &Transform3,
) -> Result<Option<Vec3>, CollideError> {
    let Some(c) = closest_points_polyhedra(a, xa, b, xb)? else {
        return Ok(None);
    };
    // Below this gap, rounding in the closest points can turn their
    // direction by more than the gap allows: take a face or edge axis.
    let thin = 1e-3 * (a.outer_radius + b.outer_radius);
    if c.distance >= thin
        && let Some(axis) = (c.on_b - c.on_a).normalized()
    {
        // Check it: the nearest point of B − A along the axis must lie
        // beyond the origin (GJK can stop short on a flat simplex).
        let x = sat3::relative(xa, xb);
        let local = xa.rotation.apply_inverse(axis);
        if local.dot(Difference::new(a, b, &x).support(-local)) > 0.0 {
            return Ok(Some(axis));
        }
    }
    Ok(sat3::separating_face_or_edge_axis(a, xa, b, xb))
}

/// The distance between the placed polyhedra (0 when they overlap).
///
/// # Errors
/// [`CollideError::NonFiniteTransform`] for a NaN or infinite transform.
pub fn distance_polyhedra(
    a: &ConvexPolyhedron,
    xa: &Transform3,
    b: &ConvexPolyhedron,
    xb: &Transform3,
) -> Result<Real, CollideError> {
    Ok(closest_points_polyhedra(a, xa, b, xb)?.map_or(0.0, |c| c.distance))
}

const MAX_ITERATIONS: usize = 64;

/// A support point of B − A and the corners it came from.
#[derive(Clone, Copy, Debug, Default)]
struct Corner {
    w: Vec3,
    a: Vec3,
    b: Vec3,
}

/// The nearest point of a simplex to the origin, as weights on the corners
/// that span it (the others are dropped).
struct Nearest {
    kept: [usize; 4],
    weight: [Real; 4],
    count: usize,
}

impl Nearest {
    fn of(kept: &[(usize, Real)]) -> Self {
        let mut n = Self {
            kept: [0; 4],
            weight: [0.0; 4],
            count: kept.len(),
        };
        for (k, &(i, w)) in kept.iter().enumerate() {
            n.kept[k] = i;
            n.weight[k] = w;
        }
        n
    }
}

/// The closest points `(on_a, on_b)` in A's frame, for a pair already
/// found apart (touching pairs give points within rounding of each other).
pub(crate) fn closest(difference: &mut Difference<'_>, start: Vec3) -> (Vec3, Vec3) {
    let corner = |difference: &mut Difference<'_>, dir: Vec3| {
        let (a, b) = difference.support_pair(dir);
        Corner { w: b - a, a, b }
    };
    let mut simplex = [Corner::default(); 4];
    simplex[0] = corner(
        difference,
        if start == Vec3::ZERO {
            Vec3::new(1.0, 0.0, 0.0)
        } else {
            -start
        },
    );
    let mut count = 1;
    let mut weight = [1.0, 0.0, 0.0, 0.0];
    let mut v = simplex[0].w;
    difference.warm = true;
    for _ in 0..MAX_ITERATIONS {
        let vv = v.dot(v);
        let scale = simplex[..count]
            .iter()
            .map(|c| c.w.dot(c.w))
            .fold(0.0, Real::max);
        // (Written to stop on NaN as well.)
        if vv.partial_cmp(&(1e-12 * scale)) != Some(std::cmp::Ordering::Greater) {
            break; // the origin is on the simplex: touching, to rounding
        }
        let next = corner(difference, -v);
        // No support point gets nearer than the current one (within
        // rounding): converged.
        let gap = vv - v.dot(next.w);
        if gap <= 1e-5 * vv + 1e-6 * (vv * scale).sqrt()
            || simplex[..count].iter().any(|c| c.w == next.w)
        {
            break;
        }
        let (old, old_weight, old_count) = (simplex, weight, count);
        simplex[count] = next;
        count += 1;
        let nearest = match count {
            2 => segment(simplex[0].w, simplex[1].w),
            3 => triangle(simplex[0].w, simplex[1].w, simplex[2].w, [0, 1, 2]),
            _ => match tetrahedron(&simplex) {
                Some(nearest) => nearest,
                None => {
                    // The origin inside: the caller found the pair apart,
                    // so only by rounding; the last face is as near as it
                    // gets.
                    (simplex, weight, count) = (old, old_weight, old_count);
                    break;
                }
            },
        };
        let grown = simplex;
        for k in 0..nearest.count {
            simplex[k] = grown[nearest.kept[k]];
            weight[k] = nearest.weight[k];
        }
        count = nearest.count;
        let closer = (0..count).fold(Vec3::ZERO, |s, k| s + simplex[k].w * weight[k]);
        if closer.dot(closer) >= vv {
            // Rounding on a nearly flat simplex: GJK must get nearer at
            // every step, so keep the last one and stop.
            (simplex, weight, count) = (old, old_weight, old_count);
            break;
        }
        v = closer;
    }
    let on_a = (0..count).fold(Vec3::ZERO, |s, k| s + simplex[k].a * weight[k]);
    let on_b = (0..count).fold(Vec3::ZERO, |s, k| s + simplex[k].b * weight[k]);
    (on_a, on_b)
}

fn segment(p: Vec3, q: Vec3) -> Nearest {
    let d = q - p;
    let dd = d.dot(d);
    let t = if dd > 0.0 {
        (-p.dot(d) / dd).clamp(0.0, 1.0)
    } else {
        0.0
    };
    if t <= 0.0 {
        Nearest::of(&[(0, 1.0)])
    } else if t >= 1.0 {
        Nearest::of(&[(1, 1.0)])
    } else {
        Nearest::of(&[(0, 1.0 - t), (1, t)])
    }
}

/// Ericson's closest point on triangle `a b c` to the origin (5.1.5);
/// `ids` names the corners in the result.
fn triangle(a: Vec3, b: Vec3, c: Vec3, ids: [usize; 3]) -> Nearest {
    let [ia, ib, ic] = ids;
    let (ab, ac) = (b - a, c - a);
    let (d1, d2) = (-ab.dot(a), -ac.dot(a));
    if d1 <= 0.0 && d2 <= 0.0 {
        return Nearest::of(&[(ia, 1.0)]);
    }
    let (d3, d4) = (-ab.dot(b), -ac.dot(b));
    if d3 >= 0.0 && d4 <= d3 {
        return Nearest::of(&[(ib, 1.0)]);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return Nearest::of(&[(ia, 1.0 - v), (ib, v)]);
    }
    let (d5, d6) = (-ab.dot(c), -ac.dot(c));
    if d6 >= 0.0 && d5 <= d6 {
        return Nearest::of(&[(ic, 1.0)]);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return Nearest::of(&[(ia, 1.0 - w), (ic, w)]);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return Nearest::of(&[(ib, 1.0 - w), (ic, w)]);
    }
    let total = va + vb + vc;
    if total.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        // A degenerate (flat) triangle: its best edge will do.
        return segment_of(a, b, ia, ib);
    }
    let (v, w) = (vb / total, vc / total);
    Nearest::of(&[(ia, 1.0 - v - w), (ib, v), (ic, w)])
}

fn segment_of(p: Vec3, q: Vec3, ip: usize, iq: usize) -> Nearest {
    let mut n = segment(p, q);
    for k in 0..n.count {
        n.kept[k] = if n.kept[k] == 0 { ip } else { iq };
    }
    n
}

/// The nearest point of the tetrahedron, or `None` when it holds the
/// origin.
fn tetrahedron(s: &[Corner; 4]) -> Option<Nearest> {
    let p = s.map(|c| c.w);
    let mut best: Option<(Real, Nearest)> = None;
    let mut outside_any = false;
    for (face, far) in [
        ([0, 1, 2], 3),
        ([0, 1, 3], 2),
        ([0, 2, 3], 1),
        ([1, 2, 3], 0),
    ] {
        let [i, j, k] = face;
        let n = (p[j] - p[i]).cross(p[k] - p[i]);
        // Is the origin on the side of the face away from the fourth corner?
        // (A flat tetrahedron has no inside: every face is a candidate.)
        let origin_side = -n.dot(p[i]);
        let far_side = n.dot(p[far] - p[i]);
        if far_side != 0.0 && origin_side * far_side >= 0.0 {
            continue;
        }
        outside_any = true;
        let nearest = triangle(p[i], p[j], p[k], face);
        let at = (0..nearest.count).fold(Vec3::ZERO, |acc, m| {
            acc + p[nearest.kept[m]] * nearest.weight[m]
        });
        let d = at.dot(at);
        if best.as_ref().is_none_or(|(bd, _)| d < *bd) {
            best = Some((d, nearest));
        }
    }
    if !outside_any {
        return None;
    }
    best.map(|(_, n)| n)
}
