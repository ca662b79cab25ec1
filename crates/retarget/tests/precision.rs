#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The separable mode sums energy in `f32` blocks; on an 8192 × 8192 image
//! its maps must stay within 0.1 px of the same computation summed in `f64`.

use retarget::energy::{profiles, profiles_f64};
use retarget::{EnergyOptions, Options, Raster, plan_from_profiles};

#[test]
fn f32_sums_match_f64_at_8k() {
    let n = 8192u32;
    // Smooth shapes plus noise from a fixed LCG, so every term is non-trivial.
    let mut seed = 12345u32;
    let mut data = Vec::with_capacity((n * n) as usize);
    for y in 0..n {
        for x in 0..n {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let noise = (seed >> 16) % 24;
            let wave = 100.0 + 60.0 * ((x as f32) * 0.003).sin() * ((y as f32) * 0.002).cos();
            data.push((wave as u32 + noise).min(255) as u8);
        }
    }
    let src = Raster::from_vec(n, n, 1, data).unwrap();
    let opts = EnergyOptions::default();
    let fast = profiles(&src, &opts).unwrap();
    let exact = profiles_f64(&src, &opts).unwrap();
    let o = Options::default();
    for (tw, th) in [(4096u32, 8192u32), (8192, 2048), (1000, 7000)] {
        let a = plan_from_profiles(&fast, tw, th, &o).unwrap();
        let b = plan_from_profiles(&exact, tw, th, &o).unwrap();
        for (name, ma, mb) in [("x", &a.x, &b.x), ("y", &a.y, &b.y)] {
            let worst = ma
                .edges()
                .iter()
                .zip(mb.edges())
                .map(|(p, q)| (p - q).abs())
                .fold(0.0, f64::max);
            eprintln!("{tw}x{th} {name}: worst edge difference {worst:.2e} px");
            assert!(
                worst <= 0.1,
                "{tw}x{th}: the {name} map is {worst} px off the f64 reference"
            );
        }
    }
}
