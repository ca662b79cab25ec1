//! Triangles on the pixel grid: a simple polygon (concave too) cut into
//! triangles, and the pixels a set of triangles covers by the rule GPUs
//! rasterise with, so a mesh drawn by `collide-gpu` and its CPU mask agree.
//!
//! ```
//! use collide::{Vec2, raster};
//! // An L: concave, six corners, four triangles.
//! let l = [(0.0, 0.0), (6.0, 0.0), (6.0, 2.0), (2.0, 2.0), (2.0, 6.0), (0.0, 6.0)]
//!     .map(|(x, y)| Vec2::new(x, y));
//! let triangles = raster::triangulate(&l)?;
//! assert_eq!(triangles.len(), 4);
//! let mask = raster::rasterize(8, 8, triangles.iter().map(|t| t.map(|p| [f64::from(p.x), f64::from(p.y)])))?;
//! assert_eq!(mask.count(), 6 * 2 + 2 * 4); // the L's area, one pixel per unit
//! # Ok::<(), collide::CollideError>(())
//! ```

use crate::error::{CollideError, try_reserve_exact};
use crate::mask::Mask;
use crate::math::Vec2;
use crate::narrow::polygon;

/// The triangles of a simple polygon given in either winding (concave
/// allowed; up to 4,096 corners): ear clipping after welding near-duplicate
/// and dropping collinear corners. Each triangle turns counter-clockwise
/// (in y-up terms).
///
/// # Errors
/// As `Shape::polygon`: too few distinct corners, a non-finite corner,
/// too many corners, or two crossing edges.
pub fn triangulate(points: &[Vec2]) -> Result<Vec<[Vec2; 3]>, CollideError> {
    let outline = polygon::clean(points, polygon::MAX_CONCAVE_POINTS)?;
    polygon::check_simple(&outline)?;
    let indices = polygon::ear_clip(&outline.points)?;
    let mut out = Vec::new();
    try_reserve_exact(&mut out, indices.len(), "triangles")?;
    out.extend(indices.iter().map(|t| t.map(|i| outline.points[i])));
    Ok(out)
}

/// The pixels of a `width × height` grid whose centres `(x + 0.5, y +
/// 0.5)` lie inside any of `triangles` (pixel coordinates, y down). A
/// centre exactly on an edge is inside when the edge is a top or a left
/// edge of its triangle (Direct3D's and Vulkan's top-left rule), so two
/// triangles sharing an edge never both take, nor both miss, a centre on
/// it. Triangles of either winding; degenerate ones cover nothing.
///
/// # Errors
/// [`CollideError::MaskTooLarge`] for a grid over [`Mask::MAX_SIDE`], or
/// [`CollideError::OutOfMemory`].
pub fn rasterize(
    width: usize,
    height: usize,
    triangles: impl IntoIterator<Item = [[f64; 2]; 3]>,
) -> Result<Mask, CollideError> {
    // Checks the size before the buffer below is taken.
    let _ = Mask::new(width, height)?;
    let mut covered: Vec<bool> = Vec::new();
    try_reserve_exact(&mut covered, width * height, "raster coverage")?;
    covered.resize(width * height, false);
    for t in triangles {
        cover(
            &mut covered,
            width,
            height,
            t.map(|p| [p[0], p[1], 0.0]),
            [0.0, 0.0],
        );
    }
    Mask::from_fn(width, height, |x, y| covered[y * width + x])
}

/// [`rasterize`] for triangles with a depth at each corner (`[x, y,
/// depth]`): a centre is covered only where the depth interpolated there
/// (linearly on the screen, as projected depth is) lies in `keep` (both
/// ends included). The CPU twin of `collide-gpu`'s depth slabs.
///
/// # Errors
/// As [`rasterize`].
pub fn rasterize_depth(
    width: usize,
    height: usize,
    triangles: impl IntoIterator<Item = [[f64; 3]; 3]>,
    keep: [f64; 2],
) -> Result<Mask, CollideError> {
    let _ = Mask::new(width, height)?;
    let mut covered: Vec<bool> = Vec::new();
    try_reserve_exact(&mut covered, width * height, "raster coverage")?;
    covered.resize(width * height, false);
    for t in triangles {
        cover(&mut covered, width, height, t, keep);
    }
    Mask::from_fn(width, height, |x, y| covered[y * width + x])
}

/// Marks the centres one triangle covers (with a depth in `keep`, unless
/// `keep` is `[0, 0]` and every depth is 0: plain coverage).
fn cover(covered: &mut [bool], width: usize, height: usize, t: [[f64; 3]; 3], keep: [f64; 2]) {
    if t.iter().flatten().any(|v| !v.is_finite()) {
        return;
    }
    let depths = t.map(|p| p[2]);
    let plain = keep == [0.0, 0.0] && depths == [0.0; 3];
    let [a, b, c] = t.map(|p| [p[0], p[1]]);
    let area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    if area == 0.0 {
        return;
    }
    // Oriented so that the inside is where every edge function is
    // positive (edge `p → q`: (q - p) × (centre - p) > 0).
    let ([a, b, c], [da, db, dc]) = if area > 0.0 {
        ([a, b, c], depths)
    } else {
        ([a, c, b], [depths[0], depths[2], depths[1]])
    };
    let area = area.abs();
    let edges = [(a, b), (b, c), (c, a)];
    // With y down and this orientation, a top edge runs in +x along a
    // constant y and a left edge runs in -y.
    let takes_ties = edges.map(|(p, q)| {
        let (dx, dy) = (q[0] - p[0], q[1] - p[1]);
        (dy == 0.0 && dx > 0.0) || dy < 0.0
    });
    let lo_x = a[0].min(b[0]).min(c[0]);
    let hi_x = a[0].max(b[0]).max(c[0]);
    let lo_y = a[1].min(b[1]).min(c[1]);
    let hi_y = a[1].max(b[1]).max(c[1]);
    let first = |lo: f64| (lo - 0.5).ceil().max(0.0) as usize;
    let last = |hi: f64, n: usize| ((hi - 0.5).floor().min(n as f64 - 1.0)).max(-1.0) as i64;
    let (x0, x1) = (first(lo_x), last(hi_x, width));
    let (y0, y1) = (first(lo_y), last(hi_y, height));
    for y in y0 as i64..=y1 {
        let py = y as f64 + 0.5;
        for x in x0 as i64..=x1 {
            let px = x as f64 + 0.5;
            let mut e = [0.0; 3];
            let inside = edges
                .iter()
                .zip(takes_ties)
                .enumerate()
                .all(|(k, (&(p, q), ties))| {
                    e[k] = (q[0] - p[0]) * (py - p[1]) - (q[1] - p[1]) * (px - p[0]);
                    e[k] > 0.0 || (e[k] == 0.0 && ties)
                });
            // Edge k's function weighs the corner opposite it.
            let kept = plain || {
                let z = (e[1] * da + e[2] * db + e[0] * dc) / area;
                z >= keep[0] && z <= keep[1]
            };
            if inside && kept {
                covered[y as usize * width + x as usize] = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Two triangles sharing a diagonal cover the square once: every
    /// centre, none twice (counted by rasterising each alone).
    #[test]
    fn a_shared_edge_is_taken_by_exactly_one_triangle() {
        let tri_a = [[0.0, 0.0], [4.0, 0.0], [4.0, 4.0]];
        let tri_b = [[0.0, 0.0], [4.0, 4.0], [0.0, 4.0]];
        let one = |t| rasterize(4, 4, [t]).map(|m| m.count()).unwrap_or(0);
        // The diagonal passes through the centres (0.5,0.5) … (3.5,3.5).
        assert_eq!(one(tri_a) + one(tri_b), 16);
        let both = rasterize(4, 4, [tri_a, tri_b])
            .map(|m| m.count())
            .unwrap_or(0);
        assert_eq!(both, 16);
    }

    /// Depth across a square from 0 (left) to 1 (right): keeping depths up
    /// to 0.5 keeps the left half's centres, columns 0 to 4 of 10.
    #[test]
    fn depth_keeps_what_lies_in_its_range() {
        let (p, q, r, s) = (
            [0.0, 0.0, 0.0],
            [10.0, 0.0, 1.0],
            [10.0, 6.0, 1.0],
            [0.0, 6.0, 0.0],
        );
        let m =
            rasterize_depth(10, 6, [[p, q, r], [p, r, s]], [0.0, 0.5]).map_err(|e| e.to_string());
        let m = m.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.count(), 5 * 6);
        assert!(m.get(4, 3) && !m.get(5, 3));
    }

    proptest! {
        /// A rectangle with integer corners covers exactly its area, in
        /// any cut into two triangles and either winding.
        #[test]
        fn rectangles_cover_their_area(x in 0i32..20, y in 0i32..20, w in 1i32..20, h in 1i32..20, flip: bool, other_diagonal: bool) {
            let (x0, y0, x1, y1) = (f64::from(x), f64::from(y), f64::from(x + w), f64::from(y + h));
            let (p, q, r, s) = ([x0, y0], [x1, y0], [x1, y1], [x0, y1]);
            let mut tris = if other_diagonal { vec![[p, q, s], [q, r, s]] } else { vec![[p, q, r], [p, r, s]] };
            if flip {
                for t in &mut tris {
                    t.swap(1, 2);
                }
            }
            let m = rasterize(48, 48, tris).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(m.count(), (w * h) as u64);
        }

        /// A triangulated polygon covers what a point-in-polygon test of
        /// each pixel centre says (centres off the outline).
        #[test]
        fn a_triangulated_star_covers_its_inside(points in 5usize..12, inner in 0.2f64..0.9, turn in 0.0f64..6.3) {
            let outline: Vec<Vec2> = (0..2 * points)
                .map(|k| {
                    let a = turn + k as f64 * std::f64::consts::PI / points as f64;
                    let r = if k % 2 == 0 { 20.0 } else { 20.0 * inner };
                    Vec2::new((24.0 + r * a.cos()) as f32, (24.0 + r * a.sin()) as f32)
                })
                .collect();
            let tris = triangulate(&outline).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let m = rasterize(48, 48, tris.iter().map(|t| t.map(|p| [f64::from(p.x), f64::from(p.y)])))
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let poly: Vec<[f64; 2]> = outline.iter().map(|p| [f64::from(p.x), f64::from(p.y)]).collect();
            for y in 0..48 {
                for x in 0..48 {
                    let c = [x as f64 + 0.5, y as f64 + 0.5];
                    let (inside, near) = point_in_polygon(&poly, c);
                    if !near {
                        prop_assert_eq!(m.get(x, y), inside, "pixel {} {}", x, y);
                    }
                }
            }
        }
    }

    /// Even-odd crossing test, and whether the point is within 1e-6 of an
    /// edge (where either answer is right).
    fn point_in_polygon(poly: &[[f64; 2]], p: [f64; 2]) -> (bool, bool) {
        let n = poly.len();
        let mut inside = false;
        let mut near = false;
        for i in 0..n {
            let (a, b) = (poly[i], poly[(i + 1) % n]);
            let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
            let len2 = dx * dx + dy * dy;
            let t = (((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2).clamp(0.0, 1.0);
            let (qx, qy) = (a[0] + t * dx - p[0], a[1] + t * dy - p[1]);
            near |= qx * qx + qy * qy < 1e-6;
            if (a[1] > p[1]) != (b[1] > p[1]) && p[0] < a[0] + (p[1] - a[1]) / dy * dx {
                inside = !inside;
            }
        }
        (inside, near)
    }
}
