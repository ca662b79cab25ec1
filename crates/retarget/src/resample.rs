//! Area-weighted 1-D resampling through an [`AxisMap`].
//!
//! Output pixel `j` covers `[j, j+1)`; pulled back through the map it covers
//! `[X⁻¹(j), X⁻¹(j+1))` of the source, and its value is the average of the
//! source over that interval (each source pixel weighted by its overlap), so
//! shrinking never aliases. Where the interval is shorter than one pixel
//! (enlarging) it is widened to one pixel about its centre, which is linear
//! interpolation. Colour is weighted by alpha (premultiplied while filtering).

use crate::error::{RetargetError, try_vec};
use crate::raster::{Limits, Raster, Sample};
use crate::warp::AxisMap;

/// The filter of one axis: for each output line, the source lines it reads
/// and their weights (summing to 1).
#[derive(Debug, Clone, PartialEq)]
pub struct Taps {
    /// First source line of each output line.
    pub first: Vec<u32>,
    /// Output line `j`'s weights are `weights[offsets[j]..offsets[j + 1]]`.
    pub offsets: Vec<u32>,
    /// The weights, for source lines `first[j]`, `first[j] + 1`, ...
    pub weights: Vec<f32>,
}

impl Taps {
    /// Number of output lines.
    pub fn len(&self) -> usize {
        self.first.len()
    }
    /// Whether there are no output lines.
    pub fn is_empty(&self) -> bool {
        self.first.is_empty()
    }
    /// Output line `j`'s first source line and weights.
    #[inline]
    pub fn get(&self, j: usize) -> (usize, &[f32]) {
        let (a, b) = (self.offsets[j] as usize, self.offsets[j + 1] as usize);
        (self.first[j] as usize, &self.weights[a..b])
    }
}

/// The filter that renders `map` into `out_len` output lines.
pub fn taps(map: &AxisMap, out_len: usize) -> Result<Taps, RetargetError> {
    let n = map.source_len() as f64;
    let mut first = try_vec(out_len, 0u32, "filter taps")?;
    let mut offsets = try_vec(out_len + 1, 0u32, "filter taps")?;
    let mut weights: Vec<f32> = Vec::new();
    // The map's last edge may differ from out_len by rounding: scale to it.
    let scale = if out_len > 0 {
        map.target_len() / out_len as f64
    } else {
        1.0
    };
    let mut lo = map.inverse(0.0);
    for j in 0..out_len {
        let hi = map.inverse((j + 1) as f64 * scale);
        let (mut a, mut b) = (lo, hi);
        lo = hi;
        if b - a < 1.0 {
            let c = 0.5 * (a + b);
            (a, b) = (c - 0.5, c + 0.5);
        }
        a = a.clamp(0.0, n);
        b = b.clamp(0.0, n);
        if b - a < 1e-9 {
            // Only at an edge: take the edge pixel.
            let i = (a.floor() as usize).min(n as usize - 1);
            (a, b) = (i as f64, i as f64 + 1.0);
        }
        let i0 = a.floor() as usize;
        let i1 = (b.ceil() as usize).min(n as usize);
        let total = b - a;
        weights
            .try_reserve(i1 - i0)
            .map_err(|_| RetargetError::OutOfMemory {
                what: "filter weights",
                bytes: ((weights.len() + i1 - i0) * 4) as u64,
            })?;
        for i in i0..i1 {
            let overlap = (b.min(i as f64 + 1.0) - a.max(i as f64)).max(0.0);
            weights.push((overlap / total) as f32);
        }
        first[j] = i0 as u32;
        offsets[j + 1] = weights.len() as u32;
    }
    Ok(Taps {
        first,
        offsets,
        weights,
    })
}

/// Filters one row across into `out` (premultiplied when `alpha`).
#[inline]
fn row_across<S: Sample, const C: usize>(src: &[S], taps: &Taps, alpha: bool, out: &mut [f32]) {
    let inv = 1.0 / S::MAX;
    for (j, o) in out.chunks_exact_mut(C).enumerate() {
        let (first, w) = taps.get(j);
        let mut acc = [0.0f32; C];
        for (k, &wk) in w.iter().enumerate() {
            let p = &src[(first + k) * C..(first + k + 1) * C];
            if alpha {
                let a = p[C - 1].to_f32();
                let wa = wk * a * inv;
                for c in 0..C - 1 {
                    acc[c] += wa * p[c].to_f32();
                }
                acc[C - 1] += wk * a;
            } else {
                for c in 0..C {
                    acc[c] += wk * p[c].to_f32();
                }
            }
        }
        o.copy_from_slice(&acc);
    }
}

/// Converts premultiplied floats back to samples.
#[inline]
fn finish<S: Sample>(src: &[f32], channels: usize, alpha: bool, out: &mut [S]) {
    if alpha {
        for (p, o) in src
            .chunks_exact(channels)
            .zip(out.chunks_exact_mut(channels))
        {
            let a = p[channels - 1];
            let k = if a > 0.0 { S::MAX / a } else { 0.0 };
            for c in 0..channels - 1 {
                o[c] = S::from_f32(p[c] * k);
            }
            o[channels - 1] = S::from_f32(a);
        }
    } else {
        for (p, o) in src.iter().zip(out.iter_mut()) {
            *o = S::from_f32(*p);
        }
    }
}

fn across<S: Sample>(
    src: &Raster<S>,
    taps: &Taps,
    mut emit: impl FnMut(usize, &[f32]),
) -> Result<(), RetargetError> {
    let c = usize::from(src.channels());
    let alpha = src.has_alpha();
    let mut row = try_vec(taps.len() * c, 0.0f32, "filter row")?;
    for y in 0..src.height() {
        let s = src.row(y);
        match c {
            1 => row_across::<S, 1>(s, taps, alpha, &mut row),
            2 => row_across::<S, 2>(s, taps, alpha, &mut row),
            3 => row_across::<S, 3>(s, taps, alpha, &mut row),
            _ => row_across::<S, 4>(s, taps, alpha, &mut row),
        }
        emit(y as usize, &row);
    }
    Ok(())
}

/// Resamples the width only.
pub fn resample_width<S: Sample>(
    src: &Raster<S>,
    taps: &Taps,
    limits: &Limits,
) -> Result<Raster<S>, RetargetError> {
    let c = usize::from(src.channels());
    let mut out = Raster::new(taps.len() as u32, src.height(), src.channels(), limits)?;
    let stride = taps.len() * c;
    let alpha = src.has_alpha();
    let data = out.as_mut_slice();
    across(src, taps, |y, row| {
        finish(row, c, alpha, &mut data[y * stride..(y + 1) * stride])
    })?;
    Ok(out)
}

/// Resamples the width then the height (either may be the identity).
pub fn resample<S: Sample>(
    src: &Raster<S>,
    across_taps: &Taps,
    down_taps: &Taps,
    limits: &Limits,
) -> Result<Raster<S>, RetargetError> {
    let c = usize::from(src.channels());
    let alpha = src.has_alpha();
    let w = across_taps.len();
    let stride = w * c;
    // The width pass into premultiplied floats, then the height pass.
    let mut mid = try_vec(stride * src.height() as usize, 0.0f32, "intermediate image")?;
    across(src, across_taps, |y, row| {
        mid[y * stride..(y + 1) * stride].copy_from_slice(row)
    })?;
    let mut out = Raster::new(w as u32, down_taps.len() as u32, src.channels(), limits)?;
    let mut acc = try_vec(stride, 0.0f32, "filter row")?;
    let data = out.as_mut_slice();
    for j in 0..down_taps.len() {
        let (first, wts) = down_taps.get(j);
        acc.fill(0.0);
        for (k, &wk) in wts.iter().enumerate() {
            let r = &mid[(first + k) * stride..(first + k + 1) * stride];
            for (a, &v) in acc.iter_mut().zip(r) {
                *a += wk * v;
            }
        }
        finish(&acc, c, alpha, &mut data[j * stride..(j + 1) * stride]);
    }
    Ok(out)
}
