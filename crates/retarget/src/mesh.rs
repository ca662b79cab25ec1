//! The seed's method, as written: a 2-D summed-area table of the energy as
//! the height of a mesh, rotated about Y by θ and projected orthographically,
//! drawn with depth testing by a software rasteriser ([`rasterise`]), or
//! looked up per output pixel as one quad with a height map, parallax style
//! ([`parallax`]). Both give [`Coords`]; [`crate::coords::sample`] draws
//! them.
//!
//! Vertex (x, y) of the mesh (x in 0..=W, y in 0..=H) sits at height
//! `Z(x, y) = Σ E(i, j)` over `i < x, j < y`, scaled so that
//! `Z(W, H) = k·W`; after the rotation it projects to
//! `x' = x·cosθ + Z(x, y)·sinθ`. The bottom row is exactly the target
//! width; a row above it is narrower (its slope holds only the energy above
//! it): the trapezoid the crate's README measures.

use crate::coords::Coords;
use crate::error::{RetargetError, try_vec};
use crate::raster::Limits;

/// The mesh: vertex heights, already scaled, and the rotation.
#[derive(Debug, Clone, PartialEq)]
pub struct Mesh {
    /// Source width (vertices per row − 1).
    pub width: u32,
    /// Source height.
    pub height: u32,
    /// Heights, `(width + 1) × (height + 1)`, row by row, in `f64`: an 8K
    /// image sums 6.7·10⁷ energies (the seed: "you may need a lot of
    /// precision").
    pub z: Vec<f64>,
    /// The angle about Y, radians.
    pub theta: f64,
    /// Total height over width.
    pub k: f64,
    /// The target width (the bottom row's width).
    pub target: u32,
}

/// The θ that makes the bottom row `target` wide: `W·(cosθ + k·sinθ) =
/// target`. Shrinking takes `θ = atan k + acos(G/√(1+k²))`; enlarging (and
/// G = 1, the identity) takes `atan k − acos(…)`. Reach: `k·W ..
/// W·√(1+k²)`.
pub fn solve_theta(width: u32, target: u32, k: f64) -> Result<f64, RetargetError> {
    let w = f64::from(width);
    let g = f64::from(target) / w;
    let r = (1.0 + k * k).sqrt();
    if !(k.is_finite() && k > 0.0) {
        return Err(RetargetError::BadOption {
            name: "k",
            value: k,
            range: "(0, inf)",
        });
    }
    // Shrinking takes θ past atan k, down to k·W at 90°; enlarging takes
    // θ below atan k, up to W·√(1+k²).
    let min = k.min(1.0);
    if g < min - 1e-12 || g > r + 1e-12 {
        return Err(RetargetError::OutOfReach {
            axis: "width",
            target,
            mode: "the mesh rotation with this k",
            min: min * w,
            max: r * w,
        });
    }
    let a = (g / r).clamp(-1.0, 1.0).acos();
    Ok(if g < 1.0 {
        k.atan() + a
    } else {
        (k.atan() - a).max(0.0)
    })
}

/// The k used when none is given: half the target ratio when shrinking (so
/// θ lands mid-range), and twice the least k that reaches the target when
/// enlarging.
pub fn default_k(width: u32, target: u32) -> f64 {
    let g = f64::from(target) / f64::from(width);
    if g <= 1.0 {
        0.5 * g
    } else {
        2.0 * (g * g - 1.0).sqrt()
    }
}

impl Mesh {
    /// Builds the mesh from a `width × height` energy map (row by row).
    pub fn new(
        energy: &[f32],
        width: u32,
        height: u32,
        target: u32,
        k: f64,
    ) -> Result<Self, RetargetError> {
        Limits::default().check("mesh", u64::from(width), u64::from(height))?;
        Limits::default().check("target", u64::from(target), u64::from(height))?;
        if energy.len() as u64 != u64::from(width) * u64::from(height) {
            return Err(RetargetError::BadBuffer {
                width,
                height,
                channels: 1,
                expected: u64::from(width) * u64::from(height),
                got: energy.len() as u64,
            });
        }
        let theta = solve_theta(width, target, k)?;
        let (w, h) = (width as usize, height as usize);
        let stride = w + 1;
        let mut z = try_vec(stride * (h + 1), 0.0f64, "mesh heights")?;
        // Step 2 of the seed: accumulate along each row; step 3: down the
        // columns.
        for y in 0..h {
            let mut run = 0.0f64;
            for x in 0..w {
                run += f64::from(energy[y * w + x]);
                z[(y + 1) * stride + x + 1] = z[y * stride + x + 1] + run;
            }
        }
        let total = z[h * stride + w];
        let scale = if total > 0.0 {
            k * f64::from(width) / total
        } else {
            0.0
        };
        for v in z.iter_mut() {
            *v *= scale;
        }
        Ok(Mesh {
            width,
            height,
            z,
            theta,
            k,
            target,
        })
    }

    /// Vertex (x, y) after the rotation: (x', depth). Depth grows toward the
    /// viewer.
    #[inline]
    pub fn project(&self, x: usize, y: usize) -> (f64, f64) {
        let z = self.z[y * (self.width as usize + 1) + x];
        let (s, c) = self.theta.sin_cos();
        let xf = x as f64;
        (xf * c + z * s, -xf * s + z * c)
    }

    /// Width of row `y`'s top edge after projection (the bottom edge of the
    /// last row is the target).
    pub fn edge_width(&self, y: usize) -> f64 {
        self.project(self.width as usize, y).0
    }
}

/// Draws the mesh, two triangles per source pixel, with a depth buffer;
/// each drawn pixel records the source point it shows.
pub fn rasterise(mesh: &Mesh, limits: &Limits) -> Result<Coords, RetargetError> {
    let mut out = Coords::new(mesh.target, mesh.height, limits)?;
    let n = out.u.len();
    let mut depth = try_vec(n, f64::NEG_INFINITY, "depth buffer")?;
    let (w, h) = (mesh.width as usize, mesh.height as usize);
    for y in 0..h {
        for x in 0..w {
            let corner = |cx: usize, cy: usize| {
                let (px, d) = mesh.project(cx, cy);
                Vertex {
                    x: px,
                    y: cy as f64,
                    u: cx as f64,
                    v: cy as f64,
                    depth: d,
                }
            };
            let (a, b, c, d) = (
                corner(x, y),
                corner(x + 1, y),
                corner(x + 1, y + 1),
                corner(x, y + 1),
            );
            triangle(&[a, b, c], &mut out, &mut depth);
            triangle(&[a, c, d], &mut out, &mut depth);
        }
    }
    Ok(out)
}

#[derive(Clone, Copy)]
struct Vertex {
    x: f64,
    y: f64,
    u: f64,
    v: f64,
    depth: f64,
}

/// One triangle: pixel centres inside it (top-left fill rule, so a shared
/// edge is drawn once) pass the depth test when nearer.
fn triangle(t: &[Vertex; 3], out: &mut Coords, depth: &mut [f64]) {
    let [mut p0, p1, mut p2] = *t;
    let edge =
        |a: &Vertex, b: &Vertex, x: f64, y: f64| (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x);
    let mut area = edge(&p0, &p1, p2.x, p2.y);
    if area == 0.0 {
        return;
    }
    if area < 0.0 {
        std::mem::swap(&mut p0, &mut p2);
        area = -area;
    }
    let v = [p0, p1, p2];
    let (w, h) = (out.width as i64, out.height as i64);
    let min_x = v.iter().map(|p| p.x).fold(f64::INFINITY, f64::min);
    let max_x = v.iter().map(|p| p.x).fold(f64::NEG_INFINITY, f64::max);
    let min_y = v.iter().map(|p| p.y).fold(f64::INFINITY, f64::min);
    let max_y = v.iter().map(|p| p.y).fold(f64::NEG_INFINITY, f64::max);
    let x0 = ((min_x - 0.5).ceil() as i64).max(0);
    let x1 = ((max_x - 0.5).floor() as i64).min(w - 1);
    let y0 = ((min_y - 0.5).ceil() as i64).max(0);
    let y1 = ((max_y - 0.5).floor() as i64).min(h - 1);
    // Top-left rule: a pixel exactly on an edge belongs to the triangle only
    // if the edge is a top or a left one.
    let top_left = |a: &Vertex, b: &Vertex| {
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        (dy == 0.0 && dx < 0.0) || dy > 0.0
    };
    let edges = [(v[1], v[2]), (v[2], v[0]), (v[0], v[1])];
    for py in y0..=y1 {
        for px in x0..=x1 {
            let (cx, cy) = (px as f64 + 0.5, py as f64 + 0.5);
            let mut bary = [0.0; 3];
            let mut inside = true;
            for (k, (a, b)) in edges.iter().enumerate() {
                // Positive on the inside for this winding.
                let e = edge(a, b, cx, cy);
                if e < 0.0 || (e == 0.0 && !top_left(a, b)) {
                    inside = false;
                    break;
                }
                bary[k] = e / area;
            }
            if !inside {
                continue;
            }
            let lerp = |f: fn(&Vertex) -> f64| {
                bary[0] * f(&v[0]) + bary[1] * f(&v[1]) + bary[2] * f(&v[2])
            };
            let d = lerp(|p| p.depth);
            let i = py as usize * out.width as usize + px as usize;
            if d > depth[i] {
                depth[i] = d;
                out.u[i] = lerp(|p| p.u) as f32;
                out.v[i] = lerp(|p| p.v) as f32;
            }
        }
    }
}

/// The single-quad version: each output pixel finds, by walking its row's
/// height profile, the source x whose projection lands on it (a parallax
/// height-map lookup). Between vertex rows the heights are interpolated
/// linearly at the pixel centre's y.
pub fn parallax(mesh: &Mesh, limits: &Limits) -> Result<Coords, RetargetError> {
    let mut out = Coords::new(mesh.target, mesh.height, limits)?;
    let (w, h) = (mesh.width as usize, mesh.height as usize);
    let (s, c) = mesh.theta.sin_cos();
    let stride = w + 1;
    let tw = mesh.target as usize;
    for py in 0..h {
        // Pixel centre y + 0.5 lies halfway between vertex rows y and y + 1.
        let xp = |x: usize| {
            let z = 0.5 * (mesh.z[py * stride + x] + mesh.z[(py + 1) * stride + x]);
            x as f64 * c + z * s
        };
        let mut x = 0usize;
        let mut left = xp(0);
        let mut right = xp(1);
        for px in 0..tw {
            let target = px as f64 + 0.5;
            while right < target && x + 1 < w {
                x += 1;
                left = right;
                right = xp(x + 1);
            }
            if target < left || target >= right {
                continue; // Beyond this row's projected extent.
            }
            let t = if right > left {
                (target - left) / (right - left)
            } else {
                0.0
            };
            out.u[py * tw + px] = (x as f64 + t) as f32;
            out.v[py * tw + px] = py as f32 + 0.5;
        }
    }
    Ok(out)
}
