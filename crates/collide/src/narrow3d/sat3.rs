//! Separating axes between convex polyhedra: the face normals of both, and
//! the cross products of edge pairs. Only the edge pairs whose arcs cross on
//! the Gauss map (Gregorius, GDC 2013) make a face of the Minkowski
//! difference; the others cannot separate more than a face does, so they
//! are skipped without projecting anything, and near-parallel pairs (a
//! near-zero cross product) are skipped too.

use crate::error::CollideError;
use crate::math::Real;
use crate::narrow3d::math3::{Transform3, Vec3};
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

/// Do arcs `a b` and `c d` cross on the unit sphere?
#[inline]
fn arcs_cross(a: Vec3, b: Vec3, c: Vec3, d: Vec3) -> bool {
    let bxa = b.cross(a);
    let dxc = d.cross(c);
    let cba = c.dot(bxa);
    let dba = d.dot(bxa);
    let adc = a.dot(dxc);
    let bdc = b.dot(dxc);
    cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0
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
        let (nc, nd) = (-x.rotation.apply(eb.n1), -x.rotation.apply(eb.n2));
        let db = q1 - q0;
        for ea in &a.edges {
            if !arcs_cross(ea.n1, ea.n2, nc, nd) {
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
) -> Best {
    let x = relative(xa, xb);
    let fa = face_query(a, b, &x, stop);
    if stop && fa.separation > 0.0 {
        return fa;
    }
    let xi = relative(xb, xa);
    let mut fb = face_query(b, a, &xi, stop);
    // Back in a's frame, pointing from a to b.
    fb.normal = -x.rotation.apply(fb.normal);
    if stop && fb.separation > 0.0 {
        return fb;
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
    best
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
    Ok(deepest(a, xa, b, xb, true).separation <= 0.0)
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
    let best = deepest(a, xa, b, xb, false);
    Ok((best.separation <= 0.0).then(|| Contact3 {
        normal: xa.rotation.apply(best.normal),
        depth: -best.separation,
    }))
}
