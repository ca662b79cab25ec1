#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The energy profiles as the CPU at hand computes them (AVX2 where it has
//! it) against the portable build, bit for bit: the same operations in the
//! same order must give the same sums, on every layout and box size.

use proptest::prelude::*;
use retarget::energy::{profiles, profiles_portable};
use retarget::{EnergyOptions, Raster};

fn samples(n: usize, seed: u32, max: u32) -> impl Iterator<Item = u32> {
    let mut state = seed | 1;
    (0..n).map(move |i| {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        // Ramps and noise, so gradient and saliency both matter.
        if (i / 97) % 2 == 0 {
            (i as u32 * 7) % (max + 1)
        } else {
            state % (max + 1)
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64),
        ..ProptestConfig::default()
    })]
    #[test]
    fn profiles_match_the_portable_build_exactly(
        // Widths and heights across the 1, 2 and 4 box sizes.
        w in 1u32..300,
        h in 1u32..200,
        channels in 1u8..=4,
        wide in any::<bool>(),
        saliency in 0.0..2.0f32,
        seed in any::<u32>(),
    ) {
        let opts = EnergyOptions { saliency, floor: 0.3 };
        let n = (w * h) as usize * usize::from(channels);
        if wide {
            let data: Vec<u16> = samples(n, seed, 65535).map(|v| v as u16).collect();
            let src = Raster::from_vec(w, h, channels, data).unwrap();
            prop_assert_eq!(profiles(&src, &opts).unwrap(), profiles_portable(&src, &opts).unwrap());
        } else {
            let data: Vec<u8> = samples(n, seed, 255).map(|v| v as u8).collect();
            let src = Raster::from_vec(w, h, channels, data).unwrap();
            prop_assert_eq!(profiles(&src, &opts).unwrap(), profiles_portable(&src, &opts).unwrap());
        }
    }
}
