//! Oriented boxes by their 15 axes (Gottschalk, Lin & Manocha, 1996): the
//! three face axes of each box and the nine cross products of their edge
//! directions, all projected in closed form from the boxes' relative
//! rotation. The same separating-axis answer as the general polyhedron
//! test gives (a box's edges only run along its three axes), without
//! touching a vertex.

use crate::math::Real;
use crate::narrow3d::math3::{Transform3, Vec3};

/// The largest gap between the boxes' projections over the 15 axes, and
/// the preferred unit axis (in `a`'s frame, from `a` towards `b`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BoxGap {
    /// The largest gap over every axis tried (> 0: apart).
    pub(crate) max_gap: Real,
    /// The gap along `normal`: `max_gap`, or within a tie tolerance of it
    /// where a face axis was preferred.
    pub(crate) gap: Real,
    pub(crate) normal: Vec3,
}

/// Edge axes shorter than this (the sine of the edges' angle) come from
/// near-parallel edges, which a face axis already covers.
const PARALLEL: Real = 1e-5;

#[inline]
fn get(v: Vec3, i: usize) -> Real {
    match i {
        0 => v.x,
        1 => v.y,
        _ => v.z,
    }
}

#[inline]
fn unit(i: usize) -> Vec3 {
    match i {
        0 => Vec3::new(1.0, 0.0, 0.0),
        1 => Vec3::new(0.0, 1.0, 0.0),
        _ => Vec3::new(0.0, 0.0, 1.0),
    }
}

/// Box `a` (half extents `ha`) against box `b` (`hb`) placed in `a`'s frame
/// by `x`. With `stop`, returns at the first axis that separates. Near
/// ties a face axis wins over an edge axis and `a`'s faces over `b`'s, as
/// in the general test, so contacts do not flicker between features.
pub(crate) fn box_gap(ha: Vec3, hb: Vec3, x: &Transform3, stop: bool) -> BoxGap {
    // r[i][j] = a's axis i · b's axis j; cols[j] = b's axis j in a's frame.
    let cols = x.rotation.columns();
    let t = x.translation;
    let r = |i: usize, j: usize| get(cols[j], i);
    let ar = |i: usize, j: usize| r(i, j).abs();
    let mut best = BoxGap {
        max_gap: Real::NEG_INFINITY,
        gap: Real::NEG_INFINITY,
        normal: Vec3::ZERO,
    };
    // a's faces.
    for i in 0..3 {
        let radius = get(ha, i) + hb.x * ar(i, 0) + hb.y * ar(i, 1) + hb.z * ar(i, 2);
        let ti = get(t, i);
        let gap = ti.abs() - radius;
        best.max_gap = best.max_gap.max(gap);
        if gap > best.gap {
            let sign = if ti < 0.0 { -1.0 } else { 1.0 };
            best.gap = gap;
            best.normal = unit(i) * sign;
        }
        if stop && gap > 0.0 {
            return best;
        }
    }
    let tol = 1e-5 * (1.0 + best.gap.abs());
    let face_a = best.gap;
    // b's faces.
    for (j, &col) in cols.iter().enumerate() {
        let radius = get(hb, j) + ha.x * ar(0, j) + ha.y * ar(1, j) + ha.z * ar(2, j);
        let tj = t.dot(col);
        let gap = tj.abs() - radius;
        best.max_gap = best.max_gap.max(gap);
        if gap > best.gap && gap > face_a + tol {
            let sign = if tj < 0.0 { -1.0 } else { 1.0 };
            best.gap = gap;
            best.normal = col * sign;
        }
        if stop && gap > 0.0 {
            return best;
        }
    }
    let face_best = best.gap;
    // Edge pairs: axis = a_i × b_j.
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for (j, &col) in cols.iter().enumerate() {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let axis = unit(i).cross(col);
            let len = axis.length();
            if len <= PARALLEL {
                continue;
            }
            let ra = get(ha, i1) * ar(i2, j) + get(ha, i2) * ar(i1, j);
            let rb = get(hb, j1) * ar(i, j2) + get(hb, j2) * ar(i, j1);
            let tl = t.dot(axis);
            let gap = (tl.abs() - (ra + rb)) / len;
            best.max_gap = best.max_gap.max(gap);
            if gap > best.gap && gap > face_best + tol {
                let sign = if tl < 0.0 { -1.0 } else { 1.0 };
                best.gap = gap;
                best.normal = axis * (sign / len);
            }
            if stop && gap > 0.0 {
                return best;
            }
        }
    }
    best
}
