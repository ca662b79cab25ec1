#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The seed's mode: the software-rasterised mesh and the single-quad
//! parallax lookup agree within one pixel, θ hits the target, and the
//! trapezoid the 2-D summed-area table makes is there to be measured.

use proptest::prelude::*;
use retarget::mesh::{Mesh, default_k, parallax, rasterise, solve_theta};
use retarget::{Limits, RetargetError};

fn energy(w: u32, h: u32) -> impl Strategy<Value = Vec<f32>> {
    prop::collection::vec(
        prop_oneof![3 => 0.1..2.0f32, 1 => 0.0..20.0f32],
        (w * h) as usize,
    )
}

fn case() -> impl Strategy<Value = (u32, u32, Vec<f32>, f64)> {
    (2u32..40, 1u32..30).prop_flat_map(|(w, h)| (Just(w), Just(h), energy(w, h), 0.2..1.8f64))
}

proptest! {
    #[test]
    fn mesh_and_parallax_agree((w, h, e, ratio) in case()) {
        let target = ((f64::from(w) * ratio).round() as u32).max(1);
        let k = default_k(w, target);
        let mesh = Mesh::new(&e, w, h, target, k).unwrap();
        let lim = Limits::default();
        let a = rasterise(&mesh, &lim).unwrap();
        let b = parallax(&mesh, &lim).unwrap();
        prop_assert_eq!((a.width, a.height), (b.width, b.height));
        let (ea, eb) = (a.row_extents(), b.row_extents());
        for y in 0..h as usize {
            // The drawn parts end within a pixel of each other.
            prop_assert!(ea[y].abs_diff(eb[y]) <= 1, "row {}: mesh reaches {}, parallax {}", y, ea[y], eb[y]);
            for x in 0..target as usize {
                let i = y * target as usize + x;
                let (ua, ub) = (a.u[i], b.u[i]);
                if !ua.is_nan() && !ub.is_nan() {
                    prop_assert!((ua - ub).abs() <= 1.0, "pixel ({}, {}): mesh shows x = {}, parallax {}", x, y, ua, ub);
                    prop_assert!((a.v[i] - b.v[i]).abs() <= 0.5);
                }
            }
        }
        // The mesh's bottom edge is the target width; the last pixel row, whose
        // centre is half a row above it, reaches halfway between its edges.
        prop_assert!((mesh.edge_width(h as usize) - f64::from(target)).abs() < 1e-6);
        let centre = 0.5 * (mesh.edge_width(h as usize - 1) + mesh.edge_width(h as usize));
        prop_assert!(f64::from(ea[h as usize - 1]) >= centre - 1.0, "bottom row reaches {} of {}", ea[h as usize - 1], centre);
    }

    /// θ solves W·(cosθ + k·sinθ) = target on the branch the docs name.
    #[test]
    fn theta_hits_the_target(w in 1u32..5000, ratio in 0.05..2.5f64) {
        let target = ((f64::from(w) * ratio).round() as u32).max(1);
        let k = default_k(w, target);
        let theta = solve_theta(w, target, k).unwrap();
        prop_assert!((0.0..=std::f64::consts::FRAC_PI_2 + 1e-12).contains(&theta));
        let got = f64::from(w) * (theta.cos() + k * theta.sin());
        prop_assert!((got - f64::from(target)).abs() < 1e-6 * f64::from(target.max(w)), "{} for {}", got, target);
    }
}

/// Beyond the rotation's reach: a clear error naming both ends.
#[test]
fn out_of_reach_names_the_limits() {
    let err = solve_theta(100, 20, 0.5).unwrap_err();
    match err {
        RetargetError::OutOfReach { min, max, .. } => {
            assert!((min - 50.0).abs() < 1e-9 && (max - 100.0 * 1.25f64.sqrt()).abs() < 1e-9);
        }
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains("50 to 111.8"), "{err}");
}

/// The trapezoid: with uniform energy the row above y holds y/H of the
/// energy, so the top rows come out W·cosθ wide and the bottom row the
/// target.
#[test]
fn top_rows_are_narrower() {
    let (w, h) = (200u32, 100u32);
    let e = vec![1.0f32; (w * h) as usize];
    let mesh = Mesh::new(&e, w, h, 100, 0.25).unwrap();
    let c = rasterise(&mesh, &Limits::default()).unwrap();
    let ext = c.row_extents();
    let top_expected = f64::from(w) * mesh.theta.cos();
    assert!(
        (f64::from(ext[0]) - top_expected).abs() <= 2.0,
        "top {} vs W·cosθ {}",
        ext[0],
        top_expected
    );
    assert!(ext[h as usize - 1] >= 99, "bottom {}", ext[h as usize - 1]);
    for y in 1..h as usize {
        assert!(ext[y] >= ext[y - 1], "row {y} narrower than the one above");
    }
}

/// Depth testing is a safety net: with θ in [0°, 90°] the map is monotone,
/// so no pixel is drawn twice and none inside a row's extent is missed.
#[test]
fn no_holes_inside_rows() {
    let (w, h) = (64u32, 16u32);
    let e: Vec<f32> = (0..w * h).map(|i| ((i * 7919) % 17) as f32).collect();
    for target in [10u32, 32, 63, 64, 70] {
        let mesh = Mesh::new(&e, w, h, target, default_k(w, target)).unwrap();
        let c = rasterise(&mesh, &Limits::default()).unwrap();
        let ext = c.row_extents();
        for (y, &reach) in ext.iter().enumerate() {
            for x in 0..reach as usize {
                assert!(
                    !c.u[y * target as usize + x].is_nan(),
                    "hole at ({x}, {y}) for target {target}"
                );
            }
        }
    }
}
