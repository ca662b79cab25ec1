//! Separating axes between convex polyhedra: the face normals of both, and
//! the cross products of edge pairs. Only the edge pairs whose arcs cross on
//! the Gauss map (Gregorius, GDC 2013) make a face of the Minkowski
//! difference; the others cannot separate more than a face does, so they
//! are skipped without projecting anything, and near-parallel pairs (a
//! near-zero cross product) are skipped too.

use crate::error::CollideError;
use crate::math::Real;
use crate::narrow3d::gjk3::{self, Verdict};
use crate::narrow3d::math3::{Transform3, Vec3};
use crate::narrow3d::obb;
use crate::narrow3d::polyhedron::ConvexPolyhedron;

/// How two convex polyhedra overlap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact3 {
    /// Unit normal from the first shape towards the second (world):
    /// moving the second by `normal * depth` separates them.
    pub normal: Vec3,
    /// Penetration depth (≥ 0; 0 when they only touch).
    pub depth: Real,
}

#[derive(Clone, Copy, Debug)]
struct Best {
    separation: Real,
    /// In the first shape's frame, pointing from it towards the second.
    normal: Vec3,
}

/// The answer of the full test: the largest separation over every axis
/// (> 0: apart), and the preferred axis with its separation.
#[derive(Clone, Copy, Debug)]
struct Deepest {
    max_separation: Real,
    best: Best,
}

/// Placement of `b` in `a`'s frame.
fn relative(xa: &Transform3, xb: &Transform3) -> Transform3 {
    // Columns of Raᵀ Rb are Raᵀ applied to Rb's columns.
    let cols = xb.rotation.columns().map(|c| xa.rotation.apply_inverse(c));
    Transform3 {
        translation: xa.rotation.apply_inverse(xb.translation - xa.translation),
        rotation: crate::narrow3d::math3::Rot3::from_columns(cols),
    }
}

/// Largest separation of `b` (placed by `x` in `a`'s frame) from `a`'s faces.
fn face_query(a: &ConvexPolyhedron, b: &ConvexPolyhedron, x: &Transform3, stop: bool) -> Best {
    let mut best = Best {
        separation: Real::NEG_INFINITY,
        normal: Vec3::ZERO,
    };
    for f in &a.faces {
        let local = x.rotation.apply_inverse(f.normal);
        let deepest = b
            .vertices
            .iter()
            .map(|v| local.dot(*v))
            .fold(Real::INFINITY, Real::min);
        let separation = deepest + f.normal.dot(x.translation) - f.offset;
        if separation > best.separation {
            best = Best {
                separation,
                normal: f.normal,
            };
            if stop && separation > 0.0 {
                break;
            }
        }
    }
    best
}

/// Do arcs `a b` and `c d` cross on the unit sphere? `bxa` is `b × a` and
/// `dxc` is `d × c`, precomputed.
#[inline]
fn arcs_cross(a: Vec3, b: Vec3, bxa: Vec3, c: Vec3, d: Vec3, dxc: Vec3) -> bool {
    let cba = c.dot(bxa);
    let dba = d.dot(bxa);
    let adc = a.dot(dxc);
    let bdc = b.dot(dxc);
    // `&`, not `&&`: most pairs fail, at random, on one of the three; a
    // single rarely-taken branch beats three mispredicted ones.
    (cba * dba < 0.0) & (adc * bdc < 0.0) & (cba * bdc > 0.0)
}

fn edge_query(a: &ConvexPolyhedron, b: &ConvexPolyhedron, x: &Transform3, stop: bool) -> Best {
    let mut best = Best {
        separation: Real::NEG_INFINITY,
        normal: Vec3::ZERO,
    };
    for eb in &b.edges {
        let (q0, q1) = (
            x.apply(b.vertices[eb.b as usize]),
            x.apply(b.vertices[eb.a as usize]),
        );
        // b's arc, negated onto B's side of the Minkowski difference; its
        // plane (nd × nc) is the rotated stored arc (the signs cancel).
        let (nc, nd) = (-x.rotation.apply(eb.n1), -x.rotation.apply(eb.n2));
        let dxc = x.rotation.apply(eb.arc);
        let db = q1 - q0;
        for ea in &a.edges {
            if !arcs_cross(ea.n1, ea.n2, ea.arc, nc, nd, dxc) {
                continue;
            }
            let p0 = a.vertices[ea.a as usize];
            let da = a.vertices[ea.b as usize] - p0;
            let axis = da.cross(db);
            let len = axis.length();
            if len <= 1e-5 * da.length() * db.length() {
                continue; // parallel edges: a face axis covers them
            }
            let mut n = axis * (1.0 / len);
            if n.dot(p0 - a.centroid) < 0.0 {
                n = -n;
            }
            let separation = n.dot(q0 - p0);
            if separation > best.separation {
                best = Best {
                    separation,
                    normal: n,
                };
                if stop && separation > 0.0 {
                    return best;
                }
            }
        }
    }
    best
}

fn check(xa: &Transform3, xb: &Transform3) -> Result<(), CollideError> {
    if xa.is_finite() && xb.is_finite() {
        Ok(())
    } else {
        Err(CollideError::NonFiniteTransform {
            what: "3-D transform",
        })
    }
}

fn deepest(
    a: &ConvexPolyhedron,
    xa: &Transform3,
    b: &ConvexPolyhedron,
    xb: &Transform3,
    stop: bool,
) -> Deepest {
    let x = relative(xa, xb);
    let only = |best: Best| Deepest {
        max_separation: best.separation,
        best,
    };
    let fa = face_query(a, b, &x, stop);
    if stop && fa.separation > 0.0 {
        return only(fa);
    }
    let xi = relative(xb, xa);
    let mut fb = face_query(b, a, &xi, stop);
    // Back in a's frame, pointing from a to b.
    fb.normal = -x.rotation.apply(fb.normal);
    if stop && fb.separation > 0.0 {
        return only(fb);
    }
    let fe = edge_query(a, b, &x, stop);
    // Prefer faces on near-ties: their contacts are the stable ones.
    let tol = 1e-5 * (1.0 + fa.separation.abs());
    let mut best = fa;
    if fb.separation > best.separation + tol {
        best = fb;
    }
    if fe.separation > best.separation + tol {
        best = fe;
    }
    Deepest {
        max_separation: fa.separation.max(fb.separation).max(fe.separation),
        best,
    }
}

/// Settles a pair by a shortcut when one is sure: the 15-axis test for
/// two boxes, else bounding spheres, else GJK. `None`: run every axis.
fn shortcut(a: &ConvexPolyhedron, b: &ConvexPolyhedron, x: &Transform3) -> Option<bool> {
    let gap = (x.apply(b.centroid) - a.centroid).length();
    let outer = a.outer_radius + b.outer_radius;
    let t = x.translation;
    // Far above the rounding of any test here, far below any real gap.
    let slack = 1e-5 * (outer + t.x.abs() + t.y.abs() + t.z.abs());
    if gap > outer + slack {
        return Some(false);
    }
    if gap < a.inner_radius + b.inner_radius - slack {
        return Some(true);
    }
    match gjk3::overlap(a, b, x, slack) {
        Verdict::Apart => Some(false),
        Verdict::Overlap => Some(true),
        Verdict::Unsure => None,
    }
}

/// Do the placed polyhedra overlap or touch?
///
/// # Errors
/// [`CollideError::NonFiniteTransform`] for a NaN or infinite transform.
pub fn intersects_polyhedra(
    a: &ConvexPolyhedron,
    xa: &Transform3,
    b: &ConvexPolyhedron,
    xb: &Transform3,
) -> Result<bool, CollideError> {
    check(xa, xb)?;
    let x = relative(xa, xb);
    if let (Some(ha), Some(hb)) = (a.box_half, b.box_half) {
        return Ok(obb::box_gap(ha, hb, &x, true).max_gap <= 0.0);
    }
    if let Some(answer) = shortcut(a, b, &x) {
        return Ok(answer);
    }
    Ok(deepest(a, xa, b, xb, true).max_separation <= 0.0)
}

/// The minimum translation between two overlapping polyhedra; `None` when
/// they are apart.
///
/// # Errors
/// [`CollideError::NonFiniteTransform`] for a NaN or infinite transform.
pub fn contact_polyhedra(
    a: &ConvexPolyhedron,
    xa: &Transform3,
    b: &ConvexPolyhedron,
    xb: &Transform3,
) -> Result<Option<Contact3>, CollideError> {
    check(xa, xb)?;
    let x = relative(xa, xb);
    if let (Some(ha), Some(hb)) = (a.box_half, b.box_half) {
        let g = obb::box_gap(ha, hb, &x, false);
        return Ok((g.max_gap <= 0.0).then(|| Contact3 {
            normal: xa.rotation.apply(g.normal),
            depth: -g.gap,
        }));
    }
    if shortcut(a, b, &x) == Some(false) {
        return Ok(None);
    }
    let d = deepest(a, xa, b, xb, false);
    Ok((d.max_separation <= 0.0).then(|| Contact3 {
        normal: xa.rotation.apply(d.best.normal),
        depth: -d.best.separation,
    }))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::narrow3d::math3::Rot3;

    /// A small deterministic generator (no dependency for a unit test).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> Real {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 40) as Real) / ((1u64 << 24) as Real)
        }
        fn range(&mut self, lo: Real, hi: Real) -> Real {
            lo + (hi - lo) * self.next()
        }
        fn vec(&mut self, r: Real) -> Vec3 {
            Vec3::new(self.range(-r, r), self.range(-r, r), self.range(-r, r))
        }
    }

    fn random_hull(rng: &mut Lcg) -> ConvexPolyhedron {
        loop {
            let n = 4 + (rng.next() * 20.0) as usize;
            let stretch = Vec3::new(
                rng.range(0.2, 2.0),
                rng.range(0.2, 2.0),
                rng.range(0.2, 2.0),
            );
            let pts: Vec<Vec3> = (0..n)
                .map(|_| {
                    let p = rng.vec(1.0);
                    Vec3::new(p.x * stretch.x, p.y * stretch.y, p.z * stretch.z)
                })
                .collect();
            if let Ok(h) = ConvexPolyhedron::hull(&pts) {
                return h;
            }
        }
    }

    fn random_pose(rng: &mut Lcg, spread: Real) -> Transform3 {
        let axis = rng.vec(2.0);
        Transform3 {
            translation: rng.vec(spread),
            rotation: Rot3::from_axis_angle(axis, axis.length()).unwrap(),
        }
    }

    /// GJK's verdicts against every axis: an "apart" certificate always has
    /// a separating axis, an "overlap" certificate never does, and few
    /// pairs are left unsure.
    #[test]
    fn gjk_verdicts_agree_with_every_axis() {
        let mut rng = Lcg(5);
        let (mut unsure, trials) = (0, 4000);
        for _ in 0..trials {
            let (a, b) = (random_hull(&mut rng), random_hull(&mut rng));
            let (xa, xb) = (random_pose(&mut rng, 2.5), random_pose(&mut rng, 2.5));
            let x = relative(&xa, &xb);
            let every_axis = deepest(&a, &xa, &b, &xb, false).max_separation;
            match gjk3::overlap(&a, &b, &x, 1e-5) {
                Verdict::Apart => assert!(every_axis > 0.0, "apart, but {every_axis}"),
                Verdict::Overlap => assert!(every_axis < 0.0, "overlap, but {every_axis}"),
                Verdict::Unsure => unsure += 1,
            }
        }
        assert!(unsure * 200 < trials, "{unsure} of {trials} unsure");
    }

    /// Two cuboids take the 15-axis path; the same boxes built as hulls of
    /// their corners take every face and edge pair. They must agree.
    #[test]
    fn box_path_agrees_with_the_general_path() {
        let mut rng = Lcg(9);
        for _ in 0..4000 {
            let ha = Vec3::new(
                rng.range(0.1, 2.0),
                rng.range(0.1, 2.0),
                rng.range(0.1, 2.0),
            );
            let hb = Vec3::new(
                rng.range(0.1, 2.0),
                rng.range(0.1, 2.0),
                rng.range(0.1, 2.0),
            );
            let (ba, bb) = (
                ConvexPolyhedron::cuboid(ha).unwrap(),
                ConvexPolyhedron::cuboid(hb).unwrap(),
            );
            let (ga, gb) = (
                ConvexPolyhedron::hull(&ba.vertices).unwrap(),
                ConvexPolyhedron::hull(&bb.vertices).unwrap(),
            );
            assert!(ga.box_half.is_none());
            let (xa, xb) = (random_pose(&mut rng, 2.5), random_pose(&mut rng, 2.5));
            let general = deepest(&ga, &xa, &gb, &xb, false);
            let fast = obb::box_gap(ha, hb, &relative(&xa, &xb), false);
            assert!(
                (general.max_separation - fast.max_gap).abs() < 1e-4,
                "{} vs {}",
                general.max_separation,
                fast.max_gap
            );
            let hit = intersects_polyhedra(&ba, &xa, &bb, &xb).unwrap();
            let c = contact_polyhedra(&ba, &xa, &bb, &xb).unwrap();
            assert_eq!(hit, c.is_some());
            if let Some(c) = c {
                assert!((c.depth + general.best.separation).abs() < 1e-4);
            }
        }
    }
}
