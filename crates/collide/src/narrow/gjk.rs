//! Distance between two convex cores by Gilbert–Johnson–Keerthi: walk a
//! simplex of the Minkowski difference towards the origin. Each step costs
//! one support search per shape: a scan on small cores, a climb from every
//! √n-th corner on large polygons (O(√n + √m) per step)
//! and a handful of steps in all.

use crate::math::{Real, Vec2};
use crate::narrow::shape::Core;
use crate::transform::Transform;

/// The closest points of two cores (in the first core's frame).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CoreDistance {
    /// Distance between the cores; 0 when they overlap.
    pub(crate) distance: Real,
    /// Closest point on the first core.
    pub(crate) on_a: Vec2,
    /// Closest point on the second core.
    pub(crate) on_b: Vec2,
}

#[derive(Clone, Copy, Debug, Default)]
struct Vertex {
    a: Vec2,
    b: Vec2,
    /// `b − a`: a point of the Minkowski difference B − A.
    w: Vec2,
    ia: usize,
    ib: usize,
    /// Barycentric weight in the current closest point.
    weight: Real,
}

const MAX_ITERATIONS: usize = 48;

/// Distance between core `a` (in its own frame) and core `b` placed in `a`'s
/// frame by `xf`. Radii are ignored.
pub(crate) fn distance(a: &Core<'_>, b: &Core<'_>, xf: &Transform) -> CoreDistance {
    let place = |ib: usize| xf.apply(b.points[ib]);
    let vertex = |ia: usize, ib: usize| {
        let (pa, pb) = (a.points[ia], place(ib));
        Vertex {
            a: pa,
            b: pb,
            w: pb - pa,
            ia,
            ib,
            weight: 1.0,
        }
    };
    let mut simplex = [vertex(0, 0); 3];
    let mut count = 1;
    // The best solved simplex so far: what the answer is read from, so
    // that running out of iterations or rounding can never make it worse.
    let mut best = (simplex, count, Real::INFINITY);
    for _ in 0..MAX_ITERATIONS {
        // Reduce the simplex to the smallest face holding the closest point.
        let inside = match count {
            2 => {
                solve2(&mut simplex, &mut count);
                false
            }
            3 => solve3(&mut simplex, &mut count),
            _ => false,
        };
        if inside {
            return overlap(&simplex);
        }
        let closest = closest_point(&simplex[..count]);
        let dist2 = closest.length_squared();
        if dist2 >= best.2 {
            // No closer than before: converged, up to rounding.
            break;
        }
        best = (simplex, count, dist2);
        let scale = simplex[..count]
            .iter()
            .map(|v| v.w.length_squared())
            .fold(0.0, Real::max);
        if dist2 <= scale * (Real::EPSILON * Real::EPSILON) {
            return overlap(&simplex[..count]);
        }
        // Search along −closest: the support of B − A there.
        let dir = -closest;
        let ia = a.support(-dir);
        let ib = b.support(xf.rotation.apply_inverse(dir));
        if simplex[..count].iter().any(|v| v.ia == ia && v.ib == ib) {
            break;
        }
        let v = vertex(ia, ib);
        // The new point brings the bound on the distance within a few
        // parts per million of the current one: converged.
        if closest.dot(closest - v.w) <= dist2 * 1e-5 {
            break;
        }
        simplex[count] = v;
        count += 1;
    }
    let (simplex, count, _) = best;
    let s = &simplex[..count];
    let total: Real = s.iter().map(|v| v.weight).sum();
    let inv = if total > 0.0 { 1.0 / total } else { 1.0 };
    let mut on_a = Vec2::ZERO;
    let mut on_b = Vec2::ZERO;
    for v in s {
        on_a += v.a * (v.weight * inv);
        on_b += v.b * (v.weight * inv);
    }
    CoreDistance {
        distance: (on_b - on_a).length(),
        on_a,
        on_b,
    }
}

fn overlap(simplex: &[Vertex]) -> CoreDistance {
    let p = simplex.first().map_or(Vec2::ZERO, |v| v.a);
    CoreDistance {
        distance: 0.0,
        on_a: p,
        on_b: p,
    }
}

fn closest_point(s: &[Vertex]) -> Vec2 {
    let total: Real = s.iter().map(|v| v.weight).sum();
    let mut p = Vec2::ZERO;
    for v in s {
        p += v.w * v.weight;
    }
    if total > 0.0 { p * (1.0 / total) } else { p }
}

/// Closest point of the segment `w1 w2` to the origin.
fn solve2(s: &mut [Vertex; 3], count: &mut usize) {
    let (w1, w2) = (s[0].w, s[1].w);
    let e = w2 - w1;
    let d2 = -w1.dot(e); // weight of w2
    if d2 <= 0.0 {
        s[0].weight = 1.0;
        *count = 1;
        return;
    }
    let d1 = w2.dot(e); // weight of w1
    if d1 <= 0.0 {
        s[0] = s[1];
        s[0].weight = 1.0;
        *count = 1;
        return;
    }
    s[0].weight = d1;
    s[1].weight = d2;
    *count = 2;
}

/// Closest feature of the triangle to the origin. Returns true when the
/// origin is inside the triangle.
fn solve3(s: &mut [Vertex; 3], count: &mut usize) -> bool {
    let (w1, w2, w3) = (s[0].w, s[1].w, s[2].w);
    let e12 = w2 - w1;
    let (d12_1, d12_2) = (w2.dot(e12), -w1.dot(e12));
    let e13 = w3 - w1;
    let (d13_1, d13_2) = (w3.dot(e13), -w1.dot(e13));
    let e23 = w3 - w2;
    let (d23_1, d23_2) = (w3.dot(e23), -w2.dot(e23));
    let n123 = e12.cross(e13);
    let d123_1 = n123 * w2.cross(w3);
    let d123_2 = n123 * w3.cross(w1);
    let d123_3 = n123 * w1.cross(w2);

    if d12_2 <= 0.0 && d13_2 <= 0.0 {
        s[0].weight = 1.0;
        *count = 1;
        return false;
    }
    if d12_1 > 0.0 && d12_2 > 0.0 && d123_3 <= 0.0 {
        s[0].weight = d12_1;
        s[1].weight = d12_2;
        *count = 2;
        return false;
    }
    if d13_1 > 0.0 && d13_2 > 0.0 && d123_2 <= 0.0 {
        s[0].weight = d13_1;
        s[1] = s[2];
        s[1].weight = d13_2;
        *count = 2;
        return false;
    }
    if d12_1 <= 0.0 && d23_2 <= 0.0 {
        s[0] = s[1];
        s[0].weight = 1.0;
        *count = 1;
        return false;
    }
    if d13_1 <= 0.0 && d23_1 <= 0.0 {
        s[0] = s[2];
        s[0].weight = 1.0;
        *count = 1;
        return false;
    }
    if d23_1 > 0.0 && d23_2 > 0.0 && d123_1 <= 0.0 {
        s[0] = s[2];
        s[0].weight = d23_2;
        s[1].weight = d23_1;
        *count = 2;
        return false;
    }
    s[0].weight = d123_1;
    s[1].weight = d123_2;
    s[2].weight = d123_3;
    *count = 3;
    true
}
