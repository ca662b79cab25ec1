#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The separable map's geometry, property-tested over random energies:
//! monotone, exact target size, no column growing while shrinking (nor
//! shrinking while enlarging), identity at the source size, and every pixel
//! moving one way only as the size is animated.

use proptest::prelude::*;
use retarget::warp::{BlendOptions, separable_map};
use retarget::{AxisMap, resample};

const EPS: f64 = 1e-9;

fn blend() -> BlendOptions {
    BlendOptions {
        strength: 1.0,
        floor: 0.1,
    }
}

/// Energies with spikes and flat runs, as photos have.
fn profile() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(
        prop_oneof![3 => 0.0..1.0f64, 1 => 0.0..50.0f64, 1 => Just(0.0)],
        1..300,
    )
}

fn check_map(m: &AxisMap, n: usize, target: u32) -> Result<(), TestCaseError> {
    let e = m.edges();
    prop_assert_eq!(e.len(), n + 1);
    prop_assert_eq!(e[0], 0.0);
    prop_assert!(
        (e[n] - f64::from(target)).abs() < 1e-6,
        "last edge {} target {}",
        e[n],
        target
    );
    for i in 0..n {
        prop_assert!(e[i + 1] >= e[i], "fold at {}: {} -> {}", i, e[i], e[i + 1]);
    }
    Ok(())
}

proptest! {
    #[test]
    fn monotone_and_exact(p in profile(), ratio in 0.0..3.0f64) {
        let n = p.len();
        let target = ((n as f64 * ratio).round() as u32).max(1);
        let m = separable_map(&p, &[], &[], target, &blend()).unwrap();
        check_map(&m, n, target)?;
        for i in 0..n {
            let w = m.width(i);
            if target as usize <= n {
                prop_assert!(w <= 1.0 + EPS, "column {} grew to {} while shrinking", i, w);
            } else {
                prop_assert!(w >= 1.0 - EPS, "column {} shrank to {} while enlarging", i, w);
            }
        }
    }

    #[test]
    fn identity_at_source_size(p in profile()) {
        let n = p.len();
        let m = separable_map(&p, &[], &[], n as u32, &blend()).unwrap();
        for (i, &e) in m.edges().iter().enumerate() {
            prop_assert!((e - i as f64).abs() < 1e-9);
        }
    }

    /// Animating the width: every source edge moves one way only.
    #[test]
    fn animation_is_monotone(p in profile(), a in 0.05..2.5f64, b in 0.05..2.5f64, strength in 0.0..=1.0f64) {
        let n = p.len();
        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
        let t_lo = ((n as f64 * lo).round() as u32).max(1);
        let t_hi = ((n as f64 * hi).round() as u32).max(t_lo);
        let opts = BlendOptions { strength, floor: 0.1 };
        let m_lo = separable_map(&p, &[], &[], t_lo, &opts).unwrap();
        let m_hi = separable_map(&p, &[], &[], t_hi, &opts).unwrap();
        for (i, (x_lo, x_hi)) in m_lo.edges().iter().zip(m_hi.edges()).enumerate() {
            prop_assert!(x_lo <= &(x_hi + 1e-6), "edge {} at {} for width {} but {} for {}", i, x_lo, t_lo, x_hi, t_hi);
        }
    }

    /// Protected columns keep width 1 while the target leaves room; removed
    /// ones are gone once the target is below the kept columns.
    #[test]
    fn masks(p in profile(), flags in prop::collection::vec(0u8..4, 300), ratio in 0.05..1.5f64) {
        let n = p.len();
        let protect: Vec<bool> = flags.iter().take(n).map(|&f| f == 1).collect();
        let remove: Vec<bool> = flags.iter().take(n).map(|&f| f == 2).collect();
        let target = ((n as f64 * ratio).round() as u32).max(1);
        let m = separable_map(&p, &protect, &remove, target, &blend()).unwrap();
        check_map(&m, n, target)?;
        let protected = protect.iter().filter(|&&b| b).count();
        let removed = remove.iter().filter(|&&b| b).count();
        let t = target as usize;
        for i in 0..n {
            // Protected columns keep width 1, unless every column is
            // protected and the image grows: then they share the growth.
            let all_grow = protected == n && t > n;
            if protect[i] && t >= protected && !all_grow {
                prop_assert!((m.width(i) - 1.0).abs() < 1e-9, "protected column {} has width {}", i, m.width(i));
            }
            if all_grow {
                prop_assert!((m.width(i) - t as f64 / n as f64).abs() < 1e-9);
            }
            if remove[i] && t <= n - removed {
                prop_assert!(m.width(i).abs() < 1e-9, "removed column {} has width {}", i, m.width(i));
            }
        }
    }

    /// The filter: each output line's weights sum to 1, lie on source lines
    /// that exist, and start in source order (the map is monotone).
    #[test]
    fn taps_are_a_partition(p in profile(), ratio in 0.01..3.0f64) {
        let n = p.len();
        let target = ((n as f64 * ratio).round() as usize).max(1);
        let m = separable_map(&p, &[], &[], target as u32, &blend()).unwrap();
        let taps = resample::taps(&m, target).unwrap();
        prop_assert_eq!(taps.len(), target);
        let mut last = 0;
        for j in 0..target {
            let (first, w) = taps.get(j);
            prop_assert!(!w.is_empty());
            prop_assert!(first + w.len() <= n);
            prop_assert!(first >= last);
            last = first;
            let s: f32 = w.iter().sum();
            prop_assert!((s - 1.0).abs() < 1e-4, "weights of {} sum to {}", j, s);
            prop_assert!(w.iter().all(|&x| x >= 0.0));
        }
    }
}

/// A flat profile scales uniformly.
#[test]
fn flat_profile_is_uniform() {
    let m = separable_map(&[1.0; 100], &[], &[], 37, &blend()).unwrap();
    for i in 0..100 {
        assert!((m.width(i) - 0.37).abs() < 1e-12);
    }
}

/// The inverse map undoes the forward one.
#[test]
fn inverse_undoes_forward() {
    let p: Vec<f64> = (0..50).map(|i| ((i * 7919) % 13) as f64).collect();
    let m = separable_map(&p, &[], &[], 20, &blend()).unwrap();
    for i in 0..50 {
        if m.width(i) > 1e-9 {
            let x = m.inverse(m.edges()[i] + 0.5 * m.width(i));
            assert!((x - (i as f64 + 0.5)).abs() < 1e-9, "{i}: {x}");
        }
    }
}
