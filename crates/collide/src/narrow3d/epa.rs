//! Penetration depth by the expanding polytope algorithm (van den Bergen,
//! 2001): from GJK's tetrahedron around the origin, grow a polytope inside
//! the Minkowski difference B − A towards the part of its boundary nearest
//! the origin. Each step costs one support search (a climb on large hulls),
//! so two hulls of a thousand vertices take a few dozen of them instead of
//! the millions of edge pairs the separating-axis test would weigh.
//!
//! The nearest face of the grown polytope is a lower bound on the depth,
//! and the support along its normal an upper bound that a translation
//! really achieves; the search stops when they meet within the tolerance
//! and answers with the upper bound, so the translation it gives always
//! separates. It gives up (and the caller weighs every axis) when the
//! polytope degenerates or grows past its fixed size.

use crate::math::Real;
use crate::narrow3d::gjk3::Difference;
use crate::narrow3d::math3::Vec3;

/// Most corners the polytope may grow to: fixed arrays on the stack, no
/// allocation per query.
const MAX_POINTS: usize = 64;
/// A closed triangulated surface with V corners has 2V − 4 faces.
const MAX_FACES: usize = 2 * MAX_POINTS;

#[derive(Clone, Copy, Debug, Default)]
struct Face {
    /// Counter-clockwise seen from outside.
    corner: [u8; 3],
    /// Outward unit normal.
    normal: Vec3,
    /// Distance of the face's plane from the origin (the origin is inside).
    distance: Real,
}

/// Where B − A comes nearest to the origin from inside.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Penetration {
    /// Outward unit normal of B − A there, in A's frame: moving B by
    /// `-normal * depth` leaves the shapes touching.
    pub(crate) normal: Vec3,
    pub(crate) depth: Real,
}

/// The face through corners `c` (in this order), or `None` when it has no
/// area to speak of.
fn face(points: &[Vec3], c: [usize; 3]) -> Option<Face> {
    let (p, q, r) = (points[c[0]], points[c[1]], points[c[2]]);
    let n = (q - p).cross(r - p);
    let len = n.length();
    let scale = (q - p).length() * (r - p).length();
    // (Written to refuse NaN as well.)
    if len.partial_cmp(&(1e-7 * scale)) != Some(std::cmp::Ordering::Greater) {
        return None;
    }
    let normal = n * (1.0 / len);
    Some(Face {
        corner: c.map(|k| k as u8),
        normal,
        distance: normal.dot(p),
    })
}

/// The penetration of the pair behind `difference`, starting from
/// `start`, a tetrahedron of B − A that holds the origin. `tolerance`:
/// how far above the true depth the answer may be.
pub(crate) fn penetration(
    difference: &mut Difference<'_>,
    start: [Vec3; 4],
    tolerance: Real,
) -> Option<Penetration> {
    let mut points = [Vec3::ZERO; MAX_POINTS];
    points[..4].copy_from_slice(&start);
    let mut point_count = 4;
    let mut faces = [Face::default(); MAX_FACES];
    let mut face_count = 0;
    for (c, far) in [
        ([0, 1, 2], 3),
        ([0, 3, 1], 2),
        ([0, 2, 3], 1),
        ([1, 3, 2], 0),
    ] {
        let mut f = face(&points, c)?;
        if f.normal.dot(points[far] - points[c[0]]) > 0.0 {
            f = face(&points, [c[0], c[2], c[1]])?;
        }
        faces[face_count] = f;
        face_count += 1;
    }
    // Successive directions differ little: climb from the last answer.
    difference.warm = true;
    let mut best: Option<Penetration> = None;
    let mut visible = [false; MAX_FACES];
    let mut seen = [0u16; MAX_FACES];
    let mut horizon = [(0u8, 0u8); MAX_FACES];
    loop {
        let nearest = faces[..face_count]
            .iter()
            .min_by(|f, g| f.distance.total_cmp(&g.distance))
            .copied()?;
        let w = difference.support(nearest.normal);
        let reach = w.dot(nearest.normal);
        if best.is_none_or(|b| reach < b.depth) {
            best = Some(Penetration {
                normal: nearest.normal,
                depth: reach,
            });
        }
        let upper = best?.depth;
        match (upper - nearest.distance).partial_cmp(&tolerance) {
            Some(std::cmp::Ordering::Greater) => {}
            Some(_) => return best,
            None => return None, // NaN: let every axis decide
        }
        if point_count == MAX_POINTS {
            return None;
        }
        points[point_count] = w;
        let new = point_count;
        point_count += 1;

        let mut seen_count = 0;
        for (k, f) in faces[..face_count].iter().enumerate() {
            visible[k] = f.normal.dot(w - points[f.corner[0] as usize]) > 0.0;
            if visible[k] {
                seen[seen_count] = k as u16;
                seen_count += 1;
            }
        }
        // The horizon: edges of visible faces whose twin lies on a face
        // that stays.
        let seen_faces = &seen[..seen_count];
        let mut horizon_count = 0;
        for &k in seen_faces {
            let f = faces[k as usize];
            for e in 0..3 {
                let (a, b) = (f.corner[e], f.corner[(e + 1) % 3]);
                let twin_goes = seen_faces.iter().any(|&j| {
                    let g = faces[j as usize].corner;
                    (g[0] == b && g[1] == a) || (g[1] == b && g[2] == a) || (g[2] == b && g[0] == a)
                });
                if !twin_goes {
                    if horizon_count == MAX_FACES {
                        return None;
                    }
                    horizon[horizon_count] = (a, b);
                    horizon_count += 1;
                }
            }
        }
        if horizon_count == 0 {
            return None; // nothing visible: rounding has the polytope wrong
        }
        let mut kept = 0;
        for k in 0..face_count {
            if !visible[k] {
                faces[kept] = faces[k];
                kept += 1;
            }
        }
        if kept + horizon_count > MAX_FACES {
            return None;
        }
        face_count = kept;
        for &(a, b) in &horizon[..horizon_count] {
            let f = face(&points, [a as usize, b as usize, new])?;
            if f.distance < -tolerance {
                return None; // the origin would fall outside: degenerate
            }
            faces[face_count] = f;
            face_count += 1;
        }
    }
}
