//! Separating axes between two convex cores, as the seed describes them:
//! every edge normal of both shapes is a candidate, and the search stops at
//! the first axis that separates.
//!
//! Small shapes use the seed's double loop. For large polygons the deepest
//! point of the other shape along each edge normal is found by walking: the
//! normals of a convex polygon turn steadily around the circle, so the
//! deepest point only ever moves forward, and one lap of both polygons
//! (O(n + m)) finds every separation the double loop (O(n·m)) would.

use crate::math::{Real, Vec2};
use crate::narrow::shape::Core;
use crate::transform::Transform;

/// Above this many point pairs the walk beats the double loop.
const WALK_ABOVE: usize = 96;

/// The largest separation along one shape's edge normals.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FaceSeparation {
    /// Signed distance between the cores along the normal (> 0: apart).
    pub(crate) separation: Real,
    /// Which edge of the reference shape.
    pub(crate) edge: usize,
    /// The incident shape's deepest point along the normal.
    pub(crate) support: usize,
}

/// Over every edge normal `n` of `reference`, the separation
/// `min over incident points q of n·(q − p_edge)`, where `incident` is placed
/// in `reference`'s frame by `xf`. Stops early once a separation exceeds
/// `stop_above`. `reference` must have at least one edge.
pub(crate) fn max_separation(
    reference: &Core<'_>,
    incident: &Core<'_>,
    xf: &Transform,
    stop_above: Real,
) -> FaceSeparation {
    let n = reference.normals.len();
    let m = incident.points.len();
    if n * m > WALK_ABOVE && n >= 3 && incident.normals.len() >= 3 {
        walk(reference, incident, xf, stop_above)
    } else {
        double_loop(reference, incident, xf, stop_above)
    }
}

fn double_loop(
    reference: &Core<'_>,
    incident: &Core<'_>,
    xf: &Transform,
    stop_above: Real,
) -> FaceSeparation {
    let mut best = FaceSeparation {
        separation: Real::NEG_INFINITY,
        edge: 0,
        support: 0,
    };
    for (i, (&normal, &point)) in reference.normals.iter().zip(reference.points).enumerate() {
        // n·(R q + t − p) = (Rᵀ n)·q + n·(t − p): rotate the normal, not the points.
        let local = xf.rotation.apply_inverse(normal);
        let offset = normal.dot(xf.translation - point);
        let mut deepest = Real::INFINITY;
        let mut support = 0;
        for (j, q) in incident.points.iter().enumerate() {
            let d = local.dot(*q);
            if d < deepest {
                deepest = d;
                support = j;
            }
        }
        let separation = deepest + offset;
        if separation > best.separation {
            best = FaceSeparation {
                separation,
                edge: i,
                support,
            };
            if separation > stop_above {
                break;
            }
        }
    }
    best
}

fn walk(
    reference: &Core<'_>,
    incident: &Core<'_>,
    xf: &Transform,
    stop_above: Real,
) -> FaceSeparation {
    let m = incident.points.len();
    let q = incident.points;
    let mut best = FaceSeparation {
        separation: Real::NEG_INFINITY,
        edge: 0,
        support: 0,
    };
    let mut j = usize::MAX;
    // Every step forward is a step around the incident polygon; two laps is
    // more than a correct walk can take, so rounding can never make it spin.
    let mut steps_left = 2 * m + 2;
    for (i, (&normal, &point)) in reference.normals.iter().zip(reference.points).enumerate() {
        let local = xf.rotation.apply_inverse(normal);
        let offset = normal.dot(xf.translation - point);
        if j == usize::MAX {
            j = incident.support(-local);
        } else {
            let mut here = local.dot(q[j]);
            while steps_left > 0 {
                let k = if j + 1 == m { 0 } else { j + 1 };
                let there = local.dot(q[k]);
                if there > here {
                    break;
                }
                j = k;
                here = there;
                steps_left -= 1;
            }
        }
        let separation = local.dot(q[j]) + offset;
        if separation > best.separation {
            best = FaceSeparation {
                separation,
                edge: i,
                support: j,
            };
            if separation > stop_above {
                break;
            }
        }
    }
    best
}

/// The edge of `incident` whose normal points most against the reference
/// normal, given here in `incident`'s own frame (`normal_in_incident`). Only the two edges around the
/// deepest point `support` can be it, so this is O(1).
pub(crate) fn incident_edge(
    incident: &Core<'_>,
    support: usize,
    normal_in_incident: Vec2,
) -> usize {
    let m = incident.normals.len();
    if m <= 2 {
        // A segment: pick the side facing the reference normal.
        return if m == 2
            && incident.normals[1].dot(normal_in_incident)
                < incident.normals[0].dot(normal_in_incident)
        {
            1
        } else {
            0
        };
    }
    let before = if support == 0 { m - 1 } else { support - 1 };
    if incident.normals[before].dot(normal_in_incident)
        < incident.normals[support].dot(normal_in_incident)
    {
        before
    } else {
        support
    }
}
