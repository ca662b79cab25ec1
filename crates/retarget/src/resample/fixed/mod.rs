//! 8-bit opaque rows (grey or RGB) resampled across in fixed point.
//!
//! The same box filter as the float path, with each output's weights
//! rounded to 14 bits and corrected to sum to exactly one, so a flat region
//! stays exactly flat; results differ from the float path by at most one
//! level. On x86-64 with SSSE3, RGB taps are taken two at a time: one 8-byte
//! load, one shuffle into (left, right) pairs per channel and one
//! multiply-add of both weights (`pmaddwd`). Outputs go four at a time (one
//! 12-byte store), in groups sorted by how many pairs they need, so the
//! unrolled kernel is chosen once per class rather than guessed per output.
//! With AVX2, two rows share each instruction, one per 128-bit half
//! (`x86.rs`). With AVX-512 VBMI, sixteen output samples (grey or RGB) go
//! through each instruction, their bytes gathered by byte permutes from a
//! window of the row (`avx512.rs`). Kernels are picked at run time; the
//! tests hold each to the scalar code here, exactly.

use std::sync::atomic::{AtomicU8, Ordering};

use super::Taps;
use crate::error::{RetargetError, try_vec};
use crate::raster::{Limits, Raster};

/// Fractional bits of a weight.
const BITS: u32 = 14;
/// A weight of one.
const ONE: i32 = 1 << BITS;
/// Added before the shift, to round to nearest.
const HALF: i32 = 1 << (BITS - 1);

/// The taps of one axis in fixed point, paired for `pmaddwd`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FixedTaps {
    /// First source pixel of each output.
    first: Vec<u32>,
    /// Output `j`'s pairs are `pairs[offsets[j]..offsets[j + 1]]`.
    offsets: Vec<u32>,
    /// Two 14-bit weights per entry: the pair's left pixel in the low 16
    /// bits, its right one in the high 16 (zero past the output's last tap).
    pairs: Vec<i32>,
}

impl FixedTaps {
    /// Rounds the float taps, keeping each output's sum exactly [`ONE`].
    pub(crate) fn new(taps: &Taps) -> Result<Self, RetargetError> {
        let n = taps.len();
        let mut first = try_vec(n, 0u32, "fixed taps")?;
        let mut offsets = try_vec(n + 1, 0u32, "fixed taps")?;
        let mut pairs: Vec<i32> = Vec::new();
        pairs
            .try_reserve(taps.weights.len() / 2 + n)
            .map_err(|_| RetargetError::OutOfMemory {
                what: "fixed taps",
                bytes: ((taps.weights.len() / 2 + n) * 4) as u64,
            })?;
        let mut q = Vec::new();
        for j in 0..n {
            let (f, w) = taps.get(j);
            q.clear();
            // Weights are non-negative: adding a half and truncating rounds
            // them (and inlines, where `round` is a call).
            q.extend(w.iter().map(|&v| (v * ONE as f32 + 0.5) as i32));
            // The rounding error goes to the heaviest tap, where it matters
            // least.
            let total: i32 = q.iter().sum();
            if let Some(k) = (0..q.len()).max_by_key(|&k| q[k]) {
                q[k] += ONE - total;
            }
            for pair in q.chunks(2) {
                let (lo, hi) = (pair[0], pair.get(1).copied().unwrap_or(0));
                pairs.push((hi << 16) | (lo & 0xffff));
            }
            first[j] = f as u32;
            offsets[j + 1] = pairs.len() as u32;
        }
        Ok(FixedTaps {
            first,
            offsets,
            pairs,
        })
    }

    fn len(&self) -> usize {
        self.first.len()
    }

    #[inline]
    fn get(&self, j: usize) -> (usize, &[i32]) {
        let (a, b) = (self.offsets[j] as usize, self.offsets[j + 1] as usize);
        (self.first[j] as usize, &self.pairs[a..b])
    }
}

/// The two weights of a pair.
#[inline]
fn split(pair: i32) -> (i32, i32) {
    (i32::from(pair as i16), pair >> 16)
}

#[inline]
fn to_level(acc: i32) -> u8 {
    ((acc + HALF) >> BITS).clamp(0, 255) as u8
}

/// Output `j` of one row, scalar: the reference the SIMD path matches
/// exactly, and its fallback at the row's end.
#[inline]
fn output_scalar<const C: usize>(row: &[u8], first: usize, pairs: &[i32], out: &mut [u8]) {
    let px = row.len() / C;
    let mut acc = [0i32; C];
    for (p, &pair) in pairs.iter().enumerate() {
        let (wl, wr) = split(pair);
        let i = first + 2 * p;
        for (c, a) in acc.iter_mut().enumerate() {
            *a += wl * i32::from(row[i * C + c]);
            if i + 1 < px {
                *a += wr * i32::from(row[(i + 1) * C + c]);
            }
        }
    }
    for (o, a) in out.iter_mut().zip(acc) {
        *o = to_level(a);
    }
}

fn row_scalar<const C: usize>(row: &[u8], taps: &FixedTaps, out: &mut [u8]) {
    for j in 0..taps.len() {
        let (first, pairs) = taps.get(j);
        output_scalar::<C>(row, first, pairs, &mut out[j * C..j * C + C]);
    }
}

/// Which code filters the rows (the tests hold each SIMD kernel to the
/// scalar one).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kernel {
    /// The best the CPU has.
    Best,
    /// 256-bit AVX2 at most.
    Avx2,
    /// 128-bit SSSE3 at most.
    Ssse3,
    /// Portable scalar code.
    Scalar,
}

/// The best kernel the library may pick by itself, as a [`Kernel`].
static CAP: AtomicU8 = AtomicU8::new(Kernel::Best as u8);

/// Caps the code the library picks by itself (the resampling kernels and
/// the AVX2 build of the energy), process-wide: how a CPU without AVX-512
/// or AVX2 would fare, measured on one that has them (`retarget-bench
/// --kernel`).
#[doc(hidden)]
pub fn cap_kernels(kernel: Kernel) {
    CAP.store(kernel as u8, Ordering::Relaxed);
}

/// The cap [`cap_kernels`] set.
pub(crate) fn kernel_cap() -> Kernel {
    match CAP.load(Ordering::Relaxed) {
        0 => Kernel::Best,
        1 => Kernel::Avx2,
        2 => Kernel::Ssse3,
        _ => Kernel::Scalar,
    }
}

/// Resamples the width of an 8-bit image without alpha (1 or 3 channels).
pub(crate) fn resample_width(
    src: &Raster<u8>,
    taps: &Taps,
    limits: &Limits,
) -> Result<Raster<u8>, RetargetError> {
    resample_width_with(src, taps, limits, kernel_cap())
}

/// [`resample_width`] with a chosen kernel (a kernel the CPU lacks falls
/// back to the next one down).
#[doc(hidden)]
pub fn resample_width_with(
    src: &Raster<u8>,
    taps: &Taps,
    limits: &Limits,
    kernel: Kernel,
) -> Result<Raster<u8>, RetargetError> {
    let fixed = FixedTaps::new(taps)?;
    let c = usize::from(src.channels());
    let mut out = Raster::new(taps.len() as u32, src.height(), src.channels(), limits)?;
    let out_stride = taps.len() * c;
    let in_stride = src.width() as usize * c;
    if out_stride == 0 || in_stride == 0 {
        return Ok(out);
    }
    let (input, output) = (src.as_slice(), out.as_mut_slice());
    #[cfg(target_arch = "x86_64")]
    if kernel == Kernel::Best
        && avx512::fits(in_stride, out_stride)
        && std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512vbmi")
    {
        // SAFETY: the CPU was just found to have the three features the
        // functions enable.
        match c {
            1 => unsafe { avx512::rows::<1>(input, in_stride, &fixed, output, out_stride) },
            _ => unsafe { avx512::rows::<3>(input, in_stride, &fixed, output, out_stride) },
        }
        return Ok(out);
    }
    #[cfg(target_arch = "x86_64")]
    if matches!(kernel, Kernel::Best | Kernel::Avx2)
        && c == 3
        && std::arch::is_x86_feature_detected!("avx2")
    {
        // SAFETY: the CPU was just found to have AVX2, the only feature
        // the function enables.
        unsafe { x86::rgb_rows_avx2(input, in_stride, &fixed, output, out_stride) };
        return Ok(out);
    }
    #[cfg(target_arch = "x86_64")]
    if kernel != Kernel::Scalar && c == 3 && std::arch::is_x86_feature_detected!("ssse3") {
        // SAFETY: the CPU was just found to have SSSE3, the only feature
        // the function enables.
        unsafe { x86::rgb_rows(input, in_stride, &fixed, output, out_stride) };
        return Ok(out);
    }
    let _ = kernel;
    for (row, o) in input
        .chunks_exact(in_stride)
        .zip(output.chunks_exact_mut(out_stride))
    {
        match c {
            1 => row_scalar::<1>(row, &fixed, o),
            _ => row_scalar::<3>(row, &fixed, o),
        }
    }
    Ok(out)
}

#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "x86_64")]
mod x86;
