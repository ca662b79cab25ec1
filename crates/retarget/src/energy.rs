//! The energy of an image: where detail is, so it can be kept.
//!
//! Energy = gradient magnitude of a slightly blurred luma, plus a cheap
//! saliency term (the squared distance of each blurred pixel's colour from
//! the image's mean colour: frequency-tuned saliency, Achanta et al. 2009;
//! squared, so a distinct object outweighs a gentle ramp), each term
//! divided by its image mean so their mix does not depend on contrast.
//! Transparent pixels count as black (colour is weighted by alpha).
//!
//! The separable mode needs only the column and row sums of the energy
//! ([`profiles`]); they are taken on box averages (4 × 4 from 128 pixels a
//! side, 2 × 2 from 32), which is also the first part of the blur and
//! most of the speed. The mesh modes take the full map
//! ([`energy_map`]).

use crate::error::{RetargetError, try_vec};
use crate::raster::{Raster, Sample};

/// How energy is made.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EnergyOptions {
    /// Weight of the saliency term against the gradient term (both have mean
    /// 1 before mixing). 0 turns saliency off.
    pub saliency: f32,
    /// Share of every column's (row's) width budget given regardless of its
    /// energy, so flat regions still scale: 0 = pure energy, 1 = uniform.
    pub floor: f32,
}

impl Default for EnergyOptions {
    fn default() -> Self {
        EnergyOptions {
            saliency: 0.5,
            floor: 0.3,
        }
    }
}

impl EnergyOptions {
    pub(crate) fn check(&self) -> Result<(), RetargetError> {
        if !(self.saliency.is_finite() && self.saliency >= 0.0) {
            return Err(RetargetError::BadOption {
                name: "saliency",
                value: f64::from(self.saliency),
                range: "[0, inf)",
            });
        }
        if !(0.0..=1.0).contains(&self.floor) {
            return Err(RetargetError::BadOption {
                name: "floor",
                value: f64::from(self.floor),
                range: "[0, 1]",
            });
        }
        Ok(())
    }
}

/// Energy summed down each column and along each row, at full resolution.
#[derive(Debug, Clone, PartialEq)]
pub struct Profiles {
    /// Energy of each column (length = width).
    pub columns: Vec<f64>,
    /// Energy of each row (length = height).
    pub rows: Vec<f64>,
}

/// The image as blurred opponent-colour planes (luma, red–green,
/// blue–yellow), each `w × h`, in 0..1 scale.
struct Planes {
    w: usize,
    h: usize,
    /// 1 for grey images, 3 for colour.
    count: usize,
    data: [Vec<f32>; 3],
}

/// The box size energy is taken at: 4 × 4 on images of 128 pixels a side
/// or more, 2 × 2 from 32, else full resolution. The profiles only need
/// where detail is, not its finest grain, and this is most of the speed.
pub(crate) fn decimation(width: u32, height: u32) -> usize {
    match width.min(height) {
        128.. => 4,
        32.. => 2,
        _ => 1,
    }
}

/// Samples the image into planes, averaging `d × d` boxes.
fn planes<S: Sample>(src: &Raster<S>, d: usize) -> Result<Planes, RetargetError> {
    // Each layout and box size gets its own loop, fully unrolled.
    macro_rules! by_box {
        ($c:literal, $a:literal) => {
            match d {
                4 => planes_of::<S, $c, $a, 4>(src),
                2 => planes_of::<S, $c, $a, 2>(src),
                _ => planes_of::<S, $c, $a, 1>(src),
            }
        };
    }
    match src.channels() {
        1 => by_box!(1, false),
        2 => by_box!(2, true),
        3 => by_box!(3, false),
        _ => by_box!(4, true),
    }
}

fn planes_of<S: Sample, const C: usize, const ALPHA: bool, const D: usize>(
    src: &Raster<S>,
) -> Result<Planes, RetargetError> {
    let d = D;
    let (sw, sh) = (src.width() as usize, src.height() as usize);
    let (w, h) = (sw.div_ceil(d), sh.div_ceil(d));
    let colour = C >= 3;
    let count = if colour { 3 } else { 1 };
    let mut data = [Vec::new(), Vec::new(), Vec::new()];
    for p in data.iter_mut().take(count) {
        *p = try_vec(w * h, 0.0f32, "energy planes")?;
    }
    // Per box: the sum of each colour channel (alpha-weighted), one row of
    // boxes at a time; the colour maths then runs once per box. Opaque
    // images sum integer levels (exact, and cheaper than converting every
    // sample to a float).
    let mut sums = try_vec(w * 3, 0.0f32, "energy row")?;
    let mut levels = try_vec(w * 3, 0u32, "energy row")?;
    let inv = 1.0 / S::MAX;
    for py in 0..h {
        sums.fill(0.0);
        levels.fill(0);
        let rows = py * d..((py + 1) * d).min(sh);
        let ny = rows.len();
        for y in rows {
            let row = src.row(y as u32);
            if ALPHA {
                for (acc, chunk) in sums.chunks_exact_mut(3).zip(row.chunks(D * C)) {
                    for px in chunk.chunks_exact(C) {
                        let a = px[C - 1].to_f32() * inv;
                        acc[0] += a * px[0].to_f32();
                        if colour {
                            acc[1] += a * px[1].to_f32();
                            acc[2] += a * px[2].to_f32();
                        }
                    }
                }
            } else {
                // Whole boxes with the sums in registers, then the ragged
                // last box.
                let full = row.chunks_exact(D * C);
                let rest = full.remainder();
                for (acc, chunk) in levels.chunks_exact_mut(3).zip(full) {
                    let (mut r, mut g, mut b) = (0u32, 0u32, 0u32);
                    for k in 0..D {
                        r += chunk[k * C].to_level();
                        if colour {
                            g += chunk[k * C + 1].to_level();
                            b += chunk[k * C + 2].to_level();
                        }
                    }
                    acc[0] += r;
                    acc[1] += g;
                    acc[2] += b;
                }
                if !rest.is_empty() {
                    let acc = &mut levels[(w - 1) * 3..w * 3];
                    for px in rest.chunks_exact(C) {
                        acc[0] += px[0].to_level();
                        if colour {
                            acc[1] += px[1].to_level();
                            acc[2] += px[2].to_level();
                        }
                    }
                }
            }
        }
        for bx in 0..w {
            let nx = (sw - bx * d).min(d);
            let i = py * w + bx;
            let (acc, k) = if ALPHA {
                (
                    [sums[bx * 3], sums[bx * 3 + 1], sums[bx * 3 + 2]],
                    inv / (nx * ny) as f32,
                )
            } else {
                let l = &levels[bx * 3..bx * 3 + 3];
                (
                    [l[0] as f32, l[1] as f32, l[2] as f32],
                    1.0 / (S::LEVEL_MAX * (nx * ny) as f32),
                )
            };
            if colour {
                let (r, g, b) = (acc[0] * k, acc[1] * k, acc[2] * k);
                data[0][i] = 0.299 * r + 0.587 * g + 0.114 * b;
                data[1][i] = r - g;
                data[2][i] = b - 0.5 * (r + g);
            } else {
                data[0][i] = acc[0] * k;
            }
        }
    }
    let mut planes = Planes { w, h, count, data };
    blur(&mut planes)?;
    Ok(planes)
}

/// The [1 2 1]/4 binomial blur, across then down, edges clamped.
fn blur(p: &mut Planes) -> Result<(), RetargetError> {
    let (w, h) = (p.w, p.h);
    let mut line = try_vec(w.max(h), 0.0f32, "blur line")?;
    for plane in p.data.iter_mut().take(p.count) {
        for row in plane.chunks_exact_mut(w) {
            line[..w].copy_from_slice(row);
            for x in 0..w {
                let l = line[x.saturating_sub(1)];
                let r = line[(x + 1).min(w - 1)];
                row[x] = 0.25 * (l + r) + 0.5 * line[x];
            }
        }
        // Down the columns a row at a time, so memory is read in order.
        let mut prev = try_vec(w, 0.0f32, "blur row")?;
        prev.copy_from_slice(&plane[..w]);
        for y in 0..h {
            let next_y = (y + 1).min(h - 1);
            for x in 0..w {
                let cur = plane[y * w + x];
                let next = plane[next_y * w + x];
                plane[y * w + x] = 0.25 * (prev[x] + next) + 0.5 * cur;
                prev[x] = cur;
            }
        }
    }
    Ok(())
}

/// Gradient and saliency of one plane pixel, before normalisation.
#[inline]
fn terms(p: &Planes, means: &[f32; 3], x: usize, y: usize) -> (f32, f32) {
    let (w, h) = (p.w, p.h);
    let l = &p.data[0];
    let i = y * w + x;
    let gx = l[y * w + (x + 1).min(w - 1)] - l[y * w + x.saturating_sub(1)];
    let gy = l[(y + 1).min(h - 1) * w + x] - l[y.saturating_sub(1) * w + x];
    let grad = 0.5 * (gx.abs() + gy.abs());
    let mut sal = 0.0;
    for (k, m) in means.iter().enumerate().take(p.count) {
        let d = p.data[k][i] - m;
        sal += d * d;
    }
    (grad, sal)
}

fn plane_means(p: &Planes) -> [f32; 3] {
    let mut means = [0.0f32; 3];
    for (k, m) in means.iter_mut().enumerate().take(p.count) {
        let s: f64 = p.data[k].iter().map(|&v| f64::from(v)).sum();
        *m = (s / p.data[k].len() as f64) as f32;
    }
    means
}

/// How many terms are summed in `f32` before being added to the `f64`
/// totals: short enough that an 8K image's sums stay within 10⁻⁶ of exact.
const F32_BLOCK: usize = 64;

/// The column and row energy profiles of the image (see the module docs).
pub fn profiles<S: Sample>(
    src: &Raster<S>,
    opts: &EnergyOptions,
) -> Result<Profiles, RetargetError> {
    profiles_with(src, opts, false)
}

/// [`profiles`] with every term added straight into `f64` sums: the
/// reference the precision test holds the `f32` blocks to.
#[doc(hidden)]
pub fn profiles_f64<S: Sample>(
    src: &Raster<S>,
    opts: &EnergyOptions,
) -> Result<Profiles, RetargetError> {
    profiles_with(src, opts, true)
}

fn profiles_with<S: Sample>(
    src: &Raster<S>,
    opts: &EnergyOptions,
    exact: bool,
) -> Result<Profiles, RetargetError> {
    opts.check()?;
    let d = decimation(src.width(), src.height());
    let p = planes(src, d)?;
    let means = plane_means(&p);
    let (w, h) = (p.w, p.h);
    // Gradient and saliency sums kept apart, so each can be divided by its own
    // mean at the end.
    let mut col_g = try_vec(w, 0.0f64, "column profile")?;
    let mut col_s = try_vec(w, 0.0f64, "column profile")?;
    let mut row_g = try_vec(h, 0.0f64, "row profile")?;
    let mut row_s = try_vec(h, 0.0f64, "row profile")?;
    let mut blk_g = try_vec(w, 0.0f32, "column block")?;
    let mut blk_s = try_vec(w, 0.0f32, "column block")?;
    for y0 in (0..h).step_by(F32_BLOCK) {
        for y in y0..(y0 + F32_BLOCK).min(h) {
            let (mut rg, mut rs) = (0.0f64, 0.0f64);
            for x0 in (0..w).step_by(F32_BLOCK) {
                let (mut bg, mut bs) = (0.0f32, 0.0f32);
                for x in x0..(x0 + F32_BLOCK).min(w) {
                    let (g, s) = terms(&p, &means, x, y);
                    if exact {
                        col_g[x] += f64::from(g);
                        col_s[x] += f64::from(s);
                        rg += f64::from(g);
                        rs += f64::from(s);
                    } else {
                        blk_g[x] += g;
                        blk_s[x] += s;
                        bg += g;
                        bs += s;
                    }
                }
                rg += f64::from(bg);
                rs += f64::from(bs);
            }
            row_g[y] = rg;
            row_s[y] = rs;
        }
        for x in 0..w {
            col_g[x] += f64::from(std::mem::take(&mut blk_g[x]));
            col_s[x] += f64::from(std::mem::take(&mut blk_s[x]));
        }
    }
    let mix = |g: &[f64], s: &[f64]| -> Vec<f64> {
        let (tg, ts): (f64, f64) = (g.iter().sum(), s.iter().sum());
        let n = g.len() as f64;
        let kg = if tg > 0.0 { n / tg } else { 0.0 };
        let ks = if ts > 0.0 {
            f64::from(opts.saliency) * n / ts
        } else {
            0.0
        };
        g.iter().zip(s).map(|(&g, &s)| kg * g + ks * s).collect()
    };
    let (cols, rows) = (mix(&col_g, &col_s), mix(&row_g, &row_s));
    Ok(Profiles {
        columns: spread(&cols, d, src.width() as usize)?,
        rows: spread(&rows, d, src.height() as usize)?,
    })
}

/// Gives each of the `d` full-resolution lines a box covers its share.
fn spread(profile: &[f64], d: usize, n: usize) -> Result<Vec<f64>, RetargetError> {
    let mut out = try_vec(n, 0.0f64, "profile")?;
    for (i, o) in out.iter_mut().enumerate() {
        *o = profile[i / d] / d as f64;
    }
    Ok(out)
}

/// The full-resolution energy map, `width × height`, row by row, with mean 1
/// before the floor; the floor then mixes in a constant: `(1 − f)·E + f`.
pub fn energy_map<S: Sample>(
    src: &Raster<S>,
    opts: &EnergyOptions,
) -> Result<Vec<f32>, RetargetError> {
    opts.check()?;
    let p = planes(src, 1)?;
    let means = plane_means(&p);
    let (w, h) = (p.w, p.h);
    let mut g = try_vec(w * h, 0.0f32, "energy map")?;
    let mut s = try_vec(w * h, 0.0f32, "energy map")?;
    let (mut tg, mut ts) = (0.0f64, 0.0f64);
    for y in 0..h {
        for x in 0..w {
            let (a, b) = terms(&p, &means, x, y);
            g[y * w + x] = a;
            s[y * w + x] = b;
            tg += f64::from(a);
            ts += f64::from(b);
        }
    }
    let n = (w * h) as f64;
    let kg = if tg > 0.0 { (n / tg) as f32 } else { 0.0 };
    let ks = if ts > 0.0 {
        (f64::from(opts.saliency) * n / ts) as f32
    } else {
        0.0
    };
    let total = kg * (tg as f32) + ks * (ts as f32);
    // Renormalise the mix to mean 1, then floor it.
    let km = if total > 0.0 { n as f32 / total } else { 0.0 };
    let f = opts.floor;
    for (e, &b) in g.iter_mut().zip(&s) {
        let mixed = km * (kg * *e + ks * b);
        *e = (1.0 - f) * mixed + if km > 0.0 { f } else { 1.0 };
    }
    Ok(g)
}
