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
