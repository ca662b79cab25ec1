//! Defined, finite results for any input: dt = 0, negative dt (error), huge
//! dt (10⁶ τ), NaN and infinite inputs (error, state unchanged), fuzzed.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches: a failure is the report.

use proptest::prelude::*;
use signals::{
    Backlash, Exponential, Hold, OneEuro, Pid, PidConfig, RateLimiter, SignalError, SmoothDamp,
    Smoother, SpringDamper, System,
};

fn systems() -> Vec<(&'static str, Box<dyn System<f64>>)> {
    let exp = Exponential::time_constant(0.1).unwrap();
    vec![
        ("exponential", Box::new(Smoother::new(exp, 0.0).unwrap())),
        (
            "exponential foh",
            Box::new(Smoother::new(exp, 0.0).unwrap().with_hold(Hold::FirstOrder)),
        ),
        (
            "critical",
            Box::new(Smoother::new(SpringDamper::critical(0.1).unwrap(), 0.0).unwrap()),
        ),
        (
            "undamped",
            Box::new(
                Smoother::new(SpringDamper::new(10.0, 0.0).unwrap(), 0.0)
                    .unwrap()
                    .with_hold(Hold::FirstOrder),
            ),
        ),
        (
            "under",
            Box::new(
                Smoother::new(SpringDamper::new(10.0, 0.2).unwrap(), 0.0)
                    .unwrap()
                    .with_hold(Hold::FirstOrder),
            ),
        ),
        (
            "over",
            Box::new(Smoother::new(SpringDamper::new(10.0, 7.0).unwrap(), 0.0).unwrap()),
        ),
        (
            "tracking",
            Box::new(
                Smoother::new(SpringDamper::new(10.0, 1.0).unwrap().tracking(), 0.0)
                    .unwrap()
                    .with_hold(Hold::FirstOrder),
            ),
        ),
        (
            "max speed",
            Box::new(
                Smoother::new(SpringDamper::critical(0.1).unwrap(), 0.0)
                    .unwrap()
                    .with_max_speed(5.0)
                    .unwrap(),
            ),
        ),
        (
            "jumps",
            Box::new(
                Smoother::new(exp, 0.0)
                    .unwrap()
                    .with_jump_threshold(50.0)
                    .unwrap(),
            ),
        ),
        ("smooth damp", Box::new(SmoothDamp::new(0.1, 0.0).unwrap())),
        ("1€", Box::new(OneEuro::new(1.0, 0.5, 1.0).unwrap())),
        ("rate", Box::new(RateLimiter::new(3.0, 0.0).unwrap())),
        ("backlash", Box::new(Backlash::new(0.5, 0.0).unwrap())),
    ]
}

fn dt() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => 0.0f64..0.5,
        1 => Just(0.0),
        1 => Just(1e5),
        1 => Just(f64::MIN_POSITIVE),
        1 => -1.0f64..0.0,
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
    ]
}

fn target() -> impl Strategy<Value = f64> {
    prop_oneof![
        6 => -100.0f64..100.0,
        1 => Just(1e300),
        1 => Just(-1e300),
        1 => Just(f64::NAN),
        1 => Just(f64::NEG_INFINITY),
    ]
}

proptest! {
    #[test]
    fn outputs_stay_finite_and_errors_change_nothing(steps in prop::collection::vec((dt(), target()), 1..60)) {
        for (name, mut s) in systems() {
            for &(dt, g) in &steps {
                let before = (s.value(), s.velocity());
                match s.update(dt, g) {
                    Ok(v) => {
                        prop_assert!(v.is_finite(), "{name}: update({dt}, {g}) returned {v}");
                        prop_assert!(s.velocity().is_finite(), "{name}: velocity {} after update({dt}, {g})", s.velocity());
                    }
                    Err(e) => {
                        prop_assert!(!(dt.is_finite() && dt >= 0.0 && g.is_finite()) || matches!(e, SignalError::NonFiniteInput { .. }),
                            "{name}: valid input ({dt}, {g}) refused: {e}");
                        let after = (s.value(), s.velocity());
                        prop_assert!(before.0.to_bits() == after.0.to_bits() && before.1.to_bits() == after.1.to_bits(),
                            "{name}: error {e} changed the state");
                    }
                }
            }
        }
    }

    #[test]
    fn pid_output_is_finite_and_within_limits(steps in prop::collection::vec((dt(), target(), target()), 1..60)) {
        let mut pid = Pid::new(PidConfig { kp: 2.0, ki: 1.0, kd: 0.1, output_limits: (-10.0, 10.0), derivative_filter: 0.01, ..PidConfig::default() }).unwrap();
        for &(dt, sp, m) in &steps {
            if let Ok(out) = pid.update(dt, sp, m) {
                prop_assert!(out.output.is_finite() && (-10.0..=10.0).contains(&out.output), "{out:?}");
            }
        }
    }
}

#[test]
fn bad_dt_is_an_error_naming_it() {
    for (name, mut s) in systems() {
        assert!(
            matches!(s.update(-0.1, 1.0), Err(SignalError::NegativeDt { dt }) if dt == -0.1),
            "{name}"
        );
        assert!(
            matches!(
                s.update(f64::NAN, 1.0),
                Err(SignalError::NonFiniteDt { .. })
            ),
            "{name}"
        );
        assert!(
            matches!(
                s.update(0.1, f64::NAN),
                Err(SignalError::NonFiniteInput { .. })
            ),
            "{name}"
        );
    }
    let err = Smoother::new(Exponential::time_constant(1.0).unwrap(), 0.0f64)
        .unwrap()
        .update(-2.0, 0.0)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "elapsed time -2 s is negative; steps must move time forward"
    );
}

#[test]
fn zero_dt_moves_nothing_and_huge_dt_settles() {
    for (name, mut s) in systems() {
        s.update(0.05, 3.0).unwrap();
        let v = s.value();
        // Backlash depends on the input's path, not on time: it is the exception.
        if name != "backlash" {
            assert_eq!(
                s.update(0.0, 7.0).unwrap(),
                v,
                "{name}: dt = 0 moved the output"
            );
        }
        // 10⁶ time constants: every system but the rate limiter and backlash lands on the target.
        let out = s.update(1e5, 7.0).unwrap();
        assert!(out.is_finite(), "{name}");
        if !matches!(name, "backlash" | "1€" | "undamped") {
            assert!((out - 7.0).abs() < 1e-9, "{name}: {out} after 10⁶ τ");
        }
    }
}

#[test]
fn invalid_parameters_are_named() {
    let e = Exponential::half_life(-1.0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "parameter half_life = -1 is invalid: it must be finite and > 0"
    );
    assert!(SpringDamper::new(1.0, f64::NAN).is_err());
    assert!(OneEuro::<f64>::new(0.0, 0.0, 1.0).is_err());
    let e = Pid::new(PidConfig {
        output_limits: (1.0, -1.0),
        ..PidConfig::default()
    })
    .unwrap_err();
    assert!(e.to_string().contains("output_limits"), "{e}");
}

#[test]
fn jump_threshold_snaps_and_reports() {
    let mut s = Smoother::new(SpringDamper::critical(0.2).unwrap(), 0.0f64)
        .unwrap()
        .with_jump_threshold(5.0)
        .unwrap();
    s.update(0.1, 1.0).unwrap();
    assert!(!s.jumped());
    assert_eq!(s.update(0.1, 100.0).unwrap(), 100.0);
    assert!(s.jumped());
    assert_eq!(s.velocity(), 0.0);
}

#[test]
fn max_speed_caps_motion() {
    let mut s = Smoother::new(SpringDamper::critical(0.05).unwrap(), 0.0f64)
        .unwrap()
        .with_max_speed(2.0)
        .unwrap();
    let mut prev = 0.0;
    for _ in 0..100 {
        let x = s.update(0.01, 10.0).unwrap();
        assert!(x - prev <= 2.0 * 0.01 + 1e-12);
        assert!(s.velocity().abs() <= 2.0 + 1e-12);
        prev = x;
    }
}

#[test]
fn non_finite_initial_values_are_refused() {
    let exp = Exponential::time_constant(0.1).unwrap();
    assert!(matches!(
        Smoother::new(exp, f64::NAN),
        Err(SignalError::NonFiniteInput { .. })
    ));
    assert!(RateLimiter::new(1.0, f64::INFINITY).is_err());
    assert!(Backlash::new(1.0, f64::NAN).is_err());
    assert!(SmoothDamp::new(0.1, f32::NAN).is_err());
    for (name, mut s) in systems() {
        s.update(0.05, 3.0).unwrap();
        let before = (s.value(), s.velocity());
        assert!(s.reset(f64::NAN).is_err(), "{name}: reset(NaN) accepted");
        assert_eq!(
            (s.value().to_bits(), s.velocity().to_bits()),
            (before.0.to_bits(), before.1.to_bits()),
            "{name}"
        );
        s.reset(2.0).unwrap();
        assert_eq!(s.value(), 2.0, "{name}");
    }
}

#[test]
fn the_analysis_refuses_what_it_cannot_run() {
    use signals::analysis::{Input, simulate};
    let make = || -> Box<dyn System<f64>> {
        Box::new(Smoother::new(Exponential::time_constant(0.1).unwrap(), 0.0).unwrap())
    };
    assert!(simulate(&make, &Input::Step, 0.0, 1.0, None).is_err());
    assert!(simulate(&make, &Input::Step, 60.0, f64::NAN, None).is_err());
    // 1e12 steps would need terabytes: refused before anything is taken.
    assert!(simulate(&make, &Input::Step, 1e6, 1e6, None).is_err());
    // A ramp of infinite slope is refused by the system, not drawn as NaN.
    assert!(
        simulate(
            &make,
            &Input::Ramp {
                slope: f64::INFINITY
            },
            60.0,
            1.0,
            None
        )
        .is_err()
    );
    assert!(signals::analysis::frequency_response(&make, &[0.0], 60.0).is_err());
}
