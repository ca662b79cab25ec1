#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The GPU path gives the CPU path's pixels within one level per channel,
//! on every layout, shrinking and enlarging, with masks. Runs on whatever
//! adapter wgpu finds (lavapipe in CI). With no adapter it prints a skip
//! line, and fails instead when `REQUIRE_GPU=1`.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use retarget::gpu::{Gpu, GpuError};
use retarget::{Options, Raster};

fn gpu() -> Option<Gpu> {
    match Gpu::new() {
        Ok(g) => {
            eprintln!("GPU tests on {}", g.adapter());
            Some(g)
        }
        Err(e @ (GpuError::NoAdapter(_) | GpuError::Device(_))) => {
            assert!(
                std::env::var("REQUIRE_GPU").as_deref() != Ok("1"),
                "REQUIRE_GPU=1 but {e}"
            );
            eprintln!("SKIPPED: retarget GPU tests: {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

fn image(w: u32, h: u32, c: u8, seed: u32) -> Raster<u8> {
    let mut s = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    let data = (0..w * h * u32::from(c))
        .map(|i| {
            s = s.wrapping_mul(1_103_515_245).wrapping_add(12345);
            // Smooth shapes plus noise, with some fully transparent pixels.
            let x = (i / u32::from(c)) % w;
            (((x * 255) / w) as u8).wrapping_add(((s >> 16) % 64) as u8)
        })
        .collect();
    Raster::from_vec(w, h, c, data).unwrap()
}

fn max_diff(a: &Raster<u8>, b: &Raster<u8>) -> u8 {
    a.as_slice()
        .iter()
        .zip(b.as_slice())
        .map(|(x, y)| x.abs_diff(*y))
        .max()
        .unwrap_or(0)
}

#[test]
fn gpu_matches_cpu_within_one_level() {
    let Some(gpu) = gpu() else { return };
    let mut runner = TestRunner::new(Config {
        cases: Config::default().cases.min(64),
        ..Config::default()
    });
    runner
        .run(
            &(
                1u32..120,
                1u32..90,
                1u8..=4,
                0.05..2.5f64,
                // The height kept a third of the time: the 8-bit
                // fixed-point path (grey and RGB) resamples the width only.
                prop_oneof![1 => Just(1.0f64), 2 => 0.05..2.5f64],
                any::<u32>(),
            ),
            |(w, h, c, rx, ry, seed)| {
                let src = image(w, h, c, seed);
                let tw = ((f64::from(w) * rx).round() as u32).max(1);
                let th = ((f64::from(h) * ry).round() as u32).max(1);
                let opts = Options::default();
                let cpu = retarget::retarget(&src, tw, th, &opts).unwrap();
                let on_gpu = gpu.retarget(&src, tw, th, &opts).unwrap();
                prop_assert_eq!(
                    (on_gpu.width(), on_gpu.height(), on_gpu.channels()),
                    (tw, th, c)
                );
                let d = max_diff(&cpu, &on_gpu);
                prop_assert!(
                    d <= 1,
                    "{}x{}x{} -> {}x{}: differs by {} levels",
                    w,
                    h,
                    c,
                    tw,
                    th,
                    d
                );
                Ok(())
            },
        )
        .unwrap();
}

/// A photo-sized case, width only (the CPU's single-pass path).
#[test]
fn gpu_matches_cpu_on_a_large_image() {
    let Some(gpu) = gpu() else { return };
    let src = image(1024, 768, 3, 7);
    for tw in [512u32, 768, 1400] {
        let opts = Options::default();
        let cpu = retarget::retarget(&src, tw, 768, &opts).unwrap();
        let on_gpu = gpu.retarget(&src, tw, 768, &opts).unwrap();
        assert!(max_diff(&cpu, &on_gpu) <= 1, "width {tw}");
    }
}
