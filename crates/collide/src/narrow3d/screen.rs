//! Screen-space bounding rectangles of 3-D boxes and point clouds: the
//! seed's `gluProject`-the-eight-corners method, made safe for corners
//! behind the camera.
//!
//! A corner behind the eye projects through the centre of projection to
//! the wrong side of the screen, so taking the min/max of all eight
//! projected corners gives a wrong rectangle. Here the hull of the points
//! is clipped against the near plane first: every segment between a point
//! in front and a point behind is cut where it crosses the plane (for a
//! convex hull, those cuts and the points in front span exactly the clipped
//! hull), and only then projected.

use crate::aabb::Aabb;
use crate::error::CollideError;
use crate::math::{Real, Vec2};
use crate::narrow3d::math3::Vec3;

/// Which clip-space depth range the projection matrix maps to: it decides
/// where the near plane is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepthRange {
    /// OpenGL: `-w <= z <= w` (what `gluPerspective` builds).
    NegativeOneToOne,
    /// wgpu, Vulkan, Direct3D, Metal: `0 <= z <= w`.
    ZeroToOne,
}

/// The window rectangle that normalised device coordinates map to, as in
/// `glViewport`: `x`, `y` is the corner where NDC (-1, -1) lands (with
/// `y_down`, where (-1, +1) lands, for window systems whose y grows down).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    /// Left edge, in pixels.
    pub x: Real,
    /// Bottom edge (top with `y_down`), in pixels.
    pub y: Real,
    /// Width in pixels.
    pub width: Real,
    /// Height in pixels.
    pub height: Real,
    /// Window y grows downwards.
    pub y_down: bool,
}

/// A 4×4 matrix by columns (`m[column][row]`), as OpenGL, glam and wgpu
/// lay them out.
pub type Mat4 = [[Real; 4]; 4];

/// The product `a · b` of two column-major matrices: `b` applies first
/// (a projection times a view times a model, as [`screen_rect`] takes).
pub fn mat4_mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut out = [[0.0; 4]; 4];
    for (c, column) in out.iter_mut().enumerate() {
        for (r, cell) in column.iter_mut().enumerate() {
            *cell = (0..4).map(|k| a[k][r] * b[c][k]).sum();
        }
    }
    out
}

/// A right-handed perspective projection looking down -z (as
/// `gluPerspective`), with a vertical field of view `fov_y` (radians) and
/// `aspect` = width / height; `near` maps to the start of `depth`'s range
/// and `far` to 1.
pub fn perspective(fov_y: Real, aspect: Real, near: Real, far: Real, depth: DepthRange) -> Mat4 {
    let f = 1.0 / (fov_y / 2.0).tan();
    let (c, d) = match depth {
        DepthRange::NegativeOneToOne => {
            ((far + near) / (near - far), 2.0 * far * near / (near - far))
        }
        DepthRange::ZeroToOne => (far / (near - far), far * near / (near - far)),
    };
    [
        [f / aspect, 0.0, 0.0, 0.0],
        [0.0, f, 0.0, 0.0],
        [0.0, 0.0, c, -1.0],
        [0.0, 0.0, d, 0.0],
    ]
}

fn mul(m: &Mat4, p: Vec3) -> [f64; 4] {
    let mut out = [0.0f64; 4];
    for (row, o) in out.iter_mut().enumerate() {
        *o = f64::from(m[0][row]) * f64::from(p.x)
            + f64::from(m[1][row]) * f64::from(p.y)
            + f64::from(m[2][row]) * f64::from(p.z)
            + f64::from(m[3][row]);
    }
    out
}

/// The smallest window rectangle holding the projection of the convex hull
/// of `points`, clipped to the near plane; `None` when all of it is behind
/// the near plane. `view_projection` maps world points to clip space.
///
/// Every pair of a point in front and a point behind is cut, so a cloud of
/// `f` front and `b` back points costs O(f·b): meant for boxes and small
/// hulls, as the seed uses it.
///
/// # Errors
/// [`CollideError::NonFinitePoint`] for a NaN or infinite point (naming its
/// x and y), [`CollideError::NonFinite`] when the rectangle overflows `f32`.
pub fn screen_rect(
    points: &[Vec3],
    view_projection: &Mat4,
    viewport: &Viewport,
    depth: DepthRange,
) -> Result<Option<Aabb>, CollideError> {
    for (index, p) in points.iter().enumerate() {
        if !p.is_finite() {
            return Err(CollideError::NonFinitePoint {
                index,
                point: [p.x, p.y],
            });
        }
    }
    // Signed distance to the near plane in clip space (≥ 0: in front).
    let near = |c: &[f64; 4]| match depth {
        DepthRange::NegativeOneToOne => c[2] + c[3],
        DepthRange::ZeroToOne => c[2],
    };
    let mut lo = [f64::INFINITY; 2];
    let mut hi = [f64::NEG_INFINITY; 2];
    let mut any = false;
    let mut add = |c: [f64; 4]| {
        if c[3] <= 0.0 {
            return; // on the eye plane itself: only reachable with a zero near distance
        }
        let ndc = [c[0] / c[3], c[1] / c[3]];
        let x = f64::from(viewport.x) + (ndc[0] + 1.0) * 0.5 * f64::from(viewport.width);
        let t = if viewport.y_down {
            1.0 - ndc[1]
        } else {
            ndc[1] + 1.0
        };
        let y = f64::from(viewport.y) + t * 0.5 * f64::from(viewport.height);
        lo = [lo[0].min(x), lo[1].min(y)];
        hi = [hi[0].max(x), hi[1].max(y)];
        any = true;
    };
    let mut clip: Vec<[f64; 4]> = Vec::new();
    crate::error::try_reserve_exact(&mut clip, points.len(), "clip-space points")?;
    clip.extend(points.iter().map(|&p| mul(view_projection, p)));
    for ci in &clip {
        let si = near(ci);
        if si < 0.0 {
            continue;
        }
        add(*ci);
        for cj in &clip {
            let sj = near(cj);
            if sj < 0.0 {
                // Where the segment from the front point to the back one
                // crosses the near plane.
                let t = si / (si - sj);
                add([
                    ci[0] + (cj[0] - ci[0]) * t,
                    ci[1] + (cj[1] - ci[1]) * t,
                    ci[2] + (cj[2] - ci[2]) * t,
                    ci[3] + (cj[3] - ci[3]) * t,
                ]);
            }
        }
    }
    if !any {
        return Ok(None);
    }
    Aabb::new(
        Vec2::new(lo[0] as Real, lo[1] as Real),
        Vec2::new(hi[0] as Real, hi[1] as Real),
    )
    .map(Some)
}

/// [`screen_rect`] of the box from `min` to `max` (its eight corners).
///
/// # Errors
/// As [`screen_rect`].
pub fn screen_rect_of_box(
    min: Vec3,
    max: Vec3,
    view_projection: &Mat4,
    viewport: &Viewport,
    depth: DepthRange,
) -> Result<Option<Aabb>, CollideError> {
    let corners: [Vec3; 8] = std::array::from_fn(|k| {
        Vec3::new(
            if k & 1 == 0 { min.x } else { max.x },
            if k & 2 == 0 { min.y } else { max.y },
            if k & 4 == 0 { min.z } else { max.z },
        )
    });
    screen_rect(&corners, view_projection, viewport, depth)
}

/// The seed's method exactly: `gluProject` each point and take the
/// min/max, with no near-plane clipping. Correct only when every point is
/// in front of the camera; kept to compare against.
pub fn screen_rect_unclipped(
    points: &[Vec3],
    view_projection: &Mat4,
    viewport: &Viewport,
) -> Option<Aabb> {
    let mut lo = Vec2::new(Real::INFINITY, Real::INFINITY);
    let mut hi = -lo;
    for &p in points {
        let c = mul(view_projection, p);
        let (x, y) = (c[0] / c[3], c[1] / c[3]);
        let wx = viewport.x + ((x + 1.0) * 0.5) as Real * viewport.width;
        let t = if viewport.y_down { 1.0 - y } else { y + 1.0 };
        let wy = viewport.y + (t * 0.5) as Real * viewport.height;
        lo = lo.min(Vec2::new(wx, wy));
        hi = hi.max(Vec2::new(wx, wy));
    }
    Aabb::new(lo, hi).ok()
}
