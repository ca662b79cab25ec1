//! The 1€ filter against a trace of the authors' reference implementation
//! (PyPI `OneEuroFilter` 0.2.1; `tests/reference/one_euro.py` writes it, and
//! CI checks the file against a fresh run), within 1e-9.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches: a failure is the report.

use signals::{OneEuro, System};

/// (min cutoff, beta, d cutoff) per case, as in one_euro.py.
fn params(case: &str) -> (f64, f64, f64) {
    match case {
        "mouse" => (1.0, 0.007, 1.0),
        "hand" => (0.5, 0.5, 1.0),
        "fast" => (2.0, 2.0, 0.7),
        "jittery-clock" => (1.5, 0.1, 1.2),
        other => panic!("unknown case {other} in one_euro.csv: update params()"),
    }
}

#[test]
fn matches_the_reference_trace() {
    let text = include_str!("reference/one_euro.csv");
    let mut current: Option<(String, OneEuro<f64>, f64)> = None;
    let mut checked = 0;
    let mut worst = 0.0f64;
    for (line_no, line) in text.lines().enumerate().skip(1) {
        let cols: Vec<&str> = line.split(',').collect();
        let [case, t, x, want] = cols[..] else {
            panic!("line {}: expected 4 columns", line_no + 1)
        };
        let [t, x, want] = [t, x, want].map(|v| v.parse::<f64>().unwrap());
        if current.as_ref().is_none_or(|(c, _, _)| c != case) {
            let (mc, beta, dc) = params(case);
            current = Some((case.to_string(), OneEuro::new(mc, beta, dc).unwrap(), t));
        }
        let (_, filter, last_t) = current.as_mut().unwrap();
        // The reference takes timestamps; we take the elapsed time, computed as it does.
        let got = filter.update(t - *last_t, x).unwrap();
        *last_t = t;
        let off = (got - want).abs();
        worst = worst.max(off);
        assert!(
            off <= 1e-9,
            "line {}: case {case}: got {got}, reference {want}",
            line_no + 1
        );
        checked += 1;
    }
    assert_eq!(checked, 6000);
    println!("1€ filter: {checked} samples, worst difference from the reference {worst:e}");
}

mod raw_derivative {
    use proptest::prelude::*;
    use signals::{OneEuro, System};

    proptest! {
        /// With the speed taken from raw samples, the filter is the one the
        /// `one-euro` crate implements: same outputs within 1e-9.
        #[test]
        fn matches_the_one_euro_crate(samples in prop::collection::vec((0.002f64..0.1, -50.0f64..50.0), 2..200),
                                      min_cutoff in 0.1f64..5.0, beta in 0.0f64..3.0, d_cutoff in 0.1f64..5.0) {
            let mut ours = OneEuro::<f64>::new(min_cutoff, beta, d_cutoff).unwrap().with_raw_derivative();
            let mut filter = one_euro::OneEuroFilter::<f64>::default();
            filter.set_mincutoff(min_cutoff);
            filter.set_beta(beta);
            filter.set_dcutoff(d_cutoff);
            let first = samples[0].1;
            let mut state = one_euro::OneEuroState::<f64, 1>::new([first].into());
            ours.update(0.0, first).unwrap();
            for &(dt, x) in &samples[1..] {
                let got = ours.update(dt, x).unwrap();
                filter.filter(&mut state, &[x].into(), 1.0 / dt);
                let want = state.data()[0];
                prop_assert!((got - want).abs() <= 1e-9 * want.abs().max(1.0), "got {got}, one-euro {want}");
            }
        }
    }
}
