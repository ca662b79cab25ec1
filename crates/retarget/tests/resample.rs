#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The 8-bit fixed-point resampler (each SIMD kernel the CPU has: AVX-512
//! VBMI, AVX2, SSSE3) against
//! its scalar code (exactly) and the float path (within one level), over random
//! images, energies and target widths, shrinking and enlarging.

use proptest::prelude::*;
use retarget::warp::{BlendOptions, separable_map};
use retarget::{Limits, Raster, resample};

fn image(w: u32, h: u32, c: u8, seed: u32) -> Raster<u8> {
    // Smooth ramps, hard edges and noise, so weights of every size matter.
    let mut state = seed | 1;
    let mut data = Vec::new();
    for y in 0..h {
        for x in 0..w {
            for k in 0..u32::from(c) {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                let v = match (x / 7 + y + k) % 3 {
                    0 => (x * 255 / w.max(1)) as u8,
                    1 => {
                        if (x / 5) % 2 == 0 {
                            0
                        } else {
                            255
                        }
                    }
                    _ => state as u8,
                };
                data.push(v);
            }
        }
    }
    Raster::from_vec(w, h, c, data).unwrap()
}

fn profile(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            match s % 4 {
                0 => 0.0,
                1 => (s >> 40) as f64 / 1e3,
                _ => (s >> 56) as f64 / 50.0,
            }
        })
        .collect()
}

/// The two-axis resample in plain `f64`: each output pixel the weighted
/// sum, across then down, of the premultiplied source (the oracle for the
/// banded pass, which keeps only the rows in reach).
fn reference(src: &Raster<u8>, across: &resample::Taps, down: &resample::Taps) -> Vec<f64> {
    let c = usize::from(src.channels());
    let alpha = src.has_alpha();
    let mut out = Vec::new();
    for j in 0..down.len() {
        let (fy, wy) = down.get(j);
        for i in 0..across.len() {
            let (fx, wx) = across.get(i);
            let mut acc = vec![0.0f64; c];
            for (ky, &vy) in wy.iter().enumerate() {
                let row = src.row((fy + ky) as u32);
                for (kx, &vx) in wx.iter().enumerate() {
                    let p = &row[(fx + kx) * c..(fx + kx + 1) * c];
                    let a = if alpha {
                        f64::from(p[c - 1]) / 255.0
                    } else {
                        1.0
                    };
                    for ch in 0..c {
                        let v = f64::from(p[ch]);
                        let v = if alpha && ch < c - 1 { v * a } else { v };
                        acc[ch] += f64::from(vy) * f64::from(vx) * v;
                    }
                }
            }
            if alpha && acc[c - 1] > 0.0 {
                let a = acc[c - 1] / 255.0;
                for v in acc.iter_mut().take(c - 1) {
                    *v /= a;
                }
            }
            out.extend(acc);
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64),
        ..ProptestConfig::default()
    })]
    /// Both axes at once, in one banded pass down the image: within one
    /// level of the plain two-axis sum, shrinking, enlarging and with
    /// empty (removed) lines, grey to RGBA.
    #[test]
    fn the_banded_two_axis_pass_matches_the_plain_sum(
        w in 1u32..40, h in 1u32..60, c in 1u8..=4,
        tw in 1u32..50, th in 1u32..80, seed in any::<u32>(),
    ) {
        let src = image(w, h, c, seed);
        let blend = BlendOptions { strength: 1.0, floor: 0.1 };
        let mx = separable_map(&profile(w as usize, u64::from(seed)), &[], &[], tw, &blend).unwrap();
        let my = separable_map(&profile(h as usize, u64::from(seed) + 7), &[], &[], th, &blend).unwrap();
        let across = resample::taps(&mx, tw as usize).unwrap();
        let down = resample::taps(&my, th as usize).unwrap();
        let out = resample::resample(&src, &across, &down, &Limits::default()).unwrap();
        let want = reference(&src, &across, &down);
        for (k, (&got, &v)) in out.as_slice().iter().zip(&want).enumerate() {
            prop_assert!((f64::from(got) - v).abs() <= 1.0, "sample {}: {} vs {}", k, got, v);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256),
        ..ProptestConfig::default()
    })]
    #[test]
    fn fixed_point_matches_its_scalar_code_and_the_float_path(
        w in 1u32..300,
        h in 1u32..9,
        grey in any::<bool>(),
        ratio in prop_oneof![0.05..1.0f64, 1.0..2.5f64],
        floor in 0.0..1.0f64,
        seed in any::<u32>(),
    ) {
        let c = if grey { 1 } else { 3 };
        let src = image(w, h, c, seed);
        let target = ((f64::from(w) * ratio).round() as u32).max(1);
        let opts = BlendOptions { strength: 1.0, floor };
        let map = separable_map(&profile(w as usize, u64::from(seed)), &[], &[], target, &opts).unwrap();
        let taps = resample::taps(&map, target as usize).unwrap();
        let fast = resample::resample_width(&src, &taps, &Limits::default()).unwrap();
        let with = |k| resample::resample_width_with(&src, &taps, &Limits::default(), k).unwrap();
        let (avx2, ssse3) = (with(resample::Kernel::Avx2), with(resample::Kernel::Ssse3));
        let scalar = with(resample::Kernel::Scalar);
        let float = resample::resample_width_float(&src, &taps, &Limits::default()).unwrap();
        prop_assert_eq!((fast.width(), fast.height()), (target, h));
        prop_assert!(fast == scalar, "the best SIMD kernel and the scalar code differ");
        prop_assert!(avx2 == scalar, "the AVX2 kernel and the scalar code differ");
        prop_assert!(ssse3 == scalar, "the SSSE3 kernel and the scalar code differ");
        for (i, (a, b)) in fast.as_slice().iter().zip(float.as_slice()).enumerate() {
            prop_assert!(a.abs_diff(*b) <= 1, "sample {}: fixed {} float {}", i, a, b);
        }
    }

    #[test]
    fn a_flat_image_stays_exactly_flat(
        w in 1u32..300,
        ratio in 0.05..2.5f64,
        colour in any::<[u8; 3]>(),
        seed in any::<u64>(),
    ) {
        let src = Raster::from_vec(w, 2, 3, colour.repeat(2 * w as usize)).unwrap();
        let target = ((f64::from(w) * ratio).round() as u32).max(1);
        let opts = BlendOptions { strength: 1.0, floor: 0.2 };
        let map = separable_map(&profile(w as usize, seed), &[], &[], target, &opts).unwrap();
        let taps = resample::taps(&map, target as usize).unwrap();
        let out = resample::resample_width(&src, &taps, &Limits::default()).unwrap();
        for px in out.as_slice().chunks_exact(3) {
            prop_assert_eq!(px, &colour[..]);
        }
    }
}
