//! Separating axes between convex polyhedra: the face normals of both, and
//! the cross products of edge pairs. Only the edge pairs whose arcs cross on
//! the Gauss map (Gregorius, GDC 2013) make a face of the Minkowski
//! difference; the others cannot separate more than a face does, so they
//! are skipped without projecting anything, and near-parallel pairs (a
//! near-zero cross product) are skipped too.
//!
//! Shortcuts settle most pairs before any axis: the 15-axis test for two
//! boxes, bounding spheres, GJK for yes/no and EPA (`epa.rs`) for the
//! penetration. Every axis is weighed only where those are unsure, or when
//! the caller asks for this method by name.

use crate::error::CollideError;
use crate::math::Real;
use crate::narrow3d::epa;
use crate::narrow3d::gjk3::{self, Verdict};
use crate::narrow3d::manifold::{self, ContactPoint3};
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
    points: [ContactPoint3; 4],
    count: u8,
}

impl Contact3 {
    /// The contact points: up to four where faces lie on each other, one
    /// where edges or corners meet.
    pub fn points(&self) -> &[ContactPoint3] {
        &self.points[..usize::from(self.count)]
    }

    /// The minimum translation vector: move the second shape by this.
    pub fn mtv(&self) -> Vec3 {
        self.normal * self.depth
    }

    /// The contact along `normal` (`a`'s frame) with its points, in world.
    fn new(
        a: &ConvexPolyhedron,
        xa: &Transform3,
        b: &ConvexPolyhedron,
        x: &Transform3,
        normal: Vec3,
        depth: Real,
    ) -> Self {
        let found = manifold::contact_points(a, b, x, normal, depth);
        let mut points = found.points;
        for p in &mut points {
            p.point = xa.apply(p.point);
        }
        Self {
            normal: xa.rotation.apply(normal),
            depth,
            points,
            count: found.count,
        }
    }
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
pub(crate) fn relative(xa: &Transform3, xb: &Transform3) -> Transform3 {
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

/// Far above the rounding of any test here, far below any real gap.
fn slack(a: &ConvexPolyhedron, b: &ConvexPolyhedron, x: &Transform3) -> Real {
    let t = x.translation;
    1e-5 * (a.outer_radius + b.outer_radius + t.x.abs() + t.y.abs() + t.z.abs())
}

/// Apart when the bounding spheres are, overlapping when the inner ones do.
fn spheres(
    a: &ConvexPolyhedron,
    b: &ConvexPolyhedron,
    x: &Transform3,
    slack: Real,
) -> Option<bool> {
    let gap = (x.apply(b.centroid) - a.centroid).length();
    if gap > a.outer_radius + b.outer_radius + slack {
        return Some(false);
    }
    if gap < a.inner_radius + b.inner_radius - slack {
        return Some(true);
    }
    None
}

/// Settles a pair by a shortcut when one is sure: bounding spheres, else
/// GJK. `None`: run every axis.
fn shortcut(a: &ConvexPolyhedron, b: &ConvexPolyhedron, x: &Transform3) -> Option<bool> {
    let slack = slack(a, b, x);
    spheres(a, b, x, slack).or_else(|| match gjk3::overlap(a, b, x, slack) {
        Verdict::Apart => Some(false),
        Verdict::Overlap(_) => Some(true),
        Verdict::Unsure => None,
    })
}

/// The contact by GJK and EPA; `Err(())` when they are unsure and every
/// axis must be weighed.
fn contact_by_epa(
    a: &ConvexPolyhedron,
    b: &ConvexPolyhedron,
    x: &Transform3,
) -> Result<Option<(Vec3, Real)>, ()> {
    let slack = slack(a, b, x);
    if spheres(a, b, x, slack) == Some(false) {
        return Ok(None);
    }
    match gjk3::overlap(a, b, x, slack) {
        Verdict::Apart => Ok(None),
        Verdict::Unsure => Err(()),
        Verdict::Overlap(tetrahedron) => {
            let tolerance = 1e-4 * (a.outer_radius + b.outer_radius);
            let mut difference = gjk3::Difference::new(a, b, x);
            epa::penetration(&mut difference, tetrahedron, tolerance)
                .map(|p| Some((-p.normal, p.depth)))
                .ok_or(())
        }
    }
}

/// The face-preferred axis (world, from `a` towards `b`) that separates
/// the placed pair, computed from face normals and edge directions alone:
/// exact even where the gap is too thin for the direction between closest
/// points to be trusted. `None` when no axis separates.
pub(crate) fn separating_face_or_edge_axis(
    a: &ConvexPolyhedron,
    xa: &Transform3,
    b: &ConvexPolyhedron,
    xb: &Transform3,
) -> Option<Vec3> {
    let x = relative(xa, xb);
    let (gap, normal) = if let (Some(ha), Some(hb)) = (a.box_half, b.box_half) {
        let g = obb::box_gap(ha, hb, &x, false);
        (g.gap, g.normal)
    } else {
        let d = deepest(a, xa, b, xb, false);
        (d.best.separation, d.best.normal)
    };
    (gap > 0.0).then(|| xa.rotation.apply(normal))
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
/// Two cuboids take the 15 box axes. Other pairs take GJK and then EPA,
/// whose depth is within 1e-4 of the summed bounding radii above the true
/// one (never below it: the translation always separates); where those two
/// are unsure (touching pairs, degenerate simplices) every separating axis
/// is weighed, as [`contact_polyhedra_by_axes`] does.
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
        return Ok((g.max_gap <= 0.0).then(|| Contact3::new(a, xa, b, &x, g.normal, -g.gap)));
    }
    if let Ok(found) = contact_by_epa(a, b, &x) {
        return Ok(found.map(|(normal, depth)| Contact3::new(a, xa, b, &x, normal, depth)));
    }
    // The spheres and GJK have had their say: straight to every axis.
    Ok(contact_by_every_axis(a, xa, b, xb, &x))
}

/// The minimum translation by the seed's method alone: every face normal
/// of both and every edge-pair axis whose arcs cross on the Gauss map.
/// Exact (no tolerance) and face-preferred on near-ties, which keeps
/// resting contacts steady, but it weighs O(edges²) pairs: for hulls
/// beyond a dozen vertices [`contact_polyhedra`] is far faster.
///
/// # Errors
/// [`CollideError::NonFiniteTransform`] for a NaN or infinite transform.
pub fn contact_polyhedra_by_axes(
    a: &ConvexPolyhedron,
    xa: &Transform3,
    b: &ConvexPolyhedron,
    xb: &Transform3,
) -> Result<Option<Contact3>, CollideError> {
    check(xa, xb)?;
    let x = relative(xa, xb);
    if shortcut(a, b, &x) == Some(false) {
        return Ok(None);
    }
    Ok(contact_by_every_axis(a, xa, b, xb, &x))
}

fn contact_by_every_axis(
    a: &ConvexPolyhedron,
    xa: &Transform3,
    b: &ConvexPolyhedron,
    xb: &Transform3,
    x: &Transform3,
) -> Option<Contact3> {
    let d = deepest(a, xa, b, xb, false);
    (d.max_separation <= 0.0).then(|| Contact3::new(a, xa, b, x, d.best.normal, -d.best.separation))
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
        let n = 4 + (rng.next() * 20.0) as usize;
        hull_of(rng, n)
    }

    fn hull_of(rng: &mut Lcg, n: usize) -> ConvexPolyhedron {
        loop {
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
                Verdict::Overlap(_) => assert!(every_axis < 0.0, "overlap, but {every_axis}"),
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

    /// A hull of `n` points on an ellipsoid: every point a vertex.
    fn round_hull(rng: &mut Lcg, n: usize) -> ConvexPolyhedron {
        let stretch = Vec3::new(
            rng.range(0.3, 1.5),
            rng.range(0.3, 1.5),
            rng.range(0.3, 1.5),
        );
        let pts: Vec<Vec3> = (0..n)
            .map(|_| {
                loop {
                    let p = rng.vec(1.0);
                    if let Some(u) = p.normalized().filter(|_| p.length() > 0.1) {
                        break Vec3::new(u.x * stretch.x, u.y * stretch.y, u.z * stretch.z);
                    }
                }
            })
            .collect();
        ConvexPolyhedron::hull(&pts).unwrap()
    }

    /// Separation of the placed pair along `axis` (a's frame, from a
    /// towards b).
    fn separation_along(
        a: &ConvexPolyhedron,
        b: &ConvexPolyhedron,
        x: &Transform3,
        axis: Vec3,
    ) -> Real {
        let low_b = b
            .vertices
            .iter()
            .map(|&v| axis.dot(x.apply(v)))
            .fold(Real::INFINITY, Real::min);
        let high_a = a
            .vertices
            .iter()
            .map(|&v| axis.dot(v))
            .fold(Real::NEG_INFINITY, Real::max);
        low_b - high_a
    }

    /// EPA against every axis, on hulls from 8 to 400 points: the depth is
    /// no less than the true one and no more than the tolerance above it,
    /// the normal achieves it, and EPA gives up on few pairs.
    #[test]
    fn epa_agrees_with_every_axis() {
        let mut rng = Lcg(11);
        let (mut gave_up, mut overlaps) = (0, 0);
        for trial in 0..600 {
            let sizes = [8, 16, 40, 120, 400];
            let (a, b) = if trial % 10 == 9 {
                (round_hull(&mut rng, 300), round_hull(&mut rng, 300))
            } else {
                (
                    hull_of(&mut rng, sizes[trial % 5]),
                    hull_of(&mut rng, sizes[(trial / 5) % 5]),
                )
            };
            let (xa, xb) = (random_pose(&mut rng, 1.5), random_pose(&mut rng, 1.5));
            let x = relative(&xa, &xb);
            let truth = deepest(&a, &xa, &b, &xb, false);
            let Ok(found) = contact_by_epa(&a, &b, &x) else {
                gave_up += 1;
                continue;
            };
            match found {
                None => assert!(
                    truth.max_separation > 0.0,
                    "EPA: apart; axes: {}",
                    truth.max_separation
                ),
                Some((normal, depth)) => {
                    overlaps += 1;
                    let true_depth = -truth.max_separation;
                    let tolerance = 1e-4 * (a.outer_radius + b.outer_radius);
                    assert!(
                        depth >= true_depth - 1e-5,
                        "EPA {depth} below the true {true_depth}"
                    );
                    assert!(
                        depth <= true_depth + tolerance + 1e-5,
                        "EPA {depth} above the true {true_depth}"
                    );
                    let along = separation_along(&a, &b, &x, normal);
                    assert!(
                        (along + depth).abs() < 1e-4,
                        "normal gives {along}, depth {depth}"
                    );
                }
            }
        }
        assert!(overlaps > 200, "only {overlaps} overlapping pairs");
        assert!(gave_up * 100 < 600, "EPA gave up on {gave_up} of 600");
    }
}
