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
