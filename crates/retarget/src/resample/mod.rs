//! Area-weighted 1-D resampling through an [`AxisMap`].
//!
//! Output pixel `j` covers `[j, j+1)`. Each source line covers
//! `[X(i), X(i+1))` of the output, and pixel `j` is the average of the
//! source lines weighted by how much of `[j, j+1)` each covers: a box filter
//! in output space, so shrinking never aliases and lines of zero width (a
//! removed object) weigh nothing. Where `[j, j+1)` pulls back to less than
//! one source pixel (enlarging) it is linear interpolation at the centre's
//! pre-image instead. Colour is weighted by alpha (premultiplied while
//! filtering).

mod fixed;

pub(crate) use fixed::kernel_cap;
#[doc(hidden)]
pub use fixed::{Kernel, cap_kernels, resample_width_with};

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
    let n = map.source_len();
    let e = map.edges();
    let mut first = try_vec(out_len, 0u32, "filter taps")?;
    let mut offsets = try_vec(out_len + 1, 0u32, "filter taps")?;
    let mut weights: Vec<f32> = Vec::new();
    // The map's last edge may differ from out_len by rounding: scale to it.
    let scale = if out_len > 0 {
        map.target_len() / out_len as f64
    } else {
        1.0
    };
    let mut tap = Vec::new();
    let mut lo_line = 0usize;
    for j in 0..out_len {
        let (a, b) = (j as f64 * scale, (j + 1) as f64 * scale);
        // Source lines overlapping [a, b) in output space, and how many
        // source pixels that is.
        while lo_line + 1 < n && e[lo_line + 1] <= a {
            lo_line += 1;
        }
        tap.clear();
        let mut covered = 0.0;
        let mut i = lo_line;
        while i < n && e[i] < b {
            let w = e[i + 1] - e[i];
            let overlap = (b.min(e[i + 1]) - a.max(e[i])).max(0.0);
            if w > 0.0 {
                covered += overlap / w;
            }
            tap.push(overlap);
            i += 1;
        }
        let start = if covered >= 1.0 {
            lo_line
        } else {
            // Enlarging here: linear interpolation between the two source
            // pixel centres around the output centre's pre-image, skipping
            // lines of zero width.
            let c = map.inverse(0.5 * (a + b));
            let ic = (c.floor() as usize).min(n - 1);
            let f = c - ic as f64;
            let next = |k: usize| (k + 1..n).find(|&m| map.width(m) > 0.0).unwrap_or(k);
            let prev = |k: usize| (0..k).rev().find(|&m| map.width(m) > 0.0).unwrap_or(k);
            let (l, r, t) = if f >= 0.5 {
                (ic, next(ic), f - 0.5)
            } else {
                (prev(ic), ic, f + 0.5)
            };
            tap.clear();
            tap.resize(r - l + 1, 0.0);
            tap[0] += 1.0 - t;
            tap[r - l] += t;
            l
        };
        let total: f64 = tap.iter().sum();
        weights
            .try_reserve(tap.len())
            .map_err(|_| RetargetError::OutOfMemory {
                what: "filter weights",
                bytes: ((weights.len() + tap.len()) * 4) as u64,
            })?;
        if total > 0.0 {
            weights.extend(tap.iter().map(|&w| (w / total) as f32));
        } else {
            weights.push(1.0);
        }
        first[j] = start as u32;
        offsets[j + 1] = weights.len() as u32;
    }
    Ok(Taps {
        first,
        offsets,
        weights,
    })
}

/// Filters `R` rows across at once (they share every tap, so its
/// bookkeeping is paid once for `R` rows): `src` holds the rows' floats one
/// after another, `stride` apart; `out` gets each filtered row, `taps.len()
/// · C` apart. Colour is premultiplied when `ALPHA`. Each output sums its
/// taps in order, as the GPU shader does.
#[inline]
fn rows_across<const C: usize, const ALPHA: bool, const R: usize>(
    src: &[f32],
    stride: usize,
    inv: f32,
    taps: &Taps,
    out: &mut [f32],
) {
    let out_stride = taps.len() * C;
    for j in 0..taps.len() {
        let (first, w) = taps.get(j);
        let span = first * C..(first + w.len()) * C;
        let rows: [&[f32]; R] = std::array::from_fn(|r| &src[r * stride..][span.clone()]);
        let mut acc = [[0.0f32; C]; R];
        for (k, &wk) in w.iter().enumerate() {
            for r in 0..R {
                let p = &rows[r][k * C..k * C + C];
                if ALPHA {
                    let a = p[C - 1];
                    let wa = wk * a * inv;
                    for c in 0..C - 1 {
                        acc[r][c] += wa * p[c];
                    }
                    acc[r][C - 1] += wk * a;
                } else {
                    for c in 0..C {
                        acc[r][c] += wk * p[c];
                    }
                }
            }
        }
        for (r, a) in acc.iter().enumerate() {
            out[r * out_stride + j * C..r * out_stride + j * C + C].copy_from_slice(a);
        }
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
    /// Rows filtered together.
    const GROUP: usize = 4;
    let out_stride = taps.len() * c;
    let stride = src.width() as usize * c;
    let mut rows = try_vec(out_stride * GROUP, 0.0f32, "filter rows")?;
    // Source rows converted to floats once (a tight loop the compiler
    // vectorises), not once per tap.
    let mut lines = try_vec(stride * GROUP, 0.0f32, "source rows")?;
    let inv = 1.0 / S::MAX;
    let h = src.height() as usize;
    let mut y = 0;
    while y < h {
        let n = if h - y >= GROUP { GROUP } else { 1 };
        for r in 0..n {
            for (f, v) in lines[r * stride..(r + 1) * stride]
                .iter_mut()
                .zip(src.row((y + r) as u32))
            {
                *f = v.to_f32();
            }
        }
        macro_rules! run {
            ($r:literal) => {
                match c {
                    1 => rows_across::<1, false, $r>(&lines, stride, inv, taps, &mut rows),
                    2 => rows_across::<2, true, $r>(&lines, stride, inv, taps, &mut rows),
                    3 => rows_across::<3, false, $r>(&lines, stride, inv, taps, &mut rows),
                    _ => rows_across::<4, true, $r>(&lines, stride, inv, taps, &mut rows),
                }
            };
        }
        if n == GROUP {
            run!(4);
        } else {
            run!(1);
        }
        for r in 0..n {
            emit(y + r, &rows[r * out_stride..(r + 1) * out_stride]);
        }
        y += n;
    }
    Ok(())
}

/// Resamples the width only.
pub fn resample_width<S: Sample>(
    src: &Raster<S>,
    taps: &Taps,
    limits: &Limits,
) -> Result<Raster<S>, RetargetError> {
    // 8-bit grey and RGB: the fixed-point path.
    if !src.has_alpha()
        && let Some(src8) = (src as &dyn std::any::Any).downcast_ref::<Raster<u8>>()
    {
        let out = fixed::resample_width(src8, taps, limits)?;
        if let Ok(out) = (Box::new(out) as Box<dyn std::any::Any>).downcast::<Raster<S>>() {
            return Ok(*out);
        }
    }
    resample_width_float(src, taps, limits)
}

/// [`resample_width`] in floats whatever the samples: the path for 16 bits
/// and alpha, and the reference the tests hold the 8-bit path to.
#[doc(hidden)]
pub fn resample_width_float<S: Sample>(
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

/// Resamples the width then the height (either may be the identity), in
/// one pass down the image: each output row is made as soon as the rows it
/// reads have been filtered across, and filtered rows are kept only while
/// an output row still needs them (a ring of as many rows as the longest
/// vertical filter), so memory beyond the source and the output does not
/// grow with the image's height.
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
    let mut out = Raster::new(w as u32, down_taps.len() as u32, src.channels(), limits)?;
    // The ring: rows [lo, lo + ring) of the width pass, row r in slot
    // r % ring. An output row reads rows [first, first + len); rows below
    // the next output's first are dropped as it is made.
    let ring = (0..down_taps.len())
        .map(|j| down_taps.get(j).1.len())
        .max()
        .unwrap_or(1)
        .max(1)
        + 1;
    let mut rows = try_vec(stride * ring, 0.0f32, "filter rows")?;
    let mut acc = try_vec(stride, 0.0f32, "filter row")?;
    let data = out.as_mut_slice();
    let mut j = 0usize;
    across(src, across_taps, |y, row| {
        let slot = y % ring;
        rows[slot * stride..(slot + 1) * stride].copy_from_slice(row);
        while j < down_taps.len() {
            let (first, wts) = down_taps.get(j);
            if first + wts.len() > y + 1 {
                break;
            }
            acc.fill(0.0);
            for (k, &wk) in wts.iter().enumerate() {
                let s = (first + k) % ring;
                for (a, &v) in acc.iter_mut().zip(&rows[s * stride..(s + 1) * stride]) {
                    *a += wk * v;
                }
            }
            finish(&acc, c, alpha, &mut data[j * stride..(j + 1) * stride]);
            j += 1;
        }
    })?;
    Ok(out)
}
