//! Source coordinates per output pixel, and the bilinear texture lookup that
//! turns them into an image: what the mesh rasteriser and the parallax
//! lookup both produce, so they can be compared coordinate by coordinate.

use crate::error::{RetargetError, try_vec};
use crate::raster::{Limits, Raster, Sample};

/// For each output pixel, the source point its centre shows (`u`, `v` in
/// source pixels, pixel `i`'s centre at `i + 0.5`), or NaN where nothing
/// was drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Coords {
    /// Output width.
    pub width: u32,
    /// Output height.
    pub height: u32,
    /// Source x per output pixel, row by row.
    pub u: Vec<f32>,
    /// Source y per output pixel.
    pub v: Vec<f32>,
}

impl Coords {
    /// An empty canvas (every pixel undrawn).
    pub fn new(width: u32, height: u32, limits: &Limits) -> Result<Self, RetargetError> {
        limits.check("output", u64::from(width), u64::from(height))?;
        let n = width as usize * height as usize;
        Ok(Coords {
            width,
            height,
            u: try_vec(n, f32::NAN, "coordinates")?,
            v: try_vec(n, f32::NAN, "coordinates")?,
        })
    }

    /// How far right each row's drawn part reaches (0 for an empty row).
    pub fn row_extents(&self) -> Vec<u32> {
        self.u
            .chunks_exact(self.width as usize)
            .map(|r| {
                r.iter()
                    .rposition(|v| !v.is_nan())
                    .map_or(0, |i| i as u32 + 1)
            })
            .collect()
    }

    /// Swaps x and y (for the height pass, done as a width pass on the
    /// transposed image).
    pub fn transposed(&self, limits: &Limits) -> Result<Self, RetargetError> {
        let mut t = Coords::new(self.height, self.width, limits)?;
        let (w, h) = (self.width as usize, self.height as usize);
        for y in 0..h {
            for x in 0..w {
                t.u[x * h + y] = self.v[y * w + x];
                t.v[x * h + y] = self.u[y * w + x];
            }
        }
        Ok(t)
    }
}

/// Draws `src` through `coords` with bilinear filtering (edges clamped,
/// colour weighted by alpha); undrawn pixels are zero (transparent black).
pub fn sample<S: Sample>(
    src: &Raster<S>,
    coords: &Coords,
    limits: &Limits,
) -> Result<Raster<S>, RetargetError> {
    let mut out = Raster::new(coords.width, coords.height, src.channels(), limits)?;
    let c = usize::from(src.channels());
    let alpha = src.has_alpha();
    let (sw, sh) = (src.width() as i64, src.height() as i64);
    let data = out.as_mut_slice();
    for (i, (&u, &v)) in coords.u.iter().zip(&coords.v).enumerate() {
        if u.is_nan() || v.is_nan() {
            continue;
        }
        let (fx, fy) = (f64::from(u) - 0.5, f64::from(v) - 0.5);
        let (x0, y0) = (fx.floor(), fy.floor());
        let (tx, ty) = ((fx - x0) as f32, (fy - y0) as f32);
        let (x0, y0) = (x0 as i64, y0 as i64);
        let mut acc = [0.0f32; 4];
        for (dy, wy) in [(0, 1.0 - ty), (1, ty)] {
            for (dx, wx) in [(0, 1.0 - tx), (1, tx)] {
                let w = wx * wy;
                if w == 0.0 {
                    continue;
                }
                let px = src.pixel(
                    (x0 + dx).clamp(0, sw - 1) as u32,
                    (y0 + dy).clamp(0, sh - 1) as u32,
                );
                let a = if alpha {
                    px[c - 1].to_f32() / S::MAX
                } else {
                    1.0
                };
                for k in 0..c {
                    let val = px[k].to_f32();
                    acc[k] += if alpha && k < c - 1 {
                        w * a * val
                    } else {
                        w * val
                    };
                }
            }
        }
        let o = &mut data[i * c..(i + 1) * c];
        if alpha {
            let a = acc[c - 1];
            let k = if a > 0.0 { S::MAX / a } else { 0.0 };
            for j in 0..c - 1 {
                o[j] = S::from_f32(acc[j] * k);
            }
            o[c - 1] = S::from_f32(a);
        } else {
            for j in 0..c {
                o[j] = S::from_f32(acc[j]);
            }
        }
    }
    Ok(out)
}

/// The image with x and y swapped.
pub fn transpose<S: Sample>(src: &Raster<S>, limits: &Limits) -> Result<Raster<S>, RetargetError> {
    let mut out = Raster::new(src.height(), src.width(), src.channels(), limits)?;
    let c = usize::from(src.channels());
    let (w, h) = (src.width() as usize, src.height() as usize);
    let (s, d) = (src.as_slice(), out.as_mut_slice());
    for y in 0..h {
        for x in 0..w {
            d[(x * h + y) * c..(x * h + y + 1) * c]
                .copy_from_slice(&s[(y * w + x) * c..(y * w + x + 1) * c]);
        }
    }
    Ok(out)
}
