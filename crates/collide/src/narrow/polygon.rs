//! Polygon input hygiene: welding, collinear points, winding, convexity,
//! self-intersection, hulls, and the decomposition of concave polygons.
//!
//! Orientation tests run in `f64`: the difference of two `f32`s and the
//! product of two such differences are exact there, so "which side" answers
//! are exact for every input the constructors accept.

use std::collections::HashMap;

use crate::error::{CollideError, try_reserve_exact};
use crate::math::{Real, Vec2};

/// The most points [`crate::Shape::polygon`] takes: decomposition costs
/// O(n²) in the worst case.
pub(crate) const MAX_CONCAVE_POINTS: usize = 4096;

/// A cleaned outline: counter-clockwise, no near-duplicate or collinear
/// points, at least three points; `index[i]` is the input index of `points[i]`.
#[derive(Debug)]
pub(crate) struct Outline {
    pub(crate) points: Vec<Vec2>,
    pub(crate) index: Vec<usize>,
}

/// Twice the signed area of the triangle `a b c`, in `f64`: positive when
/// `a → b → c` turns left.
#[inline]
pub(crate) fn orient(a: Vec2, b: Vec2, c: Vec2) -> f64 {
    let (abx, aby) = (
        f64::from(b.x) - f64::from(a.x),
        f64::from(b.y) - f64::from(a.y),
    );
    let (acx, acy) = (
        f64::from(c.x) - f64::from(a.x),
        f64::from(c.y) - f64::from(a.y),
    );
    abx * acy - aby * acx
}

/// Welds, drops collinear points and fixes the winding of `input`.
pub(crate) fn clean(input: &[Vec2], limit: usize) -> Result<Outline, CollideError> {
    if input.len() > limit {
        return Err(CollideError::TooManyPoints {
            given: input.len(),
            limit,
        });
    }
    let mut lo = Vec2::new(Real::INFINITY, Real::INFINITY);
    let mut hi = -lo;
    for (index, &p) in input.iter().enumerate() {
        if !p.is_finite() {
            return Err(CollideError::NonFinitePoint {
                index,
                point: p.into(),
            });
        }
        lo = lo.min(p);
        hi = hi.max(p);
    }
    let too_few = |distinct| CollideError::TooFewPoints {
        given: input.len(),
        distinct,
    };
    if input.len() < 3 {
        return Err(too_few(input.len()));
    }
    let extent = f64::from(hi.x) - f64::from(lo.x) + (f64::from(hi.y) - f64::from(lo.y));
    // Points closer than this are one point; a point this close to the line
    // through its neighbours is on it.
    let tol = extent * (1.0 / 131_072.0);
    let close = |a: Vec2, b: Vec2| {
        let (dx, dy) = (
            f64::from(a.x) - f64::from(b.x),
            f64::from(a.y) - f64::from(b.y),
        );
        dx.abs() + dy.abs() <= tol
    };

    let mut points: Vec<Vec2> = Vec::new();
    let mut index: Vec<usize> = Vec::new();
    try_reserve_exact(&mut points, input.len(), "polygon points")?;
    try_reserve_exact(&mut index, input.len(), "polygon points")?;
    // Is `b` on the line from `a` to `c` (or a spike back along it)?
    let collinear = |a: Vec2, b: Vec2, c: Vec2| {
        let (acx, acy) = (
            f64::from(c.x) - f64::from(a.x),
            f64::from(c.y) - f64::from(a.y),
        );
        let len = acx.hypot(acy);
        orient(a, b, c).abs() <= tol * len.max(tol)
    };
    for (i, &p) in input.iter().enumerate() {
        if points.last().is_some_and(|&q| close(p, q)) {
            continue;
        }
        while points.len() >= 2 {
            let n = points.len();
            if collinear(points[n - 2], points[n - 1], p) {
                points.pop();
                index.pop();
            } else {
                break;
            }
        }
        points.push(p);
        index.push(i);
    }
    // Close the loop: weld the last point onto the first, then drop collinear
    // points across the seam until none is left.
    while points.len() >= 2 && close(points[points.len() - 1], points[0]) {
        points.pop();
        index.pop();
    }
    let mut changed = true;
    while changed && points.len() >= 3 {
        changed = false;
        let n = points.len();
        if collinear(points[n - 2], points[n - 1], points[0]) {
            points.pop();
            index.pop();
            changed = true;
        } else if collinear(points[n - 1], points[0], points[1]) {
            points.remove(0);
            index.remove(0);
            changed = true;
        }
    }
    if points.len() < 3 {
        return Err(too_few(points.len()));
    }
    let area2: f64 = (0..points.len())
        .map(|i| orient(points[0], points[i], points[(i + 1) % points.len()]))
        .sum();
    if area2.abs() <= tol * extent {
        // No area: a flat outline, or one whose loops cancel (a bow tie).
        let outline = Outline { points, index };
        check_simple(&outline)?;
        return Err(too_few(outline.points.len()));
    }
    if area2 < 0.0 {
        points.reverse();
        index.reverse();
    }
    Ok(Outline { points, index })
}

/// Checks that a cleaned outline turns left at every corner and winds once.
pub(crate) fn check_convex(outline: &Outline) -> Result<(), CollideError> {
    let p = &outline.points;
    let n = p.len();
    let mut turning = 0.0f64;
    for i in 0..n {
        let (a, b, c) = (p[(i + n - 1) % n], p[i], p[(i + 1) % n]);
        if orient(a, b, c) <= 0.0 {
            return Err(CollideError::NotConvex {
                vertex: outline.index[i],
            });
        }
        let (e1, e2) = (b - a, c - b);
        turning += f64::from(e1.cross(e2)).atan2(f64::from(e1.dot(e2)));
    }
    // Left turns all round that add up to 4π or more: a star that winds twice.
    if turning > 3.0 * std::f64::consts::PI {
        check_simple(outline)?;
        return Err(CollideError::SelfIntersecting {
            edge_a: outline.index[0],
            edge_b: outline.index[n / 2],
        });
    }
    Ok(())
}

/// Do the closed segments `a b` and `c d` share a point?
fn segments_meet(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> bool {
    let (o1, o2) = (orient(a, b, c), orient(a, b, d));
    let (o3, o4) = (orient(c, d, a), orient(c, d, b));
    if ((o1 > 0.0 && o2 < 0.0) || (o1 < 0.0 && o2 > 0.0))
        && ((o3 > 0.0 && o4 < 0.0) || (o3 < 0.0 && o4 > 0.0))
    {
        return true;
    }
    let within = |p: Vec2, q: Vec2, r: Vec2| {
        r.x >= p.x.min(q.x) && r.x <= p.x.max(q.x) && r.y >= p.y.min(q.y) && r.y <= p.y.max(q.y)
    };
    (o1 == 0.0 && within(a, b, c))
        || (o2 == 0.0 && within(a, b, d))
        || (o3 == 0.0 && within(c, d, a))
        || (o4 == 0.0 && within(c, d, b))
}

/// Checks that no two edges of the outline meet except neighbours at their
/// shared corner. Sweeps edges in order of their left end, so typical input
/// costs O(n log n); the worst case is O(n²).
pub(crate) fn check_simple(outline: &Outline) -> Result<(), CollideError> {
    let p = &outline.points;
    let n = p.len();
    let mut order: Vec<usize> = Vec::new();
    try_reserve_exact(&mut order, n, "polygon edge order")?;
    order.extend(0..n);
    let edge = |i: usize| (p[i], p[(i + 1) % n]);
    order.sort_by(|&i, &j| {
        let (a, b) = edge(i);
        let (c, d) = edge(j);
        a.x.min(b.x).total_cmp(&c.x.min(d.x))
    });
    let mut active: Vec<usize> = Vec::new();
    for &i in &order {
        let (a, b) = edge(i);
        let left = a.x.min(b.x);
        active.retain(|&j| {
            let (c, d) = edge(j);
            c.x.max(d.x) >= left
        });
        for &j in &active {
            let adjacent = (i + 1) % n == j || (j + 1) % n == i;
            let (c, d) = edge(j);
            let meet = if adjacent {
                // Neighbours share one corner; they meet elsewhere only by
                // folding back over each other, which cleaning has removed
                // unless the polygon has exactly three corners.
                false
            } else {
                segments_meet(a, b, c, d)
            };
            if meet {
                let (x, y) = (outline.index[i.min(j)], outline.index[i.max(j)]);
                return Err(CollideError::SelfIntersecting {
                    edge_a: x,
                    edge_b: y,
                });
            }
        }
        active.push(i);
    }
    Ok(())
}

/// The convex hull of `input`, counter-clockwise, by Andrew's monotone chain.
pub(crate) fn convex_hull(input: &[Vec2], limit: usize) -> Result<Vec<Vec2>, CollideError> {
    if input.len() > limit {
        return Err(CollideError::TooManyPoints {
            given: input.len(),
            limit,
        });
    }
    for (index, &p) in input.iter().enumerate() {
        if !p.is_finite() {
            return Err(CollideError::NonFinitePoint {
                index,
                point: p.into(),
            });
        }
    }
    let mut pts: Vec<Vec2> = Vec::new();
    try_reserve_exact(&mut pts, input.len(), "hull points")?;
    pts.extend_from_slice(input);
    pts.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    pts.dedup();
    if pts.len() < 3 {
        return Err(CollideError::TooFewPoints {
            given: input.len(),
            distinct: pts.len(),
        });
    }
    let mut hull: Vec<Vec2> = Vec::new();
    try_reserve_exact(&mut hull, 2 * pts.len(), "hull points")?;
    // Lower hull left to right, then upper hull right to left.
    fn chain(hull: &mut Vec<Vec2>, p: Vec2, start: usize) {
        while hull.len() >= start + 2
            && orient(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0
        {
            hull.pop();
        }
        hull.push(p);
    }
    for &p in &pts {
        chain(&mut hull, p, 0);
    }
    hull.pop();
    let start = hull.len();
    for &p in pts.iter().rev() {
        chain(&mut hull, p, start);
    }
    hull.pop();
    Ok(hull)
}

/// Splits a simple counter-clockwise polygon into convex pieces: ear
/// clipping into triangles, then Hertel–Mehlhorn: remove each diagonal
/// whose removal leaves both of its ends convex.
pub(crate) fn decompose(points: &[Vec2]) -> Result<Vec<Vec<Vec2>>, CollideError> {
    let n = points.len();
    let triangles = ear_clip(points)?;
    // Pieces as index lists; `owner` maps a triangle to the piece it joined.
    let mut pieces: Vec<Option<Vec<usize>>> = triangles.iter().map(|t| Some(t.to_vec())).collect();
    let mut owner: Vec<usize> = (0..triangles.len()).collect();
    fn find(owner: &mut [usize], mut t: usize) -> usize {
        while owner[t] != t {
            owner[t] = owner[owner[t]];
            t = owner[t];
        }
        t
    }
    let mut diagonals: HashMap<(usize, usize), Vec<usize>> = HashMap::new();
    for (t, tri) in triangles.iter().enumerate() {
        for k in 0..3 {
            let (u, v) = (tri[k], tri[(k + 1) % 3]);
            let boundary = (u + 1) % n == v || (v + 1) % n == u;
            if !boundary {
                diagonals.entry((u.min(v), u.max(v))).or_default().push(t);
            }
        }
    }
    let mut keys: Vec<(usize, usize)> = diagonals.keys().copied().collect();
    keys.sort_unstable();
    for key in keys {
        let Some(ts) = diagonals.get(&key) else {
            continue;
        };
        let [t1, t2] = ts.as_slice() else { continue };
        let (r1, r2) = (find(&mut owner, *t1), find(&mut owner, *t2));
        if r1 == r2 {
            continue;
        }
        let (Some(a), Some(b)) = (pieces[r1].as_ref(), pieces[r2].as_ref()) else {
            continue;
        };
        if let Some(merged) = merge_across(a, b, key, points) {
            pieces[r1] = Some(merged);
            pieces[r2] = None;
            owner[r2] = r1;
        }
    }
    let mut out = Vec::new();
    for piece in pieces.into_iter().flatten() {
        out.push(piece.into_iter().map(|i| points[i]).collect());
    }
    Ok(out)
}

/// `a` and `b` joined across their shared edge `{x, y}`, if the result is
/// convex at both ends of that edge.
fn merge_across(
    a: &[usize],
    b: &[usize],
    (x, y): (usize, usize),
    pts: &[Vec2],
) -> Option<Vec<usize>> {
    // In `a` the diagonal runs u → v; rotate `a` to [v, …, u] and `b` to [u, …, v].
    let ia = a.iter().position(|&i| i == x)?;
    let (u, v) = if a[(ia + 1) % a.len()] == y {
        (x, y)
    } else {
        (y, x)
    };
    let iv = a.iter().position(|&i| i == v)?;
    let ju = b.iter().position(|&i| i == u)?;
    let mut merged: Vec<usize> = (0..a.len()).map(|k| a[(iv + k) % a.len()]).collect();
    // `merged` ends with u; append b's corners strictly between u and v.
    merged.extend((1..b.len() - 1).map(|k| b[(ju + k) % b.len()]));
    let m = merged.len();
    let convex_at = |k: usize| {
        orient(
            pts[merged[(k + m - 1) % m]],
            pts[merged[k]],
            pts[merged[(k + 1) % m]],
        ) > 0.0
    };
    let iu = a.len() - 1;
    (convex_at(0) && convex_at(iu)).then_some(merged)
}

/// Ear clipping: O(n²) for typical input. Returns counter-clockwise index triangles.
pub(crate) fn ear_clip(points: &[Vec2]) -> Result<Vec<[usize; 3]>, CollideError> {
    let n = points.len();
    let mut prev: Vec<usize> = (0..n).map(|i| (i + n - 1) % n).collect();
    let mut next: Vec<usize> = (0..n).map(|i| (i + 1) % n).collect();
    let mut tris = Vec::new();
    try_reserve_exact(&mut tris, n.saturating_sub(2), "triangles")?;
    let mut remaining = n;
    let mut i = 0;
    let mut since_last_ear = 0;
    while remaining > 3 {
        let (a, c) = (prev[i], next[i]);
        let (pa, pb, pc) = (points[a], points[i], points[c]);
        let convex = orient(pa, pb, pc) > 0.0;
        let mut ear = convex;
        if ear {
            let mut j = next[c];
            while j != a {
                let q = points[j];
                // A corner inside or on the triangle blocks the ear (only reflex corners can).
                if orient(pa, pb, q) >= 0.0 && orient(pb, pc, q) >= 0.0 && orient(pc, pa, q) >= 0.0
                {
                    ear = false;
                    break;
                }
                j = next[j];
            }
        }
        // After a full lap with no ear (only possible through rounding on
        // nearly degenerate input), clip a convex corner anyway rather than
        // loop forever.
        if ear || (convex && since_last_ear > remaining) {
            tris.push([a, i, c]);
            next[a] = c;
            prev[c] = a;
            remaining -= 1;
            since_last_ear = 0;
            i = c;
        } else {
            since_last_ear += 1;
            if since_last_ear > 2 * remaining + 2 {
                return Err(CollideError::Degenerate {
                    what: "polygon could not be split into triangles (corners too close to straight)",
                });
            }
            i = next[i];
        }
    }
    tris.push([prev[i], i, next[i]]);
    Ok(tris)
}
