//! Contacts between two convex cores: the minimum translation (normal and
//! depth) and up to two contact points, in the first shape's frame.
//!
//! The deepest-axis search is the separating-axis test run to the end; the
//! points come from clipping the incident edge against the reference edge's
//! side planes (as Box2D does), or, where rounded ends meet at a corner, from
//! the closest points of the cores.

use crate::math::{Real, Vec2};
use crate::narrow::gjk;
use crate::narrow::sat::{self, FaceSeparation};
use crate::narrow::shape::Core;
use crate::narrow::shortcut;
use crate::transform::Rot;
use crate::transform::Transform;

/// One contact point: the midpoint between the two surfaces, and how deep
/// the shapes overlap there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactPoint {
    /// World position, halfway between the two surfaces.
    pub point: Vec2,
    /// Overlap at this point (≥ 0).
    pub depth: Real,
}

/// How two overlapping (or touching) shapes meet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// Unit normal from the first shape towards the second: moving the
    /// second shape by `normal * depth` (or the first by the opposite)
    /// separates them. This is the minimum translation vector's direction.
    pub normal: Vec2,
    /// Penetration depth, the length of the minimum translation (≥ 0;
    /// 0 when the shapes only touch).
    pub depth: Real,
    points: [ContactPoint; 2],
    count: u8,
}

impl Contact {
    /// The contact points: one, or two where edges lie flat on each other.
    pub fn points(&self) -> &[ContactPoint] {
        &self.points[..usize::from(self.count)]
    }

    /// The minimum translation vector: move the second shape by this.
    pub fn mtv(&self) -> Vec2 {
        self.normal * self.depth
    }

    pub(crate) fn single(normal: Vec2, depth: Real, point: Vec2) -> Self {
        let p = ContactPoint { point, depth };
        Self {
            normal,
            depth,
            points: [p, p],
            count: 1,
        }
    }

    /// The same contact seen from the other shape.
    pub(crate) fn flipped(mut self) -> Self {
        self.normal = -self.normal;
        self
    }

    /// Maps a contact computed in some frame to the world.
    pub(crate) fn to_world(mut self, frame: &Transform) -> Self {
        self.normal = frame.rotation.apply(self.normal);
        for p in &mut self.points {
            p.point = frame.apply(p.point);
        }
        self
    }
}

/// Two faces whose separations differ by less than this (relative) are
/// treated as equal, and the first shape's face wins: this keeps the
/// contact from flickering between faces from one frame to the next.
const FACE_TOLERANCE: Real = 1e-5;

/// The contact between core `a` (its own frame) and core `b` (placed in
/// `a`'s frame by `xf`), in `a`'s frame; `None` when they are apart.
pub(crate) fn contact(a: &Core<'_>, b: &Core<'_>, xf: &Transform) -> Option<Contact> {
    let r = a.radius + b.radius;
    if a.normals.is_empty() && b.normals.is_empty() {
        return point_point(a, b, xf);
    }
    if shortcut::by_bounds(a, b, xf) == Some(false) {
        return None;
    }
    let xf_inv = xf.inverse();
    let face_a = (!a.normals.is_empty()).then(|| sat::max_separation(a, b, xf, r));
    if face_a.is_some_and(|f| f.separation > r) {
        return None;
    }
    let face_b = (!b.normals.is_empty()).then(|| sat::max_separation(b, a, &xf_inv, r));
    if face_b.is_some_and(|f| f.separation > r) {
        return None;
    }
    // The reference face: the least-negative separation, preferring `a`.
    let use_b = match (face_a, face_b) {
        (Some(fa), Some(fb)) => {
            let slack = FACE_TOLERANCE * (1.0 + fa.separation.abs().max(r));
            fb.separation > fa.separation + slack
        }
        (None, Some(_)) => true,
        _ => false,
    };
    let face = if use_b { face_b } else { face_a }?;
    if face.separation > 0.0 {
        // The cores are apart but within the radii: the face normal is the
        // true normal only if the closest points lie across that face.
        let d = gjk::distance(a, b, xf);
        if d.distance > r {
            return None;
        }
        if d.distance > 0.0 {
            let normal = (d.on_b - d.on_a) * (1.0 / d.distance);
            let face_normal = if use_b {
                -xf.rotation.apply(b.normals[face.edge])
            } else {
                a.normals[face.edge]
            };
            if normal.dot(face_normal) < 1.0 - 1e-4 {
                let depth = r - d.distance;
                let mid = ((d.on_a + normal * a.radius) + (d.on_b - normal * b.radius)) * 0.5;
                return Some(Contact::single(normal, depth, mid));
            }
        }
    }
    Some(if use_b {
        clip(b, a, &xf_inv, face).flipped().to_world(xf)
    } else {
        clip(a, b, xf, face)
    })
}

/// Two world discs, decided exactly as `intersects` decides them (squared
/// distance against squared radii), in the world. Coincident centres push
/// along `a`'s x axis, as the general path does.
pub(crate) fn discs(ca: Vec2, ra: Real, cb: Vec2, rb: Real, rot_a: Rot) -> Option<Contact> {
    let r = ra + rb;
    let d = cb - ca;
    let d2 = d.length_squared();
    if d2 > r * r {
        return None;
    }
    let dist = d2.sqrt();
    let normal = if dist > 0.0 {
        d * (1.0 / dist)
    } else {
        rot_a.apply(Vec2::new(1.0, 0.0))
    };
    let mid = ((ca + normal * ra) + (cb - normal * rb)) * 0.5;
    Some(Contact::single(normal, (r - dist).max(0.0), mid))
}

fn point_point(a: &Core<'_>, b: &Core<'_>, xf: &Transform) -> Option<Contact> {
    let (pa, pb) = (a.points[0], xf.apply(b.points[0]));
    let r = a.radius + b.radius;
    let d = pb - pa;
    let dist = d.length();
    if dist > r {
        return None;
    }
    let normal = if dist > 0.0 {
        d * (1.0 / dist)
    } else {
        Vec2::new(1.0, 0.0)
    };
    let mid = ((pa + normal * a.radius) + (pb - normal * b.radius)) * 0.5;
    Some(Contact::single(normal, r - dist, mid))
}

/// Face contact: clip the incident feature of `inc` against the reference
/// edge of `reference`. In `reference`'s frame; the normal points from
/// `reference` towards `inc`.
fn clip(reference: &Core<'_>, inc: &Core<'_>, xf: &Transform, face: FaceSeparation) -> Contact {
    let normal = reference.normals[face.edge];
    let v1 = reference.points[face.edge];
    let v2 = reference.points[(face.edge + 1) % reference.points.len()];
    let r = reference.radius + inc.radius;
    let depth = r - face.separation;

    // The incident feature, in the reference frame.
    let (p1, p2) = if inc.normals.is_empty() {
        let p = xf.apply(inc.points[face.support]);
        (p, p)
    } else {
        let k = sat::incident_edge(inc, face.support, xf.rotation.apply_inverse(normal));
        let next = if k + 1 == inc.points.len() { 0 } else { k + 1 };
        (xf.apply(inc.points[k]), xf.apply(inc.points[next]))
    };

    // Clip p1 p2 to the slab between the reference edge's ends.
    let tangent = (v2 - v1)
        .normalized()
        .unwrap_or(Vec2::new(-normal.y, normal.x));
    let (lo, hi) = (tangent.dot(v1), tangent.dot(v2));
    let (mut q1, mut q2) = (p1, p2);
    let (t1, t2) = (tangent.dot(p1), tangent.dot(p2));
    if (t1 - t2).abs() > 0.0 {
        let at = |t: Real| p1 + (p2 - p1) * ((t - t1) / (t2 - t1));
        if t1 < lo && t2 >= lo {
            q1 = at(lo);
        } else if t2 < lo && t1 >= lo {
            q2 = at(lo);
        }
        let (u1, u2) = (tangent.dot(q1), tangent.dot(q2));
        if u1 > hi && u2 <= hi {
            q1 = at(hi);
        } else if u2 > hi && u1 <= hi {
            q2 = at(hi);
        }
    }

    let mut out = Contact {
        normal,
        depth,
        points: [ContactPoint {
            point: Vec2::ZERO,
            depth: 0.0,
        }; 2],
        count: 0,
    };
    let distinct = (q1 - q2).length_squared() > 0.0;
    let candidates = [q1, q2];
    for q in &candidates[..if distinct { 2 } else { 1 }] {
        let s = normal.dot(*q - v1);
        if s <= r {
            let on_ref = *q - normal * (s - reference.radius);
            let on_inc = *q - normal * inc.radius;
            out.points[usize::from(out.count)] = ContactPoint {
                point: (on_ref + on_inc) * 0.5,
                depth: r - s,
            };
            out.count += 1;
        }
    }
    if out.count == 0 {
        // Only rounding can clip every point away: fall back to the deepest one.
        let q = xf.apply(inc.points[face.support]);
        let s = normal.dot(q - v1);
        out.points[0] = ContactPoint {
            point: q - normal * ((s - reference.radius + inc.radius) * 0.5),
            depth: depth.max(0.0),
        };
        out.count = 1;
    }
    out
}
