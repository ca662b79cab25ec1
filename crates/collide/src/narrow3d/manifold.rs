//! Contact points for two overlapping polyhedra, once the normal and depth
//! are known: up to four points, as a physics step wants them.
//!
//! Where the normal is (within 2.5°) a face normal of either shape, that
//! face is the reference: the other shape's face most turned against it
//! is clipped to the reference face's side planes (Sutherland–Hodgman,
//! as Box2D does in 2-D), and the clipped corners below the reference
//! plane are the points, each halfway between the two surfaces. More than
//! four are cut to the deepest one and the three that span the largest
//! area. Otherwise two edges or corners meet: one point, halfway between
//! the closest points of the two shapes once the second is moved just
//! clear along the normal (GJK), then moved back.

use crate::math::Real;
use crate::narrow3d::distance3;
use crate::narrow3d::gjk3::Difference;
use crate::narrow3d::math3::{Transform3, Vec3};
use crate::narrow3d::polyhedron::ConvexPolyhedron;

/// One contact point.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactPoint3 {
    /// World position, halfway between the two surfaces.
    pub point: Vec3,
    /// Overlap at this point (≥ 0).
    pub depth: Real,
}

/// Up to four points, in the first shape's frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Points {
    pub(crate) points: [ContactPoint3; 4],
    pub(crate) count: u8,
}

impl Points {
    fn one(point: Vec3, depth: Real) -> Self {
        let mut p = Self::default();
        p.points[0] = ContactPoint3 { point, depth };
        p.count = 1;
        p
    }
}

/// How close to a face normal the contact normal must be (cos 2.5°) for a
/// face contact.
const FACE_ALIGNMENT: Real = 0.999;
/// Clip buffers hold this many corners; larger faces get one point.
const MAX_CLIPPED: usize = 64;

/// The face around vertex `v` of `shape` whose normal is nearest `dir`
/// (local frame), with the cosine between them.
fn best_face_at(shape: &ConvexPolyhedron, v: u32, dir: Vec3) -> Option<(usize, Real)> {
    shape
        .faces_around(v as usize)
        .iter()
        .map(|&f| (f as usize, shape.faces[f as usize].normal.dot(dir)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

/// The points where `a` and `b` (placed in `a`'s frame by `x`) meet, given
/// the contact `normal` (unit, `a`'s frame, from `a` towards `b`) and depth.
pub(crate) fn contact_points(
    a: &ConvexPolyhedron,
    b: &ConvexPolyhedron,
    x: &Transform3,
    normal: Vec3,
    depth: Real,
) -> Points {
    let toward_a = x.rotation.apply_inverse(-normal);
    let va = a.support_index(normal, None);
    let vb = b.support_index(toward_a, None);
    // Faces too big for the clip buffers, or none found: one point.
    let fallback = || witness_point(a, b, x, normal, depth);
    let (Some((fa, align_a)), Some((fb, align_b))) =
        (best_face_at(a, va, normal), best_face_at(b, vb, toward_a))
    else {
        return fallback();
    };
    if align_a.max(align_b) < FACE_ALIGNMENT {
        return witness_point(a, b, x, normal, depth);
    }
    let mut reference = [Vec3::ZERO; MAX_CLIPPED];
    let mut incident = [Vec3::ZERO; MAX_CLIPPED];
    let (ref_count, inc_count, ref_normal);
    // Prefer a's face on a near-tie: the same pair gives the same points.
    if align_a + 1e-3 >= align_b {
        let (r, i) = (a.face_corners(fa), b.face_corners(fb));
        if r.len() + i.len() > MAX_CLIPPED {
            return fallback();
        }
        for (k, &v) in r.iter().enumerate() {
            reference[k] = a.vertices[v as usize];
        }
        for (k, &v) in i.iter().enumerate() {
            incident[k] = x.apply(b.vertices[v as usize]);
        }
        (ref_count, inc_count, ref_normal) = (r.len(), i.len(), a.faces[fa].normal);
    } else {
        let (r, i) = (b.face_corners(fb), a.face_corners(fa));
        if r.len() + i.len() > MAX_CLIPPED {
            return fallback();
        }
        for (k, &v) in r.iter().enumerate() {
            reference[k] = x.apply(b.vertices[v as usize]);
        }
        for (k, &v) in i.iter().enumerate() {
            incident[k] = a.vertices[v as usize];
        }
        let n = x.rotation.apply(b.faces[fb].normal);
        (ref_count, inc_count, ref_normal) = (r.len(), i.len(), n);
    }
    let clipped = clip(
        &reference[..ref_count],
        ref_normal,
        &mut incident,
        inc_count,
    );
    let height = ref_normal.dot(reference[0]);
    // Within rounding of the plane counts as touching.
    let slack = 1e-4 * (1.0 + depth);
    let mut found = [ContactPoint3::default(); MAX_CLIPPED];
    let mut count = 0;
    for &p in &incident[..clipped] {
        let below = height - ref_normal.dot(p);
        if below >= -slack {
            // Along a reference normal a little off the contact's, a
            // point can read deeper than the minimum translation; no point
            // needs more push than that.
            let below = below.clamp(0.0, depth);
            found[count] = ContactPoint3 {
                point: p + ref_normal * (below * 0.5),
                depth: below,
            };
            count += 1;
        }
    }
    if count == 0 {
        // The normal is near the face's but edges meet, a little above it.
        return witness_point(a, b, x, normal, depth);
    }
    reduce(&found[..count])
}

/// Clips the convex polygon `polygon[..count]` to the prism over the
/// reference face (counter-clockwise about `normal`); returns how many
/// corners are left in `polygon`.
fn clip(
    reference: &[Vec3],
    normal: Vec3,
    polygon: &mut [Vec3; MAX_CLIPPED],
    mut count: usize,
) -> usize {
    let mut out = [Vec3::ZERO; MAX_CLIPPED];
    for (k, &r0) in reference.iter().enumerate() {
        let r1 = reference[(k + 1) % reference.len()];
        let side = (r1 - r0).cross(normal);
        let outside = |p: Vec3| side.dot(p - r0);
        let mut kept = 0;
        for i in 0..count {
            let (p, q) = (polygon[i], polygon[(i + 1) % count]);
            let (dp, dq) = (outside(p), outside(q));
            if dp <= 0.0 && kept < MAX_CLIPPED {
                out[kept] = p;
                kept += 1;
            }
            if (dp <= 0.0) != (dq <= 0.0) && kept < MAX_CLIPPED {
                out[kept] = p + (q - p) * (dp / (dp - dq));
                kept += 1;
            }
        }
        polygon[..kept].copy_from_slice(&out[..kept]);
        count = kept;
        if count == 0 {
            break;
        }
    }
    count
}

/// The deepest point and the three that, with it, span the largest area.
fn reduce(found: &[ContactPoint3]) -> Points {
    let mut out = Points::default();
    if found.len() <= 4 {
        out.points[..found.len()].copy_from_slice(found);
        out.count = found.len() as u8;
        return out;
    }
    let pick = |score: &dyn Fn(Vec3) -> Real| {
        found
            .iter()
            .enumerate()
            .max_by(|x, y| score(x.1.point).total_cmp(&score(y.1.point)))
            .map_or(0, |(i, _)| i)
    };
    let i0 = found
        .iter()
        .enumerate()
        .max_by(|x, y| x.1.depth.total_cmp(&y.1.depth))
        .map_or(0, |(i, _)| i);
    let p0 = found[i0].point;
    let i1 = pick(&|p| (p - p0).dot(p - p0));
    let p1 = found[i1].point;
    let i2 = pick(&|p| (p1 - p0).cross(p - p0).length());
    let p2 = found[i2].point;
    let m = (p1 - p0).cross(p2 - p0);
    // The area a fourth point adds outside the triangle.
    let outside = |q: Vec3| {
        [(p0, p1), (p1, p2), (p2, p0)]
            .iter()
            .map(|&(u, v)| -(v - u).cross(q - u).dot(m))
            .fold(Real::NEG_INFINITY, Real::max)
    };
    let i3 = pick(&outside);
    let mut count = 0;
    for i in [i0, i1, i2, i3] {
        if (0..count).all(|k| out.points[k] != found[i]) {
            out.points[count] = found[i];
            count += 1;
        }
    }
    if outside(found[i3].point) <= 0.0 && count == 4 {
        count = 3;
    }
    out.count = count as u8;
    out
}

/// One point where edges or corners meet: take `b` just clear of `a` along
/// the normal, find the closest points by GJK, and put `b`'s back; the
/// point is halfway between the two.
fn witness_point(
    a: &ConvexPolyhedron,
    b: &ConvexPolyhedron,
    x: &Transform3,
    normal: Vec3,
    depth: Real,
) -> Points {
    let lift = depth + 1e-3 * (a.outer_radius + b.outer_radius);
    let clear = Transform3 {
        translation: x.translation + normal * lift,
        rotation: x.rotation,
    };
    let start = clear.apply(b.centroid) - a.centroid;
    let (on_a, on_b) = distance3::closest(&mut Difference::new(a, b, &clear), start);
    let on_b = on_b - normal * lift;
    Points::one((on_a + on_b) * 0.5, depth)
}
