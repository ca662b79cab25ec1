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
#[inline(always)]
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

#[inline(always)]
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
    let mut levels = [
        try_vec(w, 0u32, "energy row")?,
        try_vec(w, 0u32, "energy row")?,
        try_vec(w, 0u32, "energy row")?,
    ];
    let mut column_levels = try_vec(if ALPHA { 0 } else { sw * C }, 0u32, "energy row")?;
    let inv = 1.0 / S::MAX;
    for py in 0..h {
        sums.fill(0.0);
        let rows = py * d..((py + 1) * d).min(sh);
        let ny = rows.len();
        if !ALPHA && add_byte_rows(src, rows.clone(), &mut column_levels) {
            // Done in 16 bits.
        } else {
            add_rows::<S, C, ALPHA, D>(src, rows, &mut sums, &mut column_levels);
        }
        if ALPHA {
            for bx in 0..w {
                let nx = (sw - bx * d).min(d);
                let k = inv / (nx * ny) as f32;
                let acc = [sums[bx * 3] * k, sums[bx * 3 + 1] * k, sums[bx * 3 + 2] * k];
                set_box(&mut data, py * w + bx, acc, colour);
            }
            continue;
        }
        // Then the boxes across, from the columns' sums, one channel per
        // array so the colour maths below vectorises.
        let full = column_levels.chunks_exact(D * C);
        let rest = full.remainder();
        let [lr, lg, lb] = &mut levels;
        for (((chunk, r), g), b) in full
            .zip(lr.iter_mut())
            .zip(lg.iter_mut())
            .zip(lb.iter_mut())
        {
            *r = (0..D).map(|k| chunk[k * C]).sum();
            if colour {
                *g = (0..D).map(|k| chunk[k * C + 1]).sum();
                *b = (0..D).map(|k| chunk[k * C + 2]).sum();
            }
        }
        if !rest.is_empty() {
            let mut acc = [0u32; 3];
            for px in rest.chunks_exact(C) {
                acc[0] += px[0];
                if colour {
                    acc[1] += px[1];
                    acc[2] += px[2];
                }
            }
            (lr[w - 1], lg[w - 1], lb[w - 1]) = (acc[0], acc[1], acc[2]);
        }
        // Whole boxes share one scale; a ragged last box has its own.
        let whole = if rest.is_empty() { w } else { w - 1 };
        let k = 1.0 / (S::LEVEL_MAX * (d * ny) as f32);
        let row = py * w..py * w + whole;
        if colour {
            let [p0, p1, p2] = &mut data;
            let (l, rg, by) = (&mut p0[row.clone()], &mut p1[row.clone()], &mut p2[row]);
            let (r, g, b) = (&lr[..whole], &lg[..whole], &lb[..whole]);
            for i in 0..whole {
                let (r, g, b) = (r[i] as f32 * k, g[i] as f32 * k, b[i] as f32 * k);
                l[i] = 0.299 * r + 0.587 * g + 0.114 * b;
                rg[i] = r - g;
                by[i] = b - 0.5 * (r + g);
            }
        } else {
            for (l, &r) in data[0][row].iter_mut().zip(lr.iter()) {
                *l = r as f32 * k;
            }
        }
        if whole < w {
            let nx = sw - (w - 1) * d;
            let k = 1.0 / (S::LEVEL_MAX * (nx * ny) as f32);
            let acc = [
                lr[w - 1] as f32 * k,
                lg[w - 1] as f32 * k,
                lb[w - 1] as f32 * k,
            ];
            set_box(&mut data, py * w + w - 1, acc, colour);
        }
    }
    let mut planes = Planes { w, h, count, data };
    blur(&mut planes)?;
    Ok(planes)
}

/// Sets plane pixel `i` from a box's mean colour.
#[inline(always)]
fn set_box(data: &mut [Vec<f32>; 3], i: usize, [r, g, b]: [f32; 3], colour: bool) {
    if colour {
        data[0][i] = 0.299 * r + 0.587 * g + 0.114 * b;
        data[1][i] = r - g;
        data[2][i] = b - 0.5 * (r + g);
    } else {
        data[0][i] = r;
    }
}

/// Adds the rows' samples into per-column sums: alpha-weighted colour into
/// `sums` (three per box), or opaque levels into `columns` (one per
/// sample), a straight loop the compiler vectorises.
#[inline(always)]
fn add_rows<S: Sample, const C: usize, const ALPHA: bool, const D: usize>(
    src: &Raster<S>,
    rows: std::ops::Range<usize>,
    sums: &mut [f32],
    columns: &mut [u32],
) {
    let inv = 1.0 / S::MAX;
    let colour = C >= 3;
    columns.fill(0);
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
            for (acc, v) in columns.iter_mut().zip(row) {
                *acc += v.to_level();
            }
        }
    }
}

/// [`add_rows`] for 8-bit samples, up to 4 rows added in 16 bits (twice
/// the lanes of 32) then widened; false where the samples are not bytes.
#[inline(always)]
fn add_byte_rows<S: Sample>(
    src: &Raster<S>,
    rows: std::ops::Range<usize>,
    columns: &mut [u32],
) -> bool {
    const CHUNK: usize = 64;
    if rows.len() > 4 {
        return false;
    }
    let mut bytes: [&[u8]; 4] = [&[]; 4];
    for (b, y) in bytes.iter_mut().zip(rows.clone()) {
        match S::as_bytes(src.row(y as u32)) {
            Some(r) => *b = r,
            None => return false,
        }
    }
    if let ([a, b, c, d], 4) = (bytes, rows.len()) {
        // The usual case, in one pass.
        // Sixteen columns at a time, summed in 16 bits first: without the
        // explicit stage the compiler widens every byte to 32 bits and
        // takes four per instruction rather than sixteen.
        const LANES: usize = 16;
        let n = columns.len() / LANES * LANES;
        let rows = a[..n]
            .chunks_exact(LANES)
            .zip(b[..n].chunks_exact(LANES))
            .zip(c[..n].chunks_exact(LANES))
            .zip(d[..n].chunks_exact(LANES));
        for (o, (((a, b), c), d)) in columns[..n].chunks_exact_mut(LANES).zip(rows) {
            let mut t = [0u16; LANES];
            for i in 0..LANES {
                t[i] = u16::from(a[i]) + u16::from(b[i]) + u16::from(c[i]) + u16::from(d[i]);
            }
            for i in 0..LANES {
                o[i] = u32::from(t[i]);
            }
        }
        for i in n..columns.len() {
            columns[i] = u32::from(a[i]) + u32::from(b[i]) + u32::from(c[i]) + u32::from(d[i]);
        }
        return true;
    }
    let bytes = &bytes[..rows.len()];
    columns.fill(0);
    for (start, out) in (0..).step_by(CHUNK).zip(columns.chunks_mut(CHUNK)) {
        let mut t = [0u16; CHUNK];
        for row in bytes {
            for (t, &v) in t.iter_mut().zip(&row[start..start + out.len()]) {
                *t += u16::from(v);
            }
        }
        for (o, &t) in out.iter_mut().zip(&t) {
            *o += u32::from(t);
        }
    }
    true
}

/// The [1 2 1]/4 binomial blur, across then down, edges clamped. The
/// edges are done apart so the inner loops have no clamps and vectorise.
/// Across goes into a second buffer and down comes back, so no row is
/// copied.
#[inline(always)]
fn blur(p: &mut Planes) -> Result<(), RetargetError> {
    let (w, h) = (p.w, p.h);
    let mut across = try_vec(w * h, 0.0f32, "blur buffer")?;
    for plane in p.data.iter_mut().take(p.count) {
        for (row, out) in plane.chunks_exact(w).zip(across.chunks_exact_mut(w)) {
            blur3(row, row, row, out, true);
        }
        let line = |y: usize| &across[y * w..(y + 1) * w];
        for (y, out) in plane.chunks_exact_mut(w).enumerate() {
            let (up, down) = (y.saturating_sub(1), (y + 1).min(h - 1));
            blur3(line(up), line(y), line(down), out, false);
        }
    }
    Ok(())
}

/// `out = (before + after) / 4 + at / 2`, element by element (`across`
/// false), or along the line with its ends clamped (`across` true, where all
/// three are the same line).
#[inline(always)]
fn blur3(before: &[f32], at: &[f32], after: &[f32], out: &mut [f32], across: bool) {
    let w = out.len();
    if across {
        let line = at;
        if w == 1 {
            out[0] = line[0];
            return;
        }
        out[0] = 0.25 * (line[0] + line[1]) + 0.5 * line[0];
        for (o, t) in out[1..w - 1].iter_mut().zip(line.windows(3)) {
            *o = 0.25 * (t[0] + t[2]) + 0.5 * t[1];
        }
        out[w - 1] = 0.25 * (line[w - 2] + line[w - 1]) + 0.5 * line[w - 1];
    } else {
        for (((o, &b), &c), &a) in out.iter_mut().zip(before).zip(at).zip(after) {
            *o = 0.25 * (b + a) + 0.5 * c;
        }
    }
}

/// Gradient and saliency of one row of plane pixels, before
/// normalisation: the gradient from the neighbours (clamped at the edges),
/// the saliency as the squared distance from the mean colour.
#[inline(always)]
fn row_terms(p: &Planes, means: &[f32; 3], y: usize, grad: &mut [f32], sal: &mut [f32]) {
    let (w, h) = (p.w, p.h);
    let l = &p.data[0];
    let line = |y: usize| &l[y * w..(y + 1) * w];
    let (up, at, down) = (line(y.saturating_sub(1)), line(y), line((y + 1).min(h - 1)));
    // Down first, then across added in.
    for ((g, &u), &d) in grad.iter_mut().zip(up).zip(down) {
        *g = (d - u).abs();
    }
    if w == 1 {
        grad[0] *= 0.5;
    } else {
        grad[0] = 0.5 * (grad[0] + (at[1] - at[0]).abs());
        for (g, t) in grad[1..w - 1].iter_mut().zip(at.windows(3)) {
            *g = 0.5 * (*g + (t[2] - t[0]).abs());
        }
        grad[w - 1] = 0.5 * (grad[w - 1] + (at[w - 1] - at[w - 2]).abs());
    }
    sal.fill(0.0);
    for (k, m) in means.iter().enumerate().take(p.count) {
        for (s, &v) in sal.iter_mut().zip(&p.data[k][y * w..(y + 1) * w]) {
            let d = v - m;
            *s += d * d;
        }
    }
}

/// The mean of each plane, summed in `f32` blocks of eight lanes (so it
/// vectorises) added into `f64`.
#[inline(always)]
fn plane_means(p: &Planes) -> [f32; 3] {
    let mut means = [0.0f32; 3];
    for (k, m) in means.iter_mut().enumerate().take(p.count) {
        let mut total = 0.0f64;
        for block in p.data[k].chunks(F32_BLOCK) {
            let mut lanes = [0.0f32; 8];
            let chunks = block.chunks_exact(8);
            let rest: f32 = chunks.remainder().iter().sum();
            for c in chunks {
                for (l, &v) in lanes.iter_mut().zip(c) {
                    *l += v;
                }
            }
            total += f64::from(lanes.iter().sum::<f32>() + rest);
        }
        *m = (total / p.data[k].len() as f64) as f32;
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

/// [`profiles`] in the code every x86-64 runs, whatever the CPU: the
/// reference the tests hold the AVX2 build to, bit for bit.
#[doc(hidden)]
pub fn profiles_portable<S: Sample>(
    src: &Raster<S>,
    opts: &EnergyOptions,
) -> Result<Profiles, RetargetError> {
    opts.check()?;
    profiles_of(src, opts, false)
}

fn profiles_with<S: Sample>(
    src: &Raster<S>,
    opts: &EnergyOptions,
    exact: bool,
) -> Result<Profiles, RetargetError> {
    opts.check()?;
    #[cfg(target_arch = "x86_64")]
    if matches!(
        crate::resample::kernel_cap(),
        crate::resample::Kernel::Best | crate::resample::Kernel::Avx2
    ) && std::arch::is_x86_feature_detected!("avx2")
    {
        // SAFETY: the CPU was just found to have AVX2, the only feature the
        // function enables.
        return unsafe { profiles_avx2(src, opts, exact) };
    }
    profiles_of(src, opts, exact)
}

/// [`profiles_of`] compiled for AVX2: the same operations in the same
/// order (so the same results), with twice the lanes wherever the compiler
/// vectorises (the loops here are written for it).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn profiles_avx2<S: Sample>(
    src: &Raster<S>,
    opts: &EnergyOptions,
    exact: bool,
) -> Result<Profiles, RetargetError> {
    profiles_of(src, opts, exact)
}

#[inline(always)]
fn profiles_of<S: Sample>(
    src: &Raster<S>,
    opts: &EnergyOptions,
    exact: bool,
) -> Result<Profiles, RetargetError> {
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
    let mut grad = try_vec(w, 0.0f32, "energy row")?;
    let mut sal = try_vec(w, 0.0f32, "energy row")?;
    for y0 in (0..h).step_by(F32_BLOCK) {
        for y in y0..(y0 + F32_BLOCK).min(h) {
            row_terms(&p, &means, y, &mut grad, &mut sal);
            let (mut rg, mut rs) = (0.0f64, 0.0f64);
            if exact {
                for x in 0..w {
                    col_g[x] += f64::from(grad[x]);
                    col_s[x] += f64::from(sal[x]);
                    rg += f64::from(grad[x]);
                    rs += f64::from(sal[x]);
                }
            } else {
                for (b, &g) in blk_g.iter_mut().zip(&grad) {
                    *b += g;
                }
                for (b, &v) in blk_s.iter_mut().zip(&sal) {
                    *b += v;
                }
                for (g, v) in grad.chunks(F32_BLOCK).zip(sal.chunks(F32_BLOCK)) {
                    rg += f64::from(g.iter().sum::<f32>());
                    rs += f64::from(v.iter().sum::<f32>());
                }
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
#[inline(always)]
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
        let row = y * w..(y + 1) * w;
        row_terms(&p, &means, y, &mut g[row.clone()], &mut s[row.clone()]);
        tg += g[row.clone()].iter().map(|&v| f64::from(v)).sum::<f64>();
        ts += s[row].iter().map(|&v| f64::from(v)).sum::<f64>();
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
